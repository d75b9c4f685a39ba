/**
 * Paying in batches: N orders cost N creates + 4 calls a batch (cart, confirm, parent, pay),
 * plus getBalance when the known balance is not trusted any more; a cancel before payment takes
 * the order out of its batch; after payment it is flagged; a short balance holds the orders with
 * the amounts, and a top-up lets them go on by themselves, paid once; a confirmation whose reply
 * is lost asks the merchant to pay in the service's console, and Retry then goes on, paid once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { retryOrder } from "../../app/fulfilment/actions.server";
import { JOB } from "../../app/orders/schedule.server";
import { enqueue } from "../../app/jobs/enqueue.server";
import { updateSettings } from "../../app/settings.server";
import { type Harness, opCalls, prisma, startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    shopDomain: "payments.myshopify.com",
    balance: "1000.00",
    settings: { payBatchWindowSeconds: 3600, payBatchSize: 50 },
  });
});
afterAll(async () => h?.close());

/** The pay run waits for its window: bring it forward. */
async function closeWindow() {
  await prisma.job.updateMany({
    where: { kind: JOB.pay, state: "available" },
    data: { runAt: new Date() },
  });
  await h.settle();
}

const CALLS = [
  "getBalance",
  "addCart",
  "addCartConfirm",
  "saveGenerateParentOrder",
  "payBalanceV2",
];
const callCounts = () => Object.fromEntries(CALLS.map((op) => [op, opCalls(h, op)]));

describe("batched payment and cancellation", () => {
  it("pays one batch for several orders; an order cancelled before payment leaves it", async () => {
    const p = await h.connectedProduct("Batch Tee", "10.00");
    const placed: Awaited<ReturnType<Harness["order"]>>[] = [];
    for (let i = 0; i < 4; i++) placed.push(await h.order([{ product: p, quantity: 1 }]));
    await h.settle();
    for (const o of placed) expect((await h.row(o.legacyId)).state).toBe("CREATED");
    const before = callCounts();
    const balanceBefore = h.svc.getBalance(h.simAccountId);

    // The customer cancels the second order in the shop before the batch runs.
    h.shop.cancelOrder(h.shopDomain, placed[1]!.shopOrderId);
    const res = await h.shop.sendWebhook(
      h.shopDomain,
      "orders/cancelled",
      h.shop.orderWebhookPayload(h.shopDomain, placed[1]!.shopOrderId),
    );
    expect(res.status).toBe(200);
    await h.settle();
    const cancelled = await h.row(placed[1]!.legacyId);
    expect(cancelled.state).toBe("CANCELLED");
    expect(cancelled.paymentBatchId).toBeNull();

    await closeWindow();
    const after = callCounts();
    // One batch: one call of each step for three orders.
    for (const op of CALLS) expect(after[op]! - before[op]!, op).toBe(1);
    const paid = await Promise.all([0, 2, 3].map((i) => h.row(placed[i]!.legacyId)));
    for (const r of paid) expect(r.state).toBe("PAID");
    expect(new Set(paid.map((r) => r.paymentBatchId)).size).toBe(1);
    expect(new Set(paid.map((r) => r.payId)).size).toBe(1);
    // The cancelled order was never paid, and the balance went down by exactly three orders.
    expect(h.svc.order(cancelled.svcOrderId!)!.paid).toBe(false);
    const spent = paid.reduce((a, r) => a + Math.round(Number(r.amount) * 100), 0);
    expect(
      Math.round(Number(balanceBefore) * 100) -
        Math.round(Number(h.svc.getBalance(h.simAccountId)) * 100),
    ).toBe(spent);

    // Cancelled after payment: flagged for the merchant, still paid.
    h.shop.cancelOrder(h.shopDomain, placed[0]!.shopOrderId);
    await h.shop.sendWebhook(
      h.shopDomain,
      "orders/cancelled",
      h.shop.orderWebhookPayload(h.shopDomain, placed[0]!.shopOrderId),
    );
    await h.settle();
    const flagged = await h.row(placed[0]!.legacyId);
    expect(flagged.state).toBe("PAID");
    expect(flagged.flag).toBe("cancelled_after_payment");
  });

  it("asks for the balance once while it trusts the known one, and lowers that by each batch", async () => {
    await updateSettings(prisma, h.shopDomain, { payBatchWindowSeconds: 0 });
    const p = await h.connectedProduct("Second Batch Tee", "10.00");
    const known = await prisma.svcAccount.findUniqueOrThrow({ where: { id: h.accountId } });
    expect(known.knownBalance).toBe(h.svc.getBalance(h.simAccountId));
    const before = callCounts();
    const placed = await h.order([{ product: p, quantity: 2 }]);
    await h.settle();
    const row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");
    const after = callCounts();
    expect(after.getBalance! - before.getBalance!).toBe(0);
    expect(after.payBalanceV2! - before.payBalanceV2!).toBe(1);
    const now = await prisma.svcAccount.findUniqueOrThrow({ where: { id: h.accountId } });
    // Known and real balance agree: the batch's amount came off both.
    expect(now.knownBalance).toBe(h.svc.getBalance(h.simAccountId));
    expect(now.knownBalanceAt).toEqual(known.knownBalanceAt);
  });

  it("holds orders on a short balance with the amounts, and pays them after a top-up", async () => {
    await updateSettings(prisma, h.shopDomain, { payBatchWindowSeconds: 0 });
    h.svc.setBalance(h.simAccountId, "1.00");
    // The known balance is older than it is trusted: the run asks before it carts anything.
    await prisma.svcAccount.update({
      where: { id: h.accountId },
      data: { knownBalanceAt: new Date(Date.now() - 6 * 60_000) },
    });
    const p = await h.connectedProduct("Pricey Lamp", "60.00");
    const carts = opCalls(h, "addCart");
    const placed = await h.order([{ product: p, quantity: 1 }]);
    await h.settle();
    let row = await h.row(placed.legacyId);
    expect(row.state).toBe("HELD");
    expect(row.reasonCode).toBe("short_balance");
    expect(row.reasonMessage).toContain("1.00 USD");
    expect(row.reasonMessage).toContain(`${row.amount} USD`);
    expect(opCalls(h, "addCart")).toBe(carts);
    expect(h.svc.order(row.svcOrderId!)!.paid).toBe(false);
    // A re-check is scheduled on its own.
    expect(
      await prisma.job.count({
        where: { kind: JOB.pay, state: "available", runAt: { gt: new Date() } },
      }),
    ).toBeGreaterThan(0);

    h.svc.setBalance(h.simAccountId, "200.00");
    // The recurring reconciler (or the scheduled re-check) finds the money.
    await enqueue(prisma, { kind: JOB.reconcile, idempotencyKey: "reconcile-after-topup" });
    await h.settle();
    row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");
    expect(row.reasonCode).toBeNull();
    expect(h.svc.getBalance(h.simAccountId)).toBe((200 - Number(row.amount)).toFixed(2));
    expect(opCalls(h, "payBalanceV2")).toBeGreaterThan(0);
    expect(row.timeline.filter((t) => t.step === "pay" && t.outcome === "ok")).toHaveLength(1);
  });

  it("a balance spent outside the app while the known one is trusted: refused, held, paid once after a top-up", async () => {
    await updateSettings(prisma, h.shopDomain, { payBatchWindowSeconds: 0 });
    const p = await h.connectedProduct("Console Spend Mug", "40.00");
    const known = await prisma.svcAccount.findUniqueOrThrow({ where: { id: h.accountId } });
    expect(Number(known.knownBalance)).toBeGreaterThan(40);
    // Another store of the same service account pays from the balance: the app does not know.
    h.svc.setBalance(h.simAccountId, "2.00");
    const pays = opCalls(h, "payBalanceV2");
    const placed = await h.order([{ product: p, quantity: 1 }]);
    await h.settle();
    let row = await h.row(placed.legacyId);
    expect(row.state).toBe("HELD");
    expect(row.reasonCode).toBe("short_balance");
    // The refusal made the app ask: the message shows the real balance.
    expect(row.reasonMessage).toContain("2.00 USD");
    expect(opCalls(h, "payBalanceV2")).toBe(pays + 1);
    const batch = await prisma.paymentBatch.findUniqueOrThrow({
      where: { id: row.paymentBatchId! },
    });
    expect(batch.state).toBe("parented");
    expect(h.svc.getBalance(h.simAccountId)).toBe("2.00");

    h.svc.setBalance(h.simAccountId, "300.00");
    // The scheduled re-check, brought forward.
    await prisma.job.updateMany({
      where: { kind: JOB.pay, state: "available" },
      data: { runAt: new Date() },
    });
    await h.settle();
    row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");
    expect(row.paymentBatchId).toBe(batch.id);
    expect(h.svc.getBalance(h.simAccountId)).toBe((300 - Number(row.amount)).toFixed(2));
    expect(row.timeline.filter((t) => t.step === "pay" && t.outcome === "ok")).toHaveLength(1);
  });

  it("a confirmation whose reply is lost: the merchant pays in the console, Retry goes on, charged once", async () => {
    await updateSettings(prisma, h.shopDomain, { payBatchWindowSeconds: 0 });
    h.svc.setBalance(h.simAccountId, "500.00");
    const p = await h.connectedProduct("Lost Reply Lamp", "25.00");
    // The service confirms, then the connection drops: the shipmentOrderId is gone with the reply.
    h.svc.setFaults({ rateTimeout: 1, ops: ["addCartConfirm"], timeoutMs: 10, timeoutDrop: true });
    const placed = await h.order([{ product: p, quantity: 1 }]);
    await h.settle();
    h.svc.clearFaults();
    await prisma.job.updateMany({
      where: { kind: JOB.pay, state: "available" },
      data: { runAt: new Date() },
    });
    await h.settle();
    let row = await h.row(placed.legacyId);
    expect(row.state).toBe("FAILED");
    expect(row.reasonCode).toBe("confirm_unknown");
    expect(row.reasonMessage).toContain("Pay it in the service's console, then Retry");
    const atService = h.svc.order(row.svcOrderId!)!;
    expect(atService.status).toBe("UNPAID");
    expect(h.svc.getBalance(h.simAccountId)).toBe("500.00");

    // Retry before paying: the cart refuses the confirmed order, and the message says why.
    expect(await retryOrder(h.deps, row.id)).toMatchObject({ ok: true, state: "CREATED" });
    await h.settle();
    row = await h.row(placed.legacyId);
    expect(row.state).toBe("FAILED");
    expect(row.reasonMessage).toContain("UNPAID");

    // The merchant pays the parent in the service's console, then presses Retry.
    h.svc.payInConsole(row.svcOrderId!);
    const amount = Math.round(Number(row.amount) * 100);
    expect(Math.round(Number(h.svc.getBalance(h.simAccountId)) * 100)).toBe(50_000 - amount);
    const pays = opCalls(h, "payBalanceV2");
    expect(await retryOrder(h.deps, row.id)).toMatchObject({ ok: true, state: "CREATED" });
    await h.settle();
    row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");
    expect(row.timeline.at(-1)?.message).toContain("Already paid at the service");
    // Nothing paid by the app, nothing charged twice; the known balance is asked again.
    expect(opCalls(h, "payBalanceV2")).toBe(pays);
    expect(Math.round(Number(h.svc.getBalance(h.simAccountId)) * 100)).toBe(50_000 - amount);
    const account = await prisma.svcAccount.findUniqueOrThrow({ where: { id: h.accountId } });
    expect(account.knownBalanceAt).toBeNull();

    // And the tracking comes back as for any paid order.
    h.svc.ship(row.svcOrderId!, { trackNumber: "CONSOLE-1" });
    await h.settle();
    expect((await h.row(placed.legacyId)).state).toBe("FULFILLED");
    expect(h.shop.fulfillments(h.shopDomain, placed.shopOrderId)[0]!.tracking[0]!.number).toBe(
      "CONSOLE-1",
    );
  });
});
