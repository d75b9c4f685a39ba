/**
 * Opening a dispute whose outcome is unknown (the service's answer lost): the app keeps its own
 * row, as sent, with the merchant's message as the first of its thread, until the sync claims
 * it (app/disputes/open.server.ts). Against the service simulator over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDispute } from "../../app/disputes/open.server";
import { type DisputeFixture, disputeFixture, prisma } from "./fixture";

const SHOP = "disputes-pending.myshopify.com";
let f: DisputeFixture;

beforeAll(async () => {
  f = await disputeFixture(SHOP, { clientTimeoutMs: 2_000 });
});
afterAll(async () => f?.close());

describe("a dispute whose opening is not answered", () => {
  it("is kept as sent, with the merchant's words as the thread's first message", async () => {
    const o = await f.paidOrder();
    f.svc.setFaults({
      ops: ["disputeCreate"],
      rateTimeout: 1,
      timeoutMs: 2_500,
      timeoutDrop: true,
    });
    try {
      await expect(
        openDispute(prisma, f.client, f.account, "http://127.0.0.1:9", {
          orderId: o.id,
          quantities: { [o.lineIds[0]]: 1 },
          reasonId: "2",
          expectType: "2",
          refundType: "1",
          text: "  The lamp came without its shade.  ",
          clientKey: `pending-${Date.now()}`,
          files: [],
          addresses: [],
        }),
      ).rejects.toMatchObject({ outcomeUnknown: true });
    } finally {
      f.svc.clearFaults();
    }
    const rows = await prisma.dispute.findMany({
      where: { orderId: o.id },
      include: { messages: true },
    });
    expect(rows).toHaveLength(1);
    const [row] = rows as [(typeof rows)[number]];
    expect(row).toMatchObject({ status: "Sent", expectType: 2, svcOrderId: o.svcOrderId });
    expect(row.messages.map((m) => ({ fromSupport: m.fromSupport, id: m.messageId }))).toEqual([
      { fromSupport: false, id: row.svcDisputeId },
    ]);
    expect(row.messages[0]!.text).toContain("The lamp came without its shade.");
  });
});
