/**
 * The service unreachable while placing (issue 14): after three failed attempts of its place job
 * the order is shown held `service_unavailable` (not left RECEIVED behind a long backoff), and
 * the reconciler's next successful call to the service places it again at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVICE_DOWN_AFTER_ATTEMPTS } from "../../app/fulfilment/handlers.server";
import { holdUnreachable } from "../../app/fulfilment/place/index.server";
import { reconcileAccount } from "../../app/fulfilment/reconcile/index.server";
import { JOB } from "../../app/orders/schedule.server";
import { type Harness, opCalls, prisma, startHarness } from "./harness";
import { NO_TOKENS } from "../../app/svc/tokens.server";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "place-unreachable.myshopify.com" });
});
afterAll(async () => h?.close());

describe("the service unreachable while placing", () => {
  it("holds the order after three attempts, then places it when the service answers", async () => {
    const p = await h.connectedProduct("Outage Lamp", "12.00");
    h.svc.setFaults({ rate5xx: 1, ops: ["createOrderV3"] });
    const placed = await h.order([{ product: p, quantity: 1 }]);
    await h.settle();
    let row = await h.row(placed.legacyId);
    for (let i = 0; i < SERVICE_DOWN_AFTER_ATTEMPTS + 2 && row.state !== "HELD"; i++) {
      await prisma.job.updateMany({
        where: { kind: JOB.place, state: "available" },
        data: { runAt: new Date(Date.now() - 1000) },
      });
      await h.settle();
      row = await h.row(placed.legacyId);
    }
    expect([row.state, row.reasonCode]).toEqual(["HELD", "service_unavailable"]);
    expect(row.reasonMessage).toMatch(
      /^Placing this order failed several times for a passing reason/,
    );
    const job = await prisma.job.findFirstOrThrow({
      where: { kind: JOB.place, concurrencyKey: `order:${row.id}` },
      orderBy: { id: "desc" },
    });
    expect([job.state, job.attempts]).toEqual(["completed", SERVICE_DOWN_AFTER_ATTEMPTS]);
    expect(
      h.svc.orders({ accountId: h.simAccountId }).some((o) => o.orderNumber === row.orderNumber),
    ).toBe(false);

    h.svc.clearFaults();
    const creates = opCalls(h, "createOrderV3");
    await reconcileAccount(h.deps, h.accountId);
    await h.settle();
    row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");
    expect(opCalls(h, "createOrderV3")).toBe(creates + 1);
  });

  it("waits, not fails, while the account's token was asked for less than 5 minutes ago", async () => {
    const p = await h.connectedProduct("Cooldown Mug", "9.00");
    // A getAccessToken whose reply was lost a minute ago: no token, and none may be asked yet.
    await prisma.svcAccount.update({
      where: { id: h.accountId },
      data: { ...NO_TOKENS, lastTokenRequestAt: new Date(h.svc.clock.now() - 60_000) },
    });
    const tokenCalls = opCalls(h, "getAccessToken");
    const placed = await h.order([{ product: p, quantity: 1 }]);
    await h.settle();
    let row = await h.row(placed.legacyId);
    expect(row.state).toBe("RECEIVED");
    expect(row.reasonCode).toBeNull();
    const job = await prisma.job.findFirstOrThrow({
      where: { kind: JOB.place, concurrencyKey: `order:${row.id}` },
      orderBy: { id: "desc" },
    });
    // Waiting (the attempt given back) until the 5 minutes are over, about 4 minutes from now.
    expect([job.state, job.attempts]).toEqual(["available", 0]);
    const waits = job.runAt.getTime() - job.updatedAt.getTime();
    expect(waits).toBeGreaterThan(3.5 * 60_000);
    expect(waits).toBeLessThanOrEqual(4 * 60_000 + 1000);
    const timeline = await prisma.timelineEntry.findMany({ where: { orderId: row.id } });
    expect(timeline.at(-1)).toMatchObject({ step: "create", errorCode: "SvcTokenCooldownError" });
    expect(timeline.at(-1)!.message).toMatch(/^Will try again: /);
    expect(opCalls(h, "getAccessToken")).toBe(tokenCalls);

    // Five minutes on (for the app and the service alike), the job runs again: a token is
    // asked for and the order goes on.
    h.svc.clock.advance(5 * 60_000);
    await prisma.job.update({
      where: { id: job.id },
      data: { runAt: new Date(Date.now() - 1000) },
    });
    await h.settle();
    row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");
    expect(opCalls(h, "getAccessToken")).toBe(tokenCalls + 1);
  });

  it("leaves an order that moved on meanwhile as it is", async () => {
    const o = await prisma.shopOrder.create({
      data: {
        shopDomain: h.shopDomain,
        shopifyOrderId: "660001",
        orderNumber: "pu-paid",
        state: "CREATED",
      },
    });
    expect(await holdUnreachable(h.deps, o.id, new Error("down"))).toEqual({
      outcome: "skipped",
      why: "state CREATED",
    });
    expect(await holdUnreachable(h.deps, "gone", new Error("down"))).toEqual({
      outcome: "skipped",
      why: "state gone",
    });
    expect((await prisma.shopOrder.findUniqueOrThrow({ where: { id: o.id } })).state).toBe(
      "CREATED",
    );
  });
});
