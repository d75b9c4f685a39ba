/**
 * The merchant's actions in whole flows, over HTTP against the service and shop simulators:
 * Retry after the service refused an order places it once it is corrected, and never charges
 * twice; Retry of an order created at the service pays it without creating it again; a held
 * order is not placed by the place job already waiting for it, and Release lets it go on; Cancel
 * before payment keeps the order out of the next payment run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cancelOrder,
  holdOrder,
  releaseOrder,
  retryOrder,
} from "../../app/fulfilment/actions.server";
import { JOB } from "../../app/orders/schedule.server";
import { handlers } from "../../app/worker/registry.server";
import { Worker } from "../../app/worker/worker.server";
import { updateSettings } from "../../app/settings.server";
import { type Harness, opCalls, prisma, startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "actions-flow.myshopify.com", balance: "500.00" });
});
afterAll(async () => h?.close());

const cents = (s: string) => Math.round(Number(s) * 100);
const balance = () => cents(h.svc.getBalance(h.simAccountId));

/** Runs the shop's webhook jobs only (the order is stored, its place job waits). */
async function intakeOnly() {
  const pipeline: string[] = Object.values(JOB);
  const intake = Object.fromEntries(
    Object.entries(handlers).filter(([k]) => !pipeline.includes(k)),
  );
  await new Worker({ prisma, handlers: intake, concurrency: 1, pollMs: 20 }).drain();
}

/** Payment runs wait for their window: bring them forward and run them. */
async function closeWindow() {
  await prisma.job.updateMany({
    where: { kind: JOB.pay, state: "available" },
    data: { runAt: new Date() },
  });
  await h.settle();
}

/** An order created at the service, waiting for the payment run of its hour-long window. */
async function createdAwaitingPayment(title: string, price: string) {
  await updateSettings(prisma, h.shopDomain, { payBatchWindowSeconds: 3600 });
  const p = await h.connectedProduct(title, price);
  const placed = await h.order([{ product: p, quantity: 1 }]);
  await h.settle();
  expect((await h.row(placed.legacyId)).state).toBe("CREATED");
  return placed;
}

describe("Retry", () => {
  it("after the service refused the order: placed once corrected, paid once", async () => {
    await updateSettings(prisma, h.shopDomain, { logisticName: "Teleport" });
    const p = await h.connectedProduct("Retry Kettle", "21.00");
    const placed = await h.order([{ product: p, quantity: 1 }]);
    await h.settle();
    let row = await h.row(placed.legacyId);
    expect(row.state).toBe("FAILED");
    expect(row.svcOrderId).toBeNull();

    await updateSettings(prisma, h.shopDomain, { logisticName: "SvcPacket Ordinary" });
    const before = balance();
    const creates = opCalls(h, "createOrderV3");
    expect(await retryOrder(h.deps, row.id, { shopDomain: h.shopDomain })).toMatchObject({
      ok: true,
      state: "RECEIVED",
    });
    await h.settle();
    row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");
    expect(opCalls(h, "createOrderV3")).toBe(creates + 1);
    expect(
      h.svc.orders({ accountId: h.simAccountId }).filter((o) => o.orderNumber === row.orderNumber),
    ).toHaveLength(1);
    expect(before - balance()).toBe(cents(row.amount!));

    // Retry of the paid order checks its tracking: nothing is created or paid again.
    const pays = opCalls(h, "payBalanceV2");
    expect(await retryOrder(h.deps, row.id)).toEqual({ ok: true, state: "PAID" });
    await h.settle();
    expect((await h.row(placed.legacyId)).state).toBe("PAID");
    expect(opCalls(h, "createOrderV3")).toBe(creates + 1);
    expect(opCalls(h, "payBalanceV2")).toBe(pays);
    expect(before - balance()).toBe(cents(row.amount!));
  });

  it("of an order created at the service pays it without creating it again", async () => {
    const placed = await createdAwaitingPayment("Retry Teapot", "33.00");
    let row = await h.row(placed.legacyId);
    // Its payment failed (the merchant is asked to retry).
    await prisma.shopOrder.update({
      where: { id: row.id },
      data: { state: "FAILED", reasonCode: "payment_failed" },
    });
    const creates = opCalls(h, "createOrderV3");
    const pays = opCalls(h, "payBalanceV2");
    const before = balance();

    expect(await retryOrder(h.deps, row.id)).toEqual({ ok: true, state: "CREATED" });
    await h.settle();
    row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");
    expect(h.svc.order(row.svcOrderId!)!.paid).toBe(true);
    expect(opCalls(h, "createOrderV3")).toBe(creates);
    expect(opCalls(h, "payBalanceV2")).toBe(pays + 1);

    // The run of its original window finds nothing more to pay.
    await closeWindow();
    expect(opCalls(h, "payBalanceV2")).toBe(pays + 1);
    expect(before - balance()).toBe(cents(row.amount!));
    await updateSettings(prisma, h.shopDomain, { payBatchWindowSeconds: 0 });
  });
});

describe("Hold and Release", () => {
  it("a held order is not placed by the job already waiting for it; released, it goes on", async () => {
    // The review window: the order is stored and its place job waits (one due at once is
    // placed in its delivery's job).
    await updateSettings(prisma, h.shopDomain, { reviewWindowMinutes: 30 });
    const p = await h.connectedProduct("Held Lamp", "15.00");
    const creates = opCalls(h, "createOrderV3");
    const placed = await h.order([{ product: p, quantity: 2 }]);
    await intakeOnly();
    await updateSettings(prisma, h.shopDomain, { reviewWindowMinutes: 0 });
    let row = await h.row(placed.legacyId);
    expect([row.state, row.reasonCode]).toEqual(["HELD", "review_window"]);
    const waiting = await prisma.job.findMany({
      where: { kind: JOB.place, concurrencyKey: `order:${row.id}`, state: "available" },
    });
    expect(waiting).toHaveLength(1);
    expect(await holdOrder(h.deps, row.id, { note: "address to check" })).toEqual({
      ok: true,
      state: "HELD",
    });
    // The place job comes due.
    await prisma.job.updateMany({
      where: { id: waiting[0]!.id },
      data: { runAt: new Date(Date.now() - 1000) },
    });
    await h.settle();
    row = await h.row(placed.legacyId);
    expect(row.state).toBe("HELD");
    expect(row.reasonCode).toBe("merchant_hold");
    expect(opCalls(h, "createOrderV3")).toBe(creates);

    const before = balance();
    expect(await releaseOrder(h.deps, row.id)).toEqual({ ok: true, state: "RECEIVED" });
    await h.settle();
    row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");
    expect(opCalls(h, "createOrderV3")).toBe(creates + 1);
    expect(before - balance()).toBe(cents(row.amount!));
    expect(row.timeline.map((t) => t.step)).toEqual(
      expect.arrayContaining(["hold", "release", "create"]),
    );
  });
});

describe("Cancel", () => {
  it("before payment: the next payment run leaves it unpaid", async () => {
    const placed = await createdAwaitingPayment("Cancelled Rug", "44.00");
    let row = await h.row(placed.legacyId);
    const before = balance();
    const pays = opCalls(h, "payBalanceV2");

    expect(await cancelOrder(h.deps, { orderId: row.id })).toEqual({
      ok: true,
      state: "CANCELLED",
    });
    await closeWindow();
    row = await h.row(placed.legacyId);
    expect(row.state).toBe("CANCELLED");
    expect(h.svc.order(row.svcOrderId!)!.paid).toBe(false);
    expect(opCalls(h, "payBalanceV2")).toBe(pays);
    expect(balance()).toBe(before);
    await updateSettings(prisma, h.shopDomain, { payBatchWindowSeconds: 0 });
  });
});
