/**
 * A dispute reply's form key, once sent, never sends again (app/disputes/reply-cancel.server.ts):
 * not after the read-back replaced the app's stand-in message with the service's own, nor after
 * an answer and a read-back that both timed out and a later sync that listed the message. A
 * refusal frees the key, so the corrected form can go.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDispute } from "../../app/disputes/open.server";
import { refreshOne, replyToDispute } from "../../app/disputes/reply-cancel.server";
import { type SvcError, SvcDisputeStateError } from "../../app/svc/errors";
import { type DisputeFixture, disputeFixture, prisma } from "./fixture";

const SHOP = "disputes-resubmit.myshopify.com";
let f: DisputeFixture;
let keySeq = 0;
const key = () => `resubmit-key-${++keySeq}-${Date.now()}`;
const replies = () => f.svc.calls({ op: "disputeReply", accountId: f.simAccountId });

beforeAll(async () => {
  f = await disputeFixture(SHOP, { clientTimeoutMs: 2_000 });
});
afterAll(async () => {
  await f?.close();
});

describe("a reply's form key sends once", () => {
  let opened: { id: string; svcDisputeId: string } | undefined;
  const theDispute = async () => {
    if (opened) return opened;
    const o = await f.paidOrder();
    const { disputeId } = await openDispute(prisma, f.client, f.account, "http://127.0.0.1", {
      orderId: o.id,
      quantities: { [o.lineIds[0]]: 1 },
      reasonId: "2",
      expectType: "1",
      refundType: "1",
      text: "The mug arrived broken.",
      clientKey: key(),
      files: [],
      addresses: [],
    });
    const row = await prisma.dispute.findUniqueOrThrow({ where: { id: disputeId } });
    opened = { id: row.id, svcDisputeId: row.svcDisputeId };
    return opened;
  };
  const reply = async (form: { text: string; clientKey: string }) =>
    replyToDispute(prisma, f.client, f.account, "http://127.0.0.1", {
      id: (await theDispute()).id,
      files: [],
      addresses: [],
      ...form,
    });
  const sent = (text: string) =>
    f.svc.state.disputes.get(opened!.svcDisputeId)!.messages.filter((m) => m.message === text);
  const shown = async () =>
    (
      await prisma.disputeMessage.findMany({
        where: { disputeId: opened!.id },
        orderBy: [{ at: "asc" }, { id: "asc" }],
      })
    ).map((m) => m.text);

  it("a reply that went and was read back, sent again with its key, goes no more", async () => {
    await theDispute();
    const form = { text: "Here are the photos.", clientKey: key() };
    expect(await reply(form)).toEqual({ sent: true, already: false });
    // The read-back replaced the stand-in with the service's message.
    const listed = await prisma.disputeMessage.findMany({
      where: { disputeId: opened!.id, messageId: { startsWith: "pending:" } },
    });
    expect(listed).toHaveLength(0);
    // What stays is the form key's lock row (`key:`), which the page does not show.
    const locks = await prisma.disputeMessage.findMany({
      where: { disputeId: opened!.id, messageId: { startsWith: "key:" } },
    });
    expect(locks.map((m) => [m.messageId.length, m.text, m.fromSupport])).toEqual([
      [36, "", false],
    ]);
    const before = replies().length;
    expect(await reply(form)).toEqual({ sent: false, already: true });
    expect(await reply(form)).toEqual({ sent: false, already: true });
    expect(replies()).toHaveLength(before);
    expect(sent(form.text)).toHaveLength(1);
    // The merchant sees the message once.
    expect((await shown()).filter((t) => t === form.text)).toHaveLength(1);
  });

  it("answer and read-back both timed out, a later sync listed it: the same key sends nothing", async () => {
    const d = await theDispute();
    const form = { text: "Is anyone there at all?", clientKey: key() };
    f.svc.setFaults({
      ops: ["disputeReply", "getDisputeMessages"],
      rateTimeout: 1,
      timeoutMs: 2_500,
      timeoutDrop: true,
    });
    let error: unknown;
    try {
      error = await reply(form).then(
        () => null,
        (e: unknown) => e,
      );
    } finally {
      f.svc.clearFaults();
    }
    expect(error as SvcError).toMatchObject({ outcomeUnknown: true });
    expect(await reply(form)).toEqual({ sent: false, already: true });
    // The sync reads the dispute again and finds the service's message.
    await prisma.dispute.update({ where: { id: d.id }, data: { messagesReadAt: null } });
    await refreshOne(prisma, f.client, f.account, d.svcDisputeId);
    const before = replies().length;
    expect(await reply(form)).toEqual({ sent: false, already: true });
    expect(replies()).toHaveLength(before);
    expect(sent(form.text)).toHaveLength(1);
    expect((await shown()).filter((t) => t === form.text)).toHaveLength(1);
  });

  it("a refused reply frees its key: the corrected form goes once", async () => {
    const d = await theDispute();
    const form = { text: "Refused the first time.", clientKey: key() };
    // The service holds the dispute in a state that takes no messages.
    const sim = f.svc.state.disputes.get(d.svcDisputeId)!;
    const status = sim.statusCode;
    sim.statusCode = 999;
    let error: unknown;
    try {
      error = await reply(form).then(
        () => null,
        (e: unknown) => e,
      );
    } finally {
      sim.statusCode = status;
    }
    expect(error).toBeInstanceOf(SvcDisputeStateError);
    expect(await prisma.disputeMessage.count({ where: { disputeId: d.id, text: form.text } })).toBe(
      0,
    );
    expect(await reply(form)).toEqual({ sent: true, already: false });
    expect(await reply(form)).toEqual({ sent: false, already: true });
    expect(sent(form.text)).toHaveLength(1);
  });
});
