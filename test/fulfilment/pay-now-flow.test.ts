/**
 * Automatic payment off (issue 14), end to end over HTTP: orders wait at CREATED; Pay now pays
 * exactly the orders asked for (one, or a selection from the orders list), never the others,
 * even when the reconciler runs; an order paid in the service's console is seen by the
 * reconciler and tracked to the shop.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payNowAction } from "../../app/workqueue/order-actions.server";
import { requestPayment } from "../../app/fulfilment/pay-now.server";
import { CREATED_WATCH_AFTER_MS } from "../../app/fulfilment/reconcile/index.server";
import { JOB } from "../../app/orders/schedule.server";
import { enqueue } from "../../app/jobs/enqueue.server";
import { type Harness, prisma, startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    shopDomain: "pay-now.myshopify.com",
    balance: "500.00",
    settings: { autoPay: false },
  });
});
afterAll(async () => h?.close());

async function created(title: string) {
  const p = await h.connectedProduct(title, "10.00");
  const placed = await h.order([{ product: p, quantity: 1 }]);
  await h.settle();
  const row = await h.row(placed.legacyId);
  expect(row.state).toBe("CREATED");
  return { placed, row };
}

let slot = 0;
async function reconcile() {
  h.svc.clock.advance(CREATED_WATCH_AFTER_MS + 1000);
  await prisma.shopOrder.updateMany({
    where: { shopDomain: h.shopDomain, state: "CREATED" },
    data: { updatedAt: new Date(Date.now() - CREATED_WATCH_AFTER_MS - 1000) },
  });
  await enqueue(prisma, {
    kind: JOB.reconcileAccount,
    payload: { accountId: h.accountId },
    idempotencyKey: `pay-now-reconcile:${++slot}`,
  });
  await h.settle();
}

describe("Pay now", () => {
  it("orders wait at CREATED; Pay now pays exactly the selection; the reconciler pays nothing else", async () => {
    const a = await created("Pay A");
    const b = await created("Pay B");
    const c = await created("Pay C");
    await reconcile();
    for (const o of [a, b, c]) expect((await h.row(o.placed.legacyId)).state).toBe("CREATED");
    const balance = h.svc.getBalance(h.simAccountId);

    const form = new FormData();
    form.set("intent", "pay-now");
    form.append("orderId", a.row.id);
    form.append("orderId", b.row.id);
    const r = await payNowAction(prisma, h.shopDomain, form);
    expect(r).toEqual({ ok: true, intent: "pay-now", message: "2 orders are being paid now." });
    await h.settle();
    const [pa, pb, pc] = await Promise.all([a, b, c].map((o) => h.row(o.placed.legacyId)));
    expect([pa!.state, pb!.state, pc!.state]).toEqual(["PAID", "PAID", "CREATED"]);
    expect(pa!.paymentBatchId).toBe(pb!.paymentBatchId);
    expect(h.svc.order(pc!.svcOrderId!)!.paid).toBe(false);
    const spent = Number(balance) - Number(h.svc.getBalance(h.simAccountId));
    expect(spent.toFixed(2)).toBe((Number(pa!.amount) + Number(pb!.amount)).toFixed(2));
    expect(pa!.timeline.some((t) => t.message?.startsWith("Pay now by the merchant"))).toBe(true);

    await reconcile();
    expect((await h.row(c.placed.legacyId)).state).toBe("CREATED");
  });

  it("refuses what cannot be paid, with the reason, and changes nothing", async () => {
    const a = await created("Pay D");
    const held = await prisma.shopOrder.create({
      data: {
        shopDomain: h.shopDomain,
        shopifyOrderId: "880001",
        orderNumber: "pn-held",
        state: "HELD",
        reasonCode: "paused",
      },
    });
    const r = await requestPayment(h.deps, [held.id, "nope"], { shopDomain: h.shopDomain });
    expect(r).toEqual({
      requested: 0,
      refused: [
        { orderId: "nope", why: "not found" },
        { orderId: held.id, why: "is HELD" },
      ],
    });
    expect(
      (await prisma.shopOrder.findUniqueOrThrow({ where: { id: held.id } })).payRequestedAt,
    ).toBeNull();
    // Another shop's order is not found from this shop.
    const other = await requestPayment(h.deps, [a.row.id], { shopDomain: "else.myshopify.com" });
    expect(other.requested).toBe(0);
    const empty = new FormData();
    empty.set("intent", "pay-now");
    expect(await payNowAction(prisma, h.shopDomain, empty)).toEqual({
      ok: false,
      intent: "pay-now",
      errors: { form: "Select the orders to pay." },
    });
    expect((await h.row(a.placed.legacyId)).payRequestedAt).toBeNull();
  });

  it("an order paid in the service's console is seen by the reconciler and tracked to the shop", async () => {
    const { placed, row } = await created("Console Lamp");
    // Paid in the service's console: cart, confirmation, parent order and payment there.
    await h.client.orders.addCart([row.svcOrderId!]);
    const confirmed = await h.client.orders.addCartConfirm([row.svcOrderId!]);
    await h.client.orders.saveGenerateParentOrder(confirmed.shipmentsId!);
    await h.client.payment.payBalanceV2(confirmed.shipmentsId!);
    await reconcile();
    let after = await h.row(placed.legacyId);
    expect(after.state).toBe("PAID");
    expect(
      after.timeline.some((t) => t.message?.startsWith("Paid at the service (outside the app")),
    ).toBe(true);
    h.svc.ship(row.svcOrderId!, { trackNumber: "CON-1", logisticName: "SvcPacket Ordinary" });
    await h.settle();
    after = await h.row(placed.legacyId);
    expect(after.state).toBe("FULFILLED");
    expect(h.shop.fulfillments(h.shopDomain, placed.shopOrderId)[0]!.tracking[0]!.number).toBe(
      "CON-1",
    );
  });
});
