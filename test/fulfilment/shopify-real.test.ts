/**
 * The pipeline against a shop simulator as strict as Shopify (cost limit, throttle, holds,
 * protected customer data), over real HTTP:
 * - an order of 300 lines over 30 fulfilment orders is placed whole and fulfilled whole, every
 *   call within 1,000 points;
 * - tracking that arrives while the fulfilment order is ON_HOLD is written once the hold is
 *   released (no conflict flag);
 * - a shop that has not granted protected customer data sees the order held, saying so.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { placeOrder } from "../../app/fulfilment/place/index.server";
import { reconcileAccount } from "../../app/fulfilment/reconcile/index.server";
import { parseLineItemGid, parseOrderGid } from "../../app/shop/ids";
import type { SimProduct } from "../sim/shop/server";
import { type Harness, prisma, startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "shopify-real.myshopify.com", balance: "100000.00" });
});
afterAll(async () => h?.close());

const shopCalls = () => h.shop.graphqlCalls().filter((c) => c.shop === h.shopDomain);

describe("an order of 300 lines over 30 fulfilment orders", () => {
  it("is placed with all 300 lines and fulfilled completely, every call under 1,000 points", async () => {
    const locations = ["Shop location"];
    for (let i = 1; i < 30; i++) {
      const name = `Warehouse ${i}`;
      h.shop.addLocation(h.shopDomain, { name });
      locations.push(name);
    }
    const products: SimProduct[] = [];
    for (let i = 0; i < 300; i++) products.push(await h.connectedProduct(`Item ${i}`, "1.00"));
    const placed = await h.order(
      products.map((product, i) => ({
        product,
        quantity: 1,
        ...(i % 30 === 0 ? {} : { location: locations[i % 30] }),
      })),
    );
    expect(h.shop.order(h.shopDomain, placed.shopOrderId).fulfillmentOrders).toHaveLength(30);
    // On a busy machine a call may be refused (THROTTLED, a read past its deadline) and its job
    // wait for a retry: those are made due and run, until the order is paid or 10 rounds pass.
    await h.settle();
    for (let round = 0; round < 10 && (await h.row(placed.legacyId)).state !== "PAID"; round++) {
      await prisma.job.updateMany({
        where: { shopDomain: h.shopDomain, state: "available" },
        data: { runAt: new Date() },
      });
      await h.settle();
    }

    const row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");
    expect(row.lines).toHaveLength(300);
    const atService = h.svc.order(row.svcOrderId!)!;
    expect(atService.lines).toHaveLength(300);
    expect(new Set(atService.lines.map((l) => l.storeLineItemId))).toEqual(new Set(placed.lineIds));

    h.svc.ship(row.svcOrderId!, { trackNumber: "TRK-300" });
    await h.settle();
    const after = await h.row(placed.legacyId);
    expect(after.flag).toBeNull();
    expect(after.state).toBe("FULFILLED");
    const inShop = h.shop.order(h.shopDomain, placed.shopOrderId);
    expect(inShop.displayFulfillmentStatus).toBe("FULFILLED");
    expect(inShop.fulfillmentOrders.every((fo) => fo.status === "CLOSED")).toBe(true);
    const fulfilled = h.shop
      .fulfillments(h.shopDomain, placed.shopOrderId)
      .flatMap((f) => f.lineItems.map((l) => l.lineItemId));
    expect(fulfilled).toHaveLength(300);
    expect(
      h.shop
        .fulfillments(h.shopDomain, placed.shopOrderId)
        .every((f) => f.tracking[0]?.number === "TRK-300"),
    ).toBe(true);

    const calls = shopCalls();
    expect(calls.length).toBeGreaterThan(0);
    for (const c of calls) {
      expect(c.status).toBe(200);
      expect(c.requestedQueryCost ?? 0).toBeLessThanOrEqual(1000);
    }
    const maxCost = Math.max(...calls.map((c) => c.requestedQueryCost ?? 0));
    const byOp = new Map<string, number>();
    for (const c of calls)
      byOp.set(c.operationName ?? "?", (byOp.get(c.operationName ?? "?") ?? 0) + 1);
    console.log(
      `300 lines / 30 fulfilment orders: ${calls.length} Admin calls (${[...byOp].map(([k, v]) => `${k} ${v}`).join(", ")}), most expensive ${maxCost} points, ${calls.filter((c) => c.actualQueryCost == null).length} not run (throttled)`,
    );
  }, 240_000);
});

describe("a fulfilment order on hold when the tracking arrives", () => {
  it("waits without a conflict, and the tracking is written once the hold is released", async () => {
    const tee = await h.connectedProduct("Held Tee", "12.00");
    const placed = await h.order([{ product: tee, quantity: 2 }]);
    await h.settle();
    const row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");

    const fo = h.shop.order(h.shopDomain, placed.shopOrderId).fulfillmentOrders[0]!;
    h.shop.holdFulfillmentOrder(h.shopDomain, fo.id, "AWAITING_PAYMENT");
    h.svc.ship(row.svcOrderId!, { trackNumber: "TRK-HOLD" });
    await h.settle();

    const waiting = await h.row(placed.legacyId);
    expect(waiting.flag).toBeNull();
    expect(waiting.state).toBe("SHIPPED");
    expect(waiting.shipments[0]).toMatchObject({
      trackNumber: "TRK-HOLD",
      shopifyFulfillmentId: null,
    });
    expect(waiting.reasonMessage).toContain("on hold");
    expect(waiting.timeline.some((t) => t.errorCode === "FULFILLMENT_NOT_READY")).toBe(true);
    expect(h.shop.fulfillments(h.shopDomain, placed.shopOrderId)).toEqual([]);
    // A track job of the order waits to try again later.
    const retry = await prisma.job.findFirst({
      where: { kind: "fulfilment.track", concurrencyKey: `order:${row.id}`, state: "available" },
    });
    expect(retry?.runAt.getTime()).toBeGreaterThan(Date.now() + 60_000);

    // The hold is released; the reconciler's next pass picks the order up again.
    h.shop.releaseFulfillmentOrderHold(h.shopDomain, fo.id);
    await reconcileAccount(h.deps, h.accountId);
    await h.settle();

    const done = await h.row(placed.legacyId);
    expect(done.flag).toBeNull();
    expect(done.state).toBe("FULFILLED");
    expect(done.reasonMessage).toBeNull();
    const fulfilments = h.shop.fulfillments(h.shopDomain, placed.shopOrderId);
    expect(fulfilments).toHaveLength(1);
    expect(fulfilments[0]!.tracking[0]!.number).toBe("TRK-HOLD");
    expect(done.shipments[0]!.shopifyFulfillmentId).toBe(fulfilments[0]!.id);
  }, 120_000);
});

describe("a scheduled fulfilment order (fulfillAt in three days)", () => {
  it("keeps the tracking until it opens, trying again no later than a day on", async () => {
    const cap = await h.connectedProduct("Preorder Cap", "9.00");
    const fulfillAt = new Date(Date.now() + 3 * 24 * 3600_000).toISOString();
    const placed = await h.order([{ product: cap, quantity: 1 }], { fulfillAt });
    await h.settle();
    const row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");
    h.svc.ship(row.svcOrderId!, { trackNumber: "TRK-SCHED" });
    await h.settle();

    const waiting = await h.row(placed.legacyId);
    expect(waiting.flag).toBeNull();
    expect(waiting.reasonMessage).toContain(`scheduled to open at ${fulfillAt}`);
    const retry = await prisma.job.findFirst({
      where: { kind: "fulfilment.track", concurrencyKey: `order:${row.id}`, state: "available" },
    });
    expect(retry!.runAt.getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
    expect(retry!.runAt.getTime()).toBeLessThanOrEqual(Date.now() + 24 * 3600_000);

    const fo = h.shop.order(h.shopDomain, placed.shopOrderId).fulfillmentOrders[0]!;
    h.shop.openScheduledFulfillmentOrder(h.shopDomain, fo.id);
    await reconcileAccount(h.deps, h.accountId);
    await h.settle();
    const done = await h.row(placed.legacyId);
    expect(done.state).toBe("FULFILLED");
    expect(h.shop.fulfillments(h.shopDomain, placed.shopOrderId)[0]!.tracking[0]!.number).toBe(
      "TRK-SCHED",
    );
  }, 120_000);
});

describe("a fulfilment written in part before a crash", () => {
  it("is completed with the lines it lacks, not flagged as a conflict", async () => {
    h.shop.addLocation(h.shopDomain, { name: "Second Warehouse" });
    const a = await h.connectedProduct("Part A", "3.00");
    const b = await h.connectedProduct("Part B", "3.00");
    const placed = await h.order([
      { product: a, quantity: 2 },
      { product: b, quantity: 1, location: "Second Warehouse" },
    ]);
    await h.settle();
    const row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");
    // The first location's fulfillmentCreate went through, then the process died.
    const gw = await h.deps.shopFor(h.shopDomain);
    const [first] = await gw.createFulfillment({
      orderGid: parseOrderGid(placed.shopOrderId),
      lineItems: [{ lineItemGid: parseLineItemGid(placed.lineIds[0]!), quantity: 2 }],
      tracking: { number: "TRK-PART" },
      notifyCustomer: false,
    });

    h.svc.ship(row.svcOrderId!, { trackNumber: "TRK-PART" });
    await h.settle();
    const after = await h.row(placed.legacyId);
    expect(after.flag).toBeNull();
    expect(after.state).toBe("FULFILLED");
    const inShop = h.shop.fulfillments(h.shopDomain, placed.shopOrderId);
    expect(inShop).toHaveLength(2);
    expect(
      inShop
        .flatMap((f) => f.lineItems)
        .map((l) => l.quantity)
        .sort(),
    ).toEqual([1, 2]);
    expect(after.shipments[0]!.shopifyFulfillmentId!.split(",")).toEqual([
      first!.id,
      inShop.find((f) => f.id !== first!.id)!.id,
    ]);
    expect(after.timeline.some((t) => t.message?.includes("completed in the shop"))).toBe(true);
  }, 120_000);
});

describe("a line at a fulfilment service's location", () => {
  it("is not sent to the service (not the app's to fulfil), and the timeline says so", async () => {
    h.shop.addLocation(h.shopDomain, { name: "Other Service", fulfillmentService: true });
    const mine = await h.connectedProduct("Own Cap", "6.00");
    const theirs = await h.connectedProduct("Their Cap", "6.00");
    const placed = await h.order([
      { product: mine, quantity: 1 },
      { product: theirs, quantity: 1, location: "Other Service" },
    ]);
    await h.settle();
    const row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");
    expect(row.lines.map((l) => l.shopifyLineItemId)).toEqual([placed.lineIds[0]]);
    expect(h.svc.order(row.svcOrderId!)!.lines.map((l) => l.storeLineItemId)).toEqual([
      placed.lineIds[0],
    ]);
    expect(
      row.timeline.some((t) =>
        t.message?.includes("1 line(s) are not sent to the service: they sit at a location"),
      ),
    ).toBe(true);

    h.svc.ship(row.svcOrderId!, { trackNumber: "TRK-OWN" });
    await h.settle();
    const after = await h.row(placed.legacyId);
    expect(after.flag).toBeNull();
    expect(after.state).toBe("FULFILLED");
    expect(
      h.shop.fulfillments(h.shopDomain, placed.shopOrderId).flatMap((f) => f.lineItems),
    ).toEqual([{ lineItemId: `gid://shopify/LineItem/${placed.lineIds[0]}`, quantity: 1 }]);
  }, 120_000);
});

describe("protected customer data not granted", () => {
  it("holds the order with a reason that names the missing access and the fix", async () => {
    const mug = await h.connectedProduct("Private Mug", "8.00");
    h.shop.setProtectedCustomerData(h.shopDomain, false);
    let placed: Awaited<ReturnType<Harness["order"]>>;
    try {
      placed = await h.order([{ product: mug, quantity: 1 }]);
      await h.settle();
      const row = await h.row(placed.legacyId);
      expect(row.state).toBe("HELD");
      expect(row.reasonCode).toBe("protected_data");
      expect(row.reasonMessage).toContain("protected customer data");
      expect(row.reasonMessage).toContain("Partner Dashboard");
      expect(row.svcOrderId).toBeNull();
    } finally {
      h.shop.setProtectedCustomerData(h.shopDomain, true);
    }
    // Granted: placing again goes on.
    const row = await h.row(placed.legacyId);
    const result = await placeOrder(h.deps, row.id);
    expect(result.outcome).toBe("created");
    expect((await h.row(placed.legacyId)).reasonCode).toBeNull();
  }, 120_000);
});
