/**
 * The happy path over real HTTP: orders/paid webhook → CREATED → PAID (balance deducted once)
 * → shipped at the service → LOGISTIC webhook → fulfilment with tracking in the shop.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, opCalls, prisma, startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "happy-path.myshopify.com", balance: "500.00" });
});
afterAll(async () => h?.close());

describe("the fulfilment loop", () => {
  it("places, pays once, and writes the service's tracking back to the shop", async () => {
    const tee = await h.connectedProduct("Cotton Tee", "19.00");
    const mug = await h.connectedProduct("Mug", "9.00");
    const placed = await h.order([
      { product: tee, quantity: 2 },
      { product: mug, quantity: 1 },
    ]);
    await h.settle();

    const row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");
    expect(row.svcOrderId).toMatch(/^SO/);
    expect(row.shipmentOrderId).toBeTruthy();
    expect(row.payId).toBeTruthy();
    const svcOrder = h.svc.order(row.svcOrderId!)!;
    expect(svcOrder.status).toBe("UNSHIPPED");
    // The store-flow request: shop ids, names, options, prices.
    expect(svcOrder.orderFlow).toBe(2);
    expect(svcOrder.orderNumber).toBe(row.orderNumber);
    expect(svcOrder.orderNumber.length).toBeLessThanOrEqual(50);
    const teeLine = svcOrder.lines.find((l) => l.storeLineItemId === placed.lineIds[0])!;
    expect(teeLine).toMatchObject({
      storeVid: String(tee.variants[0]!.legacyId),
      storeProductId: String(tee.legacyId),
      storeProductName: "Cotton Tee",
      storeSku: tee.variants[0]!.sku,
      variantOptions: "M-Blue",
      quantity: 2,
    });
    expect(teeLine.storeProductImg).toContain("https://cdn.example.com/");
    // Deducted exactly once, by the order's amount.
    const amount = row.amount!;
    expect(h.svc.getBalance(h.simAccountId)).toBe(
      (Math.round((500 - Number(amount)) * 100) / 100).toFixed(2),
    );
    expect(opCalls(h, "payBalanceV2")).toBe(1);
    expect(opCalls(h, "createOrderV3")).toBe(1);

    // The warehouse ships; the LOGISTIC/ORDER webhooks reach the app's route.
    h.svc.ship(row.svcOrderId!, { trackNumber: "TRK-HAPPY-1" });
    await h.settle();
    const fulfilments = h.shop.fulfillments(h.shopDomain, placed.shopOrderId);
    expect(fulfilments).toHaveLength(1);
    expect(fulfilments[0]!.tracking[0]).toMatchObject({
      number: "TRK-HAPPY-1",
      url: "https://track.svc.test/TRK-HAPPY-1",
    });
    expect(fulfilments[0]!.tracking[0]!.company).toBeTruthy();
    expect(fulfilments[0]!.notifications).toBe(1);
    expect(fulfilments[0]!.lineItems.map((l) => l.quantity).sort()).toEqual([1, 2]);
    const after = await h.row(placed.legacyId);
    expect(after.state).toBe("FULFILLED");
    expect(after.shipments[0]!.shopifyFulfillmentId).toBe(fulfilments[0]!.id);

    // A redelivered or repeated event never fulfils twice.
    const again = await h.worker.drain();
    expect(again).toBe(0);
    const { trackOrder } = await import("../../app/fulfilment/track/index.server");
    await trackOrder(h.deps, after.id);
    expect(h.shop.fulfillments(h.shopDomain, placed.shopOrderId)).toHaveLength(1);

    // Delivery: the order is DELIVERED, with a proof of delivery on its timeline.
    h.svc.deliver(row.svcOrderId!);
    await h.settle();
    const delivered = await h.row(placed.legacyId);
    expect(delivered.state).toBe("DELIVERED");
    const steps = delivered.timeline.map((t) => t.step);
    expect(steps).toEqual(
      expect.arrayContaining([
        "received",
        "create",
        "cart",
        "parent",
        "pay",
        "fulfil",
        "delivered",
        "proof_of_delivery",
      ]),
    );
    expect(await prisma.paymentBatch.count({ where: { state: "paid" } })).toBe(1);
  });
});
