/**
 * One shop's signed order delivery replayed under another shop's header, over real HTTP
 * (issue 37). Shopify signs the body with the app's secret, which all shops share, and names the
 * shop only in a header: the app asks the named shop for the order before it stores anything
 * of it, and keeps nothing of a delivery the shop does not have (no order, no timeline, no
 * customer in the stored delivery). The shop's own orders still go through.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, prisma, startHarness } from "../fulfilment/harness";

const SHOP_A = "replay-a.myshopify.com";
const SHOP_B = "replay-b.myshopify.com";

let a: Harness;
let b: Harness;

beforeAll(async () => {
  a = await startHarness({ shopDomain: SHOP_A, balance: "500.00" });
  b = await startHarness({ shopDomain: SHOP_B, balance: "500.00", svc: a.svc });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

describe("an order delivery replayed under another shop", () => {
  it("stores nothing of it in that shop; the owner's delivery and the shop's own orders go on", async () => {
    const product = await a.connectedProduct("Replayed lamp");
    const placed = await a.order([{ product, quantity: 1 }]);
    const payload = a.shop.orderWebhookPayload(SHOP_A, placed.shopOrderId);
    const email = String((payload as { email?: unknown }).email);
    expect(email).toContain("@");

    // The same signed body, under B's header (a new event id: not a redelivery).
    const replay = await a.shop.sendWebhook(SHOP_B, "orders/paid", payload, {
      eventId: "replayed-under-b",
    });
    expect(replay.status).toBe(200);
    await a.settle();
    await b.settle();

    expect(await prisma.shopOrder.count({ where: { shopDomain: SHOP_B } })).toBe(0);
    expect(await prisma.timelineEntry.count({ where: { order: { shopDomain: SHOP_B } } })).toBe(0);
    const stored = await prisma.webhookEvent.findMany({ where: { shopDomain: SHOP_B } });
    expect(stored).toHaveLength(1);
    expect(stored[0]!.ignoredReason).toBe("the shop does not have this order");
    expect(stored[0]!.payload).toEqual({ id: (payload as { id: unknown }).id });
    expect(JSON.stringify(stored.map((e) => [e.payload, e.ignoredReason]))).not.toContain(email);

    // A's own delivery went through: stored, placed, with its customer.
    const own = await a.row(placed.legacyId);
    expect(own.customerEmail).toBe(email);
    expect(own.svcOrderId).not.toBeNull();

    // B's own order is stored and placed as ever.
    const bProduct = await b.connectedProduct("B's own mug");
    const bPlaced = await b.order([{ product: bProduct, quantity: 2 }]);
    await b.settle();
    const bRow = await b.row(bPlaced.legacyId);
    expect(bRow.svcOrderId).not.toBeNull();
  });
});
