/**
 * After payment (issue 14), end to end over HTTP: the service cancelling or closing a paid order,
 * and the carrier reporting a parcel abnormal or returned, surface as problems on the order (a
 * flag, the reason, the problems list), once; finished orders are no longer polled; the merchant
 * marks them handled.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listOrders } from "../../app/workqueue/orders.server";
import {
  dismissProblem,
  flagAfterPayment,
  parcelFlag,
  recordFlag,
} from "../../app/fulfilment/after-payment.server";
import { reconcileAccount } from "../../app/fulfilment/reconcile/index.server";
import { hasNews, onSvcEvent, trackOrder } from "../../app/fulfilment/track/index.server";
import { type Harness, opCalls, prisma, startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "after-payment.myshopify.com", balance: "500.00" });
});
afterAll(async () => h?.close());

async function paidOrder(title: string) {
  const p = await h.connectedProduct(title, "10.00");
  const placed = await h.order([{ product: p, quantity: 1 }]);
  await h.settle();
  const row = await h.row(placed.legacyId);
  expect(row.state).toBe("PAID");
  return { placed, row };
}

const problems = async () =>
  (await listOrders(prisma, h.shopDomain, new URLSearchParams("problems=1"))).orders.map(
    (o) => o.id,
  );

describe("problems after payment", () => {
  it("the service cancels a paid order: flagged svc_cancelled with its reason, listed, no longer polled", async () => {
    const { placed, row } = await paidOrder("Cancelled Clock");
    const balance = h.svc.getBalance(h.simAccountId);
    h.svc.endOrder(row.svcOrderId!, "CANCELLED");
    await h.settle();
    const after = await h.row(placed.legacyId);
    expect(after.state).toBe("PAID");
    expect(after.flag).toBe("svc_cancelled");
    expect(after.reasonMessage).toMatch(/^The service cancelled this order after it was paid/);
    const entries = after.timeline.filter((t) => t.step === "after-payment");
    expect(entries.map((t) => [t.outcome, t.errorCode])).toEqual([["error", "svc_cancelled"]]);
    expect(await problems()).toContain(after.id);
    // Refunded to the balance at the service (the simulator's cancel), nothing charged again.
    expect(Number(h.svc.getBalance(h.simAccountId))).toBeGreaterThan(Number(balance));

    // The same news again changes nothing; the reconciler no longer asks about it.
    h.svc.endOrder(row.svcOrderId!, "CANCELLED");
    await h.settle();
    expect(
      (await h.row(placed.legacyId)).timeline.filter((t) => t.step === "after-payment"),
    ).toHaveLength(1);
    const queries = h.svc.calls({ op: "getOrderDetailBatch", accountId: h.simAccountId });
    await reconcileAccount(h.deps, h.accountId);
    const asked = h.svc
      .calls({ op: "getOrderDetailBatch", accountId: h.simAccountId })
      .slice(queries.length)
      .flatMap((c) => (c.body as { orderIds: string[] }).orderIds);
    expect(asked).not.toContain(row.svcOrderId);

    // Marked handled: out of the problems, out of the pipeline.
    expect(await dismissProblem(h.deps, after.id, { shopDomain: h.shopDomain })).toEqual({
      ok: true,
    });
    const handled = await h.row(placed.legacyId);
    expect([handled.state, handled.flag]).toEqual(["CANCELLED", null]);
    expect(await problems()).not.toContain(after.id);
    expect(await dismissProblem(h.deps, after.id, { shopDomain: "other.myshopify.com" })).toEqual({
      ok: false,
      error: "Order not found.",
    });
  });

  it("a closed order is flagged svc_closed", async () => {
    const { placed, row } = await paidOrder("Closed Clock");
    h.svc.endOrder(row.svcOrderId!, "CLOSED");
    await h.settle();
    const after = await h.row(placed.legacyId);
    expect(after.flag).toBe("svc_closed");
    expect(after.reasonMessage).toMatch(/^The service closed this order after it was paid/);
  });

  it("a parcel reported abnormal, then returned: each a problem once; returned stays", async () => {
    const { placed, row } = await paidOrder("Returned Radio");
    h.svc.ship(row.svcOrderId!, { trackNumber: "RT-1", logisticName: "SvcPacket Ordinary" });
    await h.settle();
    expect((await h.row(placed.legacyId)).state).toBe("FULFILLED");

    h.svc.parcelTrouble(row.svcOrderId!, 13);
    await h.settle();
    let after = await h.row(placed.legacyId);
    expect(after.flag).toBe("parcel_abnormal");
    expect(after.reasonMessage).toMatch(/parcel abnormal/);

    h.svc.parcelTrouble(row.svcOrderId!, 14);
    await h.settle();
    after = await h.row(placed.legacyId);
    expect(after.flag).toBe("parcel_returned");
    expect(after.reasonMessage).toMatch(/returned to the sender/);
    expect(await problems()).toContain(after.id);

    // A late "abnormal" does not undo "returned".
    h.svc.parcelTrouble(row.svcOrderId!, 13);
    await h.settle();
    after = await h.row(placed.legacyId);
    expect(after.flag).toBe("parcel_returned");
    expect(
      after.timeline.filter((t) => t.step === "after-payment").map((t) => t.errorCode),
    ).toEqual(["parcel_abnormal", "parcel_returned"]);
  });

  it("an abnormal parcel marked handled goes on being tracked", async () => {
    const { placed, row } = await paidOrder("Abnormal Amp");
    h.svc.ship(row.svcOrderId!, { trackNumber: "AB-1", logisticName: "SvcPacket Ordinary" });
    await h.settle();
    h.svc.parcelTrouble(row.svcOrderId!, 13);
    await h.settle();
    const flagged = await h.row(placed.legacyId);
    expect(flagged.flag).toBe("parcel_abnormal");
    expect(await dismissProblem(h.deps, flagged.id, { shopDomain: h.shopDomain })).toEqual({
      ok: true,
    });
    const after = await h.row(placed.legacyId);
    expect([after.state, after.flag, after.reasonMessage]).toEqual(["FULFILLED", null, null]);
    h.svc.deliver(row.svcOrderId!);
    await h.settle();
    expect((await h.row(placed.legacyId)).state).toBe("DELIVERED");
  });
});

describe("pure parts", () => {
  it("which statuses and tracking statuses are problems", () => {
    expect(recordFlag({ orderStatus: "CANCELLED" })).toBe("svc_cancelled");
    expect(recordFlag({ orderStatus: "closed" })).toBe("svc_closed");
    expect(recordFlag({ orderStatus: "SHIPPED" })).toBeNull();
    expect(recordFlag({ orderStatus: null })).toBeNull();
    expect(parcelFlag({ trackingStatus: 13 })).toBe("parcel_abnormal");
    expect(parcelFlag({ trackingStatus: "14" })).toBe("parcel_returned");
    expect(parcelFlag({ trackingStatus: 12 })).toBeNull();
    expect(parcelFlag(null)).toBeNull();
  });

  it("a record that ended is news once; an unpaid order is never flagged", async () => {
    const o = { svcOrderId: "SO1", shipments: [] };
    const ended = { orderId: "SO1", orderStatus: "CANCELLED", productList: [] } as never;
    expect(hasNews({ ...o, flag: null }, ended)).toBe(true);
    expect(hasNews({ ...o, flag: "svc_cancelled" }, ended)).toBe(false);
    expect(hasNews({ ...o, flag: null }, { ...(ended as object), orderId: "SO2" } as never)).toBe(
      true,
    );
    const unpaid = await prisma.shopOrder.create({
      data: {
        shopDomain: h.shopDomain,
        shopifyOrderId: "990001",
        orderNumber: "ap-unpaid",
        state: "CREATED",
      },
    });
    expect(await flagAfterPayment(prisma, unpaid, "svc_cancelled")).toBe(false);
    expect(
      (await prisma.shopOrder.findUniqueOrThrow({ where: { id: unpaid.id } })).flag,
    ).toBeNull();
    expect(opCalls(h, "payBalanceV2")).toBeGreaterThan(0);
  });
});

describe("which orders a parcel event flags", () => {
  let n = 0;
  const paid = (data: Record<string, unknown> = {}) =>
    prisma.shopOrder.create({
      data: {
        shopDomain: h.shopDomain,
        shopifyOrderId: String(990100 + ++n),
        orderNumber: `ap-n-${n}`,
        svcOrderId: `SO-AP-${n}`,
        state: "PAID",
        ...data,
      },
    });
  const event = (type: string, params: Record<string, unknown>) =>
    onSvcEvent(h.deps, { shopDomain: h.shopDomain, type, params, eventKey: `k${++n}` });
  const flag = async (id: string) =>
    (await prisma.shopOrder.findUniqueOrThrow({ where: { id } })).flag;

  it("by service order id, by order number, or by a parcel's own id; only this shop's; only LOGISTIC", async () => {
    const byId = await paid();
    const byNumber = await paid();
    const byParcel = await paid();
    await prisma.shipment.create({ data: { orderId: byParcel.id, svcOrderId: "SO-AP-CHILD" } });
    const elsewhere = await paid({
      shopDomain: "other-ap.myshopify.com",
      svcOrderId: "SO-AP-OTHER",
    });
    const untouched = await paid({ flag: "fulfilment_conflict" });
    const otherParcel = await paid();
    await prisma.shipment.create({ data: { orderId: otherParcel.id, svcOrderId: "SO-AP-ELSE" } });

    await event("ORDER", { orderId: byId.svcOrderId, trackingStatus: 14 });
    expect(await flag(byId.id)).toBeNull();

    await event("LOGISTIC", { orderId: byId.svcOrderId, trackingStatus: 14 });
    await event("LOGISTIC", { orderNumber: byNumber.orderNumber, trackingStatus: 13 });
    await event("LOGISTIC", { orderId: "SO-AP-CHILD", trackingStatus: 14 });
    await event("LOGISTIC", { orderId: "SO-AP-OTHER", trackingStatus: 14 });
    await event("LOGISTIC", { orderId: untouched.svcOrderId, trackingStatus: 12 });
    expect([await flag(byId.id), await flag(byNumber.id), await flag(byParcel.id)]).toEqual([
      "parcel_returned",
      "parcel_abnormal",
      "parcel_returned",
    ]);
    expect(await flag(elsewhere.id)).toBeNull();
    // A delivered parcel (12) is no problem, and leaves another problem as it is.
    expect(await flag(untouched.id)).toBe("fulfilment_conflict");
    expect(await flag(otherParcel.id)).toBeNull();
  });

  it("a record is news when the order's own service order ended and is not yet flagged so", () => {
    const written = {
      svcOrderId: "SO1",
      trackNumber: "T1",
      writtenTrackNumber: "T1",
      shopifyFulfillmentId: "F1",
      deliveredAt: null,
    };
    const o = {
      svcOrderId: "SO1",
      flag: null,
      shipments: [written, { ...written, svcOrderId: "SO2" }],
    };
    const rec = (orderId: string, orderStatus: string) =>
      ({ orderId, trackNumber: "T1", orderStatus, productList: [] }) as never;
    expect(hasNews(o, rec("SO1", "SHIPPED"))).toBe(false);
    expect(hasNews(o, rec("SO1", "CANCELLED"))).toBe(true);
    expect(hasNews(o, rec("SO1", "CLOSED"))).toBe(true);
    expect(hasNews({ ...o, flag: "svc_cancelled" }, rec("SO1", "CANCELLED"))).toBe(false);
    expect(hasNews({ ...o, flag: "svc_cancelled" }, rec("SO1", "CLOSED"))).toBe(true);
    // A split parcel's record ending is not the order's end.
    expect(hasNews(o, rec("SO2", "CANCELLED"))).toBe(false);
  });

  it("only the order's own service order ending flags it, with the status on the timeline", async () => {
    const o = await paid({ svcAccountId: h.accountId });
    await prisma.shipment.create({ data: { orderId: o.id, svcOrderId: "SO-AP-SPLIT" } });
    const rec = (orderId: string, orderStatus: string) => ({
      orderId,
      orderStatus,
      productList: [],
    });
    await trackOrder(h.deps, o.id, {
      records: [rec("SO-AP-SPLIT", "CANCELLED"), rec(o.svcOrderId!, "UNSHIPPED")],
    });
    expect(await flag(o.id)).toBeNull();
    await trackOrder(h.deps, o.id, {
      records: [rec("SO-AP-SPLIT", "UNSHIPPED"), rec(o.svcOrderId!, "CLOSED")],
    });
    expect(await flag(o.id)).toBe("svc_closed");
    const entry = await prisma.timelineEntry.findFirstOrThrow({
      where: { orderId: o.id, step: "after-payment" },
    });
    expect(entry.message).toMatch(/\(service status CLOSED\)$/);
  });
});
