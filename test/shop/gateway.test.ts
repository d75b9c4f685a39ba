/**
 * The production gateway through the real library: an offline session stored with
 * sessionStorage, `unauthenticated.admin(shop)`, the library's GraphQL client, and its HTTP
 * routed to the shop simulator with setAbstractFetchFunc.
 */
import { Session } from "@shopify/shopify-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AdminGraphql,
  ShopAuthError,
  ShopFulfillmentNotReadyError,
  ShopFulfillmentPlanError,
  ShopNoSessionError,
  ShopUserError,
  type ShopFulfillmentOrder,
  parseFulfillmentGid,
  parseFulfillmentOrderGid,
  parseFulfillmentOrderLineItemGid,
  parseLineItemGid,
  planFulfillment,
  withheldCustomerData,
  parseOrderGid,
  parseProductGid,
  createShopGateway,
  parseShopDomain,
  shopGatewayFor,
  shopGatewayForRequest,
} from "../../app/shop/index.server";
import { sessionStorage, unauthenticated } from "../../app/shopify.server";
import { type ShopifyRoute, routeShopifyToSim } from "../sim/shop/route-shopify";
import { type ShopSim, startShopSim } from "../sim/shop/server";

const SHOP = "gateway-test.myshopify.com";
let sim: ShopSim;
let route: ShopifyRoute;
let token: string;
let tee: { id: string; variants: { id: string; sku: string }[] };
let mug: { id: string; variants: { id: string; sku: string }[] };

async function storeOfflineSession(accessToken: string, shop = SHOP) {
  await sessionStorage.storeSession(
    new Session({
      id: `offline_${shop}`,
      shop,
      state: "state",
      isOnline: false,
      accessToken,
      scope: "read_orders",
    }),
  );
}

const calls = (name: string) => sim.graphqlCalls().filter((c) => c.operationName === name);

beforeAll(async () => {
  sim = await startShopSim();
  route = routeShopifyToSim(sim.url);
  token = sim.addShop(SHOP).accessToken;
  await storeOfflineSession(token);
  tee = sim.addProduct(SHOP, {
    title: "Cotton Tee",
    image: "https://cdn.example.com/tee.png",
    optionNames: ["Size", "Color"],
    variants: [
      { sku: "TEE-S-RED", price: "19.00", options: ["S", "Red"] },
      { sku: "TEE-M-RED", price: "21.50", options: ["M", "Red"] },
    ],
  });
  mug = sim.addProduct(SHOP, { title: "Mug", variants: [{ sku: "MUG-1", price: "9.99" }] });
});

afterAll(async () => {
  route.restore();
  await sim.close();
});

describe("getOrder", () => {
  it("reads lines, address, risk and fulfilment orders through the library", async () => {
    const placed = sim.placeOrder(SHOP, {
      lines: [
        { variantId: tee.variants[1]!.id, quantity: 2 },
        { variantId: mug.variants[0]!.id, quantity: 1 },
      ],
      risk: "MEDIUM",
      shippingAddress: {
        firstName: "Grace",
        lastName: "Hopper",
        address1: "2 Navy Rd",
        city: "Arlington",
        countryCode: "US",
        zip: "22201",
      },
    });
    const before = route.routed.length;
    const gw = await shopGatewayFor(SHOP);
    const order = await gw.getOrder(parseOrderGid(placed.id));

    // Two calls for an ordinary order: the order with its lines, then its fulfilment orders.
    expect(route.routed.length).toBe(before + 2);
    expect(route.routed.at(-1)).toBe(`https://${SHOP}/admin/api/2026-10/graphql.json`);
    expect(calls("GetOrder").at(-1)).toMatchObject({
      shop: SHOP,
      apiVersion: "2026-10",
      variables: { id: placed.id, linesFirst: 50 },
    });
    expect(calls("GetOrderFulfillmentOrders").at(-1)).toMatchObject({
      variables: { id: placed.id, first: 8, linesFirst: 40, fulfillmentsFirst: 5 },
    });

    expect(order).not.toBeNull();
    expect(order!.id).toBe(placed.id);
    expect(order!.name).toBe(placed.name);
    expect(order!.riskRecommendation).toBe("INVESTIGATE");
    expect(order!.fulfillmentStatus).toBe("UNFULFILLED");
    expect(order!.shippingAddress).toMatchObject({
      firstName: "Grace",
      lastName: "Hopper",
      city: "Arlington",
      countryCode: "US",
      zip: "22201",
      province: null,
    });
    expect(order!.lines).toHaveLength(2);
    expect(order!.lines[0]).toEqual({
      id: placed.lineItems[0]!.id,
      productId: tee.id,
      variantId: tee.variants[1]!.id,
      sku: "TEE-M-RED",
      title: "Cotton Tee",
      variantTitle: "M / Red",
      options: [
        { name: "Size", value: "M" },
        { name: "Color", value: "Red" },
      ],
      imageUrl: "https://cdn.example.com/tee.png",
      quantity: 2,
      currentQuantity: 2,
      unitPrice: { amount: "21.50", currencyCode: "USD" },
      requiresShipping: true,
    });
    expect(order!.lines[1]).toMatchObject({
      sku: "MUG-1",
      variantTitle: null,
      imageUrl: null,
      quantity: 1,
    });
    expect(order!.fulfillmentOrders).toHaveLength(1);
    expect(order!.fulfillmentOrders[0]).toMatchObject({
      id: placed.fulfillmentOrders[0]!.id,
      status: "OPEN",
      supportedActions: expect.arrayContaining(["CREATE_FULFILLMENT"]),
      locationId: expect.stringMatching(/^gid:\/\/shopify\/Location\/\d+$/),
      holds: [],
      lineItems: [
        { lineItemId: placed.lineItems[0]!.id, remainingQuantity: 2, totalQuantity: 2 },
        { lineItemId: placed.lineItems[1]!.id, remainingQuantity: 1, totalQuantity: 1 },
      ],
    });
    expect(order!.fulfillments).toEqual([]);
  });

  it("maps each risk level to Shopify's recommendation", async () => {
    const gw = await shopGatewayFor(SHOP);
    for (const [risk, expected] of [
      ["LOW", "ACCEPT"],
      ["HIGH", "CANCEL"],
      ["NONE", "NONE"],
    ] as const) {
      const o = sim.placeOrder(SHOP, {
        lines: [{ variantId: mug.variants[0]!.id, quantity: 1 }],
        risk,
      });
      expect((await gw.getOrder(parseOrderGid(o.id)))!.riskRecommendation).toBe(expected);
    }
  });

  it("an unknown order is null", async () => {
    const gw = await shopGatewayFor(SHOP);
    expect(await gw.getOrder(parseOrderGid("gid://shopify/Order/1"))).toBeNull();
  });
});

describe("fulfilments", () => {
  it("a split shipment fulfils only the named lines; remaining quantities drop", async () => {
    const placed = sim.placeOrder(SHOP, {
      lines: [
        { variantId: tee.variants[0]!.id, quantity: 2 },
        { variantId: tee.variants[1]!.id, quantity: 3 },
        { variantId: mug.variants[0]!.id, quantity: 1 },
      ],
    });
    const [a, b, c] = placed.lineItems.map((l) => parseLineItemGid(l.id));
    const gw = await shopGatewayFor(SHOP);
    const created = await gw.createFulfillment({
      orderGid: parseOrderGid(placed.id),
      lineItems: [
        { lineItemGid: a!, quantity: 2 },
        { lineItemGid: b!, quantity: 1 },
      ],
      tracking: { number: "YT123", url: "https://track.example.com/YT123", company: "YunExpress" },
      notifyCustomer: true,
    });
    expect(created).toHaveLength(1);
    expect(created[0]!.tracking).toEqual([
      { number: "YT123", url: "https://track.example.com/YT123", company: "YunExpress" },
    ]);
    const sent = calls("CreateFulfillment").at(-1)!.variables as {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- GraphQL values are untyped JSON
      fulfillment: Record<string, any>;
    };
    expect(sent.fulfillment.notifyCustomer).toBe(true);
    expect(sent.fulfillment.lineItemsByFulfillmentOrder).toHaveLength(1);

    const inSim = sim.fulfillments(SHOP, placed.id);
    expect(inSim).toHaveLength(1);
    expect(inSim[0]!.id).toBe(created[0]!.id);
    expect(inSim[0]!.notifications).toBe(1);
    expect(inSim[0]!.lineItems).toEqual([
      { lineItemId: a, quantity: 2 },
      { lineItemId: b, quantity: 1 },
    ]);

    const order = (await gw.getOrder(parseOrderGid(placed.id)))!;
    expect(order.fulfillmentStatus).toBe("PARTIALLY_FULFILLED");
    expect(order.fulfillmentOrders[0]!.status).toBe("IN_PROGRESS");
    expect(
      Object.fromEntries(
        order.fulfillmentOrders[0]!.lineItems.map((l) => [l.lineItemId, l.remainingQuantity]),
      ),
    ).toEqual({ [a!]: 0, [b!]: 2, [c!]: 1 });
    expect(order.fulfillments).toHaveLength(1);
    expect(order.fulfillments[0]).toMatchObject({
      id: created[0]!.id,
      status: "SUCCESS",
      tracking: [{ number: "YT123" }],
    });

    // The rest ships later, from the order as just read (no extra read).
    const reads = calls("GetOrderFulfillmentOrders").length;
    await gw.createFulfillment({
      orderGid: order.id,
      lineItems: [
        { lineItemGid: b!, quantity: 2 },
        { lineItemGid: c!, quantity: 1 },
      ],
      tracking: { number: "YT456" },
      notifyCustomer: false,
      fulfillmentOrders: order.fulfillmentOrders,
    });
    expect(calls("GetOrderFulfillmentOrders").length).toBe(reads);
    const after = sim.order(SHOP, placed.id);
    expect(after.displayFulfillmentStatus).toBe("FULFILLED");
    expect(after.fulfillmentOrders[0]!.status).toBe("CLOSED");
    expect(sim.fulfillments(SHOP, placed.id)[1]!.notifications).toBe(0);
  });

  it("updates tracking of a fulfilment, notifying the customer", async () => {
    const placed = sim.placeOrder(SHOP, {
      lines: [{ variantId: mug.variants[0]!.id, quantity: 1 }],
    });
    const gw = await shopGatewayFor(SHOP);
    const [f] = await gw.createFulfillment({
      orderGid: parseOrderGid(placed.id),
      lineItems: [{ lineItemGid: parseLineItemGid(placed.lineItems[0]!.id), quantity: 1 }],
      tracking: { number: "OLD1" },
      notifyCustomer: false,
    });
    const updated = await gw.updateTracking(
      f!.id,
      { number: "NEW2", url: "https://t.example.com/NEW2", company: "DHL" },
      true,
    );
    expect(updated).toEqual({
      id: f!.id,
      tracking: [{ number: "NEW2", url: "https://t.example.com/NEW2", company: "DHL" }],
    });
    const inSim = sim.fulfillments(SHOP, placed.id)[0]!;
    expect(inSim.tracking).toEqual([
      { number: "NEW2", url: "https://t.example.com/NEW2", company: "DHL" },
    ]);
    expect(inSim.notifications).toBe(1);
    expect(calls("UpdateFulfillmentTracking").at(-1)!.variables).toMatchObject({
      fulfillmentId: f!.id,
      notifyCustomer: true,
    });
  });

  it("over-fulfilment: refused before sending when the open quantity is known", async () => {
    const placed = sim.placeOrder(SHOP, {
      lines: [{ variantId: mug.variants[0]!.id, quantity: 2 }],
    });
    const gw = await shopGatewayFor(SHOP);
    const sentBefore = calls("CreateFulfillment").length;
    const err = await gw
      .createFulfillment({
        orderGid: parseOrderGid(placed.id),
        lineItems: [{ lineItemGid: parseLineItemGid(placed.lineItems[0]!.id), quantity: 3 }],
        tracking: { number: "X" },
        notifyCustomer: false,
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShopFulfillmentPlanError);
    expect((err as ShopFulfillmentPlanError).problems).toEqual([
      { lineItemGid: placed.lineItems[0]!.id, requested: 3, fulfillable: 2 },
    ]);
    expect((err as Error).message).toContain("requested 3, open 2");
    expect(calls("CreateFulfillment").length).toBe(sentBefore);
    expect(sim.fulfillments(SHOP, placed.id)).toEqual([]);
  });

  it("over-fulfilment from a stale read: Shopify's userErrors become a ShopUserError", async () => {
    const placed = sim.placeOrder(SHOP, {
      lines: [{ variantId: mug.variants[0]!.id, quantity: 2 }],
    });
    const gw = await shopGatewayFor(SHOP);
    const stale = (await gw.getOrder(parseOrderGid(placed.id)))!;
    const line = parseLineItemGid(placed.lineItems[0]!.id);
    // Someone else (the merchant) ships one in the meantime.
    await gw.createFulfillment({
      orderGid: stale.id,
      lineItems: [{ lineItemGid: line, quantity: 1 }],
      tracking: { number: "M1" },
      notifyCustomer: false,
    });
    const err = await gw
      .createFulfillment({
        orderGid: stale.id,
        lineItems: [{ lineItemGid: line, quantity: 2 }],
        tracking: { number: "APP1" },
        notifyCustomer: true,
        fulfillmentOrders: stale.fulfillmentOrders,
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShopUserError);
    expect((err as ShopUserError).userErrors).toEqual([
      {
        field: ["fulfillment"],
        message: "Invalid fulfillment order line item quantity requested.",
      },
    ]);
    expect((err as Error).message).toBe(
      `Shopify CreateFulfillment for ${SHOP}: fulfillment: Invalid fulfillment order line item quantity requested.`,
    );
    expect(sim.fulfillments(SHOP, placed.id)).toHaveLength(1);
    expect(sim.order(SHOP, placed.id).fulfillmentOrders[0]!.lineItems[0]!.remainingQuantity).toBe(
      1,
    );
  });

  it("tracking update of an unknown fulfilment is a ShopUserError", async () => {
    const gw = await shopGatewayFor(SHOP);
    const err = await gw
      .updateTracking(parseFulfillmentGid("gid://shopify/Fulfillment/5"), { number: "N" }, false)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShopUserError);
    expect((err as ShopUserError).userErrors[0]!.message).toBe("Fulfillment does not exist.");
  });

  it("lines at two locations become two fulfilments (one per location)", async () => {
    const placed = sim.placeOrder(SHOP, {
      lines: [
        { variantId: tee.variants[0]!.id, quantity: 1 },
        { variantId: mug.variants[0]!.id, quantity: 1, location: "Warehouse B" },
      ],
    });
    expect(placed.fulfillmentOrders).toHaveLength(2);
    const gw = await shopGatewayFor(SHOP);
    const created = await gw.createFulfillment({
      orderGid: parseOrderGid(placed.id),
      lineItems: placed.lineItems.map((l) => ({
        lineItemGid: parseLineItemGid(l.id),
        quantity: 1,
      })),
      tracking: { number: "Z9" },
      notifyCustomer: false,
    });
    expect(created).toHaveLength(2);
    expect(new Set(created.flatMap((f) => f.fulfillmentOrderIds))).toEqual(
      new Set(placed.fulfillmentOrders.map((f) => f.id)),
    );
    expect(sim.order(SHOP, placed.id).displayFulfillmentStatus).toBe("FULFILLED");
  });
});

describe("auth and faults", () => {
  it("a revoked token: ShopAuthError with a clear message and no token in it", async () => {
    const other = "auth-test.myshopify.com";
    const { accessToken } = sim.addShop(other);
    await storeOfflineSession(accessToken, other);
    sim.rotateToken(other);
    const gw = await shopGatewayFor(other);
    const err = await gw.getOrder(parseOrderGid("gid://shopify/Order/1")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShopAuthError);
    const e = err as ShopAuthError;
    expect(e.status).toBe(401);
    expect(e.code).toBe("AUTH");
    expect(e.message).toMatch(
      /^Shopify GetOrder for auth-test\.myshopify\.com: the stored access token was rejected \(401\)/,
    );
    const everything = `${e.message}\n${e.stack}\n${JSON.stringify(e)}\n${String(e.cause ?? "")}`;
    expect(everything).not.toContain(accessToken);
    expect(calls("GetOrder").at(-1)).toMatchObject({ shop: other, status: 401 });
  });

  it("no offline session: ShopNoSessionError", async () => {
    await expect(shopGatewayFor("never-installed.myshopify.com")).rejects.toBeInstanceOf(
      ShopNoSessionError,
    );
  });

  it("a THROTTLED answer is retried after the cost-based wait", async () => {
    const placed = sim.placeOrder(SHOP, {
      lines: [{ variantId: mug.variants[0]!.id, quantity: 1 }],
    });
    sim.throttleNext(SHOP, 1);
    const before = calls("GetOrder").length;
    const gw = await shopGatewayFor(SHOP);
    const started = Date.now();
    const order = await gw.getOrder(parseOrderGid(placed.id));
    expect(order!.id).toBe(placed.id);
    expect(calls("GetOrder").length).toBe(before + 2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });

  it("the request flavour works over an admin context too", async () => {
    const { admin, session } = await unauthenticated.admin(SHOP);
    const gw = shopGatewayForRequest(admin, session);
    const page = await gw.listProducts({ first: 1 });
    expect(page.items).toHaveLength(1);
  });
});

describe("products", () => {
  const PRODUCTS_SHOP = "catalog-test.myshopify.com";
  beforeAll(async () => {
    const { accessToken } = sim.addShop(PRODUCTS_SHOP);
    await storeOfflineSession(accessToken, PRODUCTS_SHOP);
    {
      for (let i = 1; i <= 7; i++) {
        sim.addProduct(PRODUCTS_SHOP, {
          title: `Product ${i}`,
          image: i % 2 ? `https://cdn.example.com/p${i}.png` : undefined,
          optionNames: ["Size"],
          variants: [
            { sku: `P${i}-S`, price: `${i}.00`, options: ["S"] },
            { sku: `P${i}-M`, price: `${i}.50`, options: ["M"] },
            { sku: `P${i}-L`, price: `${i}.75`, options: ["L"] },
          ],
        });
      }
    }
  });

  it("pages through every product, three at a time", async () => {
    const gw = await shopGatewayFor(PRODUCTS_SHOP);
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const page = await gw.listProducts({ first: 3, after });
      pages++;
      seen.push(...page.items.map((p) => p.id));
      after = page.hasNextPage ? page.endCursor : null;
      if (pages === 1) {
        expect(page.items[0]).toMatchObject({
          title: "Product 1",
          handle: "product-1",
          imageUrl: "https://cdn.example.com/p1.png",
          moreVariantsAfter: null,
        });
        expect(page.items[0]!.variants[1]).toMatchObject({
          sku: "P1-M",
          price: "1.50",
          title: "M",
          options: [{ name: "Size", value: "M" }],
        });
        expect(page.items[1]!.imageUrl).toBeNull();
      }
    } while (after && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(sim.products(PRODUCTS_SHOP).map((p) => p.id));
    expect(new Set(seen).size).toBe(7);
  });

  it("pages a product's variants past the first page", async () => {
    const gw = await shopGatewayFor(PRODUCTS_SHOP);
    const page = await gw.listProducts({ first: 1, variantsFirst: 2 });
    const product = page.items[0]!;
    expect(product.variants.map((v) => v.sku)).toEqual(["P1-S", "P1-M"]);
    expect(product.moreVariantsAfter).toEqual(expect.any(String));
    const rest = await gw.listProductVariants(parseProductGid(product.id), {
      after: product.moreVariantsAfter,
    });
    expect(rest.items.map((v) => v.sku)).toEqual(["P1-L"]);
    expect(rest.hasNextPage).toBe(false);
  });

  it("searches by title or SKU", async () => {
    const gw = await shopGatewayFor(PRODUCTS_SHOP);
    expect((await gw.listProducts({ query: "sku:P3-M" })).items.map((p) => p.title)).toEqual([
      "Product 3",
    ]);
    expect((await gw.listProducts({ query: "title:product 5" })).items.map((p) => p.title)).toEqual(
      ["Product 5"],
    );
  });
});

describe("Shopify's limits: pages, holds, locations, protected data", () => {
  const LIMITS_SHOP = "limits-test.myshopify.com";
  let products: { variants: { id: string }[] }[] = [];
  /** A gateway with tiny pages, so that a small order needs every kind of further page. */
  const smallPages = async () => {
    const { admin, session } = await unauthenticated.admin(LIMITS_SHOP);
    return createShopGateway({
      shop: parseShopDomain(session.shop),
      graphql: admin.graphql as AdminGraphql,
      pageSizes: {
        lines: 3,
        moreLines: 4,
        fulfillmentOrders: 2,
        fulfillmentOrderLines: 2,
        moreFulfillmentOrderLines: 3,
        fulfillmentOrderFulfillments: 1,
        moreFulfillments: 1,
      },
    });
  };

  beforeAll(async () => {
    const { accessToken } = sim.addShop(LIMITS_SHOP);
    await storeOfflineSession(accessToken, LIMITS_SHOP);
    sim.addLocation(LIMITS_SHOP, { name: "Warehouse B" });
    sim.addLocation(LIMITS_SHOP, { name: "Warehouse C" });
    sim.addLocation(LIMITS_SHOP, { name: "Dropship Service", fulfillmentService: true });
    products = Array.from({ length: 12 }, (_, i) =>
      sim.addProduct(LIMITS_SHOP, {
        title: `Item ${i}`,
        variants: [{ sku: `I${i}`, price: "2.00" }],
      }),
    );
  });

  it("reads every page: 12 lines over 3 fulfilment orders, 2 fulfilments on one", async () => {
    const locations = [undefined, "Warehouse B", "Warehouse C"];
    const placed = sim.placeOrder(LIMITS_SHOP, {
      lines: products.map((p, i) => ({
        variantId: p.variants[0]!.id,
        quantity: 1,
        location: locations[i % 3],
      })),
    });
    expect(placed.fulfillmentOrders).toHaveLength(3);
    const gw = await smallPages();
    const lines = placed.lineItems.map((l) => parseLineItemGid(l.id));
    // Two fulfilments on the first location's fulfilment order.
    await gw.createFulfillment({
      orderGid: parseOrderGid(placed.id),
      lineItems: [{ lineItemGid: lines[0]!, quantity: 1 }],
      tracking: { number: "P1" },
      notifyCustomer: false,
    });
    await gw.createFulfillment({
      orderGid: parseOrderGid(placed.id),
      lineItems: [{ lineItemGid: lines[3]!, quantity: 1 }],
      tracking: { number: "P2" },
      notifyCustomer: false,
    });
    const order = (await gw.getOrder(parseOrderGid(placed.id)))!;
    expect(order.lines.map((l) => l.id)).toEqual(placed.lineItems.map((l) => l.id));
    expect(order.fulfillmentOrders).toHaveLength(3);
    expect(
      order.fulfillmentOrders.flatMap((f) => f.lineItems.map((l) => l.lineItemId)).sort(),
    ).toEqual([...lines].sort());
    expect(order.fulfillments.map((f) => f.tracking[0]!.number).sort()).toEqual(["P1", "P2"]);
    expect(calls("GetOrderLineItems").length).toBeGreaterThanOrEqual(3);
    expect(calls("GetFulfillmentOrderLineItems").length).toBeGreaterThanOrEqual(3);
    expect(calls("GetFulfillmentOrderFulfillments").length).toBeGreaterThanOrEqual(1);
  });

  it("paces its calls by the bucket the replies report: a 450-line order is hardly throttled", async () => {
    const paced = "paced-test.myshopify.com";
    const { accessToken } = sim.addShop(paced);
    await storeOfflineSession(accessToken, paced);
    sim.setThrottle(paced, { maximumAvailable: 1000, restoreRate: 500 });
    const lines = Array.from({ length: 450 }, (_, i) => ({
      variantId: sim.addProduct(paced, {
        title: `L${i}`,
        variants: [{ sku: `L${i}`, price: "1.00" }],
      }).variants[0]!.id,
      quantity: 1,
    }));
    const placed = sim.placeOrder(paced, { lines });
    const gw = await shopGatewayFor(paced);
    const order = (await gw.getOrder(parseOrderGid(placed.id)))!;
    expect(order.lines).toHaveLength(450);
    const mine = sim.graphqlCalls().filter((c) => c.shop === paced);
    const throttled = mine.filter((c) => c.actualQueryCost == null);
    // 4 further pages of 703 points from a 1,000-point bucket: only the first call of each
    // document (its cost not known yet) may meet an empty bucket.
    expect(
      mine.filter((c) => c.operationName === "GetOrderLineItems" && c.actualQueryCost != null),
    ).toHaveLength(4);
    expect(throttled.length).toBeLessThanOrEqual(2);
  });

  it("gateways of one shop share its bucket: ten jobs reading orders at once are hardly throttled", async () => {
    const busy = "busy-test.myshopify.com";
    const { accessToken } = sim.addShop(busy);
    await storeOfflineSession(accessToken, busy);
    // 1,000 points, 200 a second: room for one GetOrderFulfillmentOrders (875) at a time.
    sim.setThrottle(busy, { maximumAvailable: 1000, restoreRate: 200 });
    const variantId = sim.addProduct(busy, {
      title: "Busy",
      variants: [{ sku: "BUSY", price: "1.00" }],
    }).variants[0]!.id;
    const orders = Array.from({ length: 10 }, () =>
      sim.placeOrder(busy, { lines: [{ variantId, quantity: 1 }] }),
    );
    // One read first, so the process knows what the documents cost (as after any earlier job).
    await (await shopGatewayFor(busy)).getOrder(parseOrderGid(orders[0]!.id));
    const before = sim.graphqlCalls().length;
    // Each job has a gateway of its own, as the worker's jobs do.
    const read = await Promise.all(
      orders.map(async (o) => (await shopGatewayFor(busy)).getOrder(parseOrderGid(o.id))),
    );
    expect(read.map((o) => o!.id)).toEqual(orders.map((o) => o.id));
    const mine = sim.graphqlCalls().slice(before);
    const refused = mine.filter((c) => c.requestedQueryCost != null && c.actualQueryCost == null);
    // Each gateway guessing alone sent all ten at once: most were refused, then retried in
    // step. Sharing the bucket, a call waits for the room it needs.
    expect(mine.length - refused.length).toBe(20);
    expect(refused.length).toBeLessThanOrEqual(3);
  });

  it("every call stays within Shopify's cost limit", () => {
    const mine = sim.graphqlCalls().filter((c) => c.shop === LIMITS_SHOP || c.shop === SHOP);
    expect(mine.length).toBeGreaterThan(0);
    for (const c of mine) {
      if (c.requestedQueryCost != null) expect(c.requestedQueryCost).toBeLessThanOrEqual(1000);
    }
  });

  it("a held fulfilment order: not ready (no write), then fulfilled once released", async () => {
    const placed = sim.placeOrder(LIMITS_SHOP, {
      lines: [{ variantId: products[0]!.variants[0]!.id, quantity: 2 }],
    });
    const foId = placed.fulfillmentOrders[0]!.id;
    sim.holdFulfillmentOrder(LIMITS_SHOP, foId, "AWAITING_PAYMENT");
    const gw = await shopGatewayFor(LIMITS_SHOP);
    const input = {
      orderGid: parseOrderGid(placed.id),
      lineItems: [{ lineItemGid: parseLineItemGid(placed.lineItems[0]!.id), quantity: 2 }],
      tracking: { number: "HOLD1" },
      notifyCustomer: false,
    };
    const err = await gw.createFulfillment(input).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShopFulfillmentNotReadyError);
    expect((err as Error).message).toContain("on hold");
    expect(sim.fulfillments(LIMITS_SHOP, placed.id)).toEqual([]);
    sim.releaseFulfillmentOrderHold(LIMITS_SHOP, foId);
    const created = await gw.createFulfillment(input);
    expect(created).toHaveLength(1);
    expect(sim.fulfillments(LIMITS_SHOP, placed.id)).toHaveLength(1);
  });

  it("a scheduled fulfilment order: not ready until it opens, with its opening time", async () => {
    const fulfillAt = new Date(Date.now() + 3 * 24 * 3600_000).toISOString();
    const placed = sim.placeOrder(LIMITS_SHOP, {
      lines: [{ variantId: products[1]!.variants[0]!.id, quantity: 1 }],
      fulfillAt,
    });
    const gw = await shopGatewayFor(LIMITS_SHOP);
    const input = {
      orderGid: parseOrderGid(placed.id),
      lineItems: [{ lineItemGid: parseLineItemGid(placed.lineItems[0]!.id), quantity: 1 }],
      tracking: { number: "SCH1" },
      notifyCustomer: false,
    };
    const err = (await gw
      .createFulfillment(input)
      .catch((e: unknown) => e)) as ShopFulfillmentNotReadyError;
    expect(err).toBeInstanceOf(ShopFulfillmentNotReadyError);
    expect(err.notReady[0]!.status).toBe("SCHEDULED");
    expect(err.retryAt?.getTime()).toBe(Date.parse(fulfillAt));
    sim.openScheduledFulfillmentOrder(LIMITS_SHOP, placed.fulfillmentOrders[0]!.id);
    expect(await gw.createFulfillment(input)).toHaveLength(1);
  });

  it("a fulfilment service's location is invisible: its lines are on no fulfilment order", async () => {
    const placed = sim.placeOrder(LIMITS_SHOP, {
      lines: [
        { variantId: products[2]!.variants[0]!.id, quantity: 1 },
        { variantId: products[3]!.variants[0]!.id, quantity: 1, location: "Dropship Service" },
      ],
    });
    const gw = await shopGatewayFor(LIMITS_SHOP);
    const order = (await gw.getOrder(parseOrderGid(placed.id)))!;
    expect(order.lines).toHaveLength(2);
    const seen = order.fulfillmentOrders.flatMap((f) => f.lineItems.map((l) => l.lineItemId));
    expect(seen).toEqual([placed.lineItems[0]!.id]);
  });

  it("protected customer data not granted: names and street come back null, and it is told", async () => {
    const placed = sim.placeOrder(LIMITS_SHOP, {
      lines: [{ variantId: products[4]!.variants[0]!.id, quantity: 1 }],
      email: "ada@example.com",
      shippingAddress: {
        firstName: "Ada",
        lastName: "Lovelace",
        address1: "1 Analytical St",
        city: "London",
        countryCode: "GB",
        zip: "N1 1AA",
      },
    });
    const gw = await shopGatewayFor(LIMITS_SHOP);
    sim.setProtectedCustomerData(LIMITS_SHOP, false);
    try {
      const order = (await gw.getOrder(parseOrderGid(placed.id)))!;
      expect(order.email).toBeNull();
      expect(order.shippingAddress).toMatchObject({
        firstName: null,
        address1: null,
        city: "London",
      });
      expect(withheldCustomerData(order)).toEqual(["name", "address"]);
    } finally {
      sim.setProtectedCustomerData(LIMITS_SHOP, true);
    }
    const granted = (await gw.getOrder(parseOrderGid(placed.id)))!;
    expect(withheldCustomerData(granted)).toEqual([]);
    expect(granted.shippingAddress?.address1).toBe("1 Analytical St");
  });

  it("an install without read_locations yet: the location is denied, the gateway reads without it and fulfils one fulfilment order per call", async () => {
    const other = "no-locations.myshopify.com";
    const { accessToken } = sim.addShop(other);
    await storeOfflineSession(accessToken, other);
    sim.setScopes(
      other,
      "read_orders,read_products,write_products,read_merchant_managed_fulfillment_orders,write_merchant_managed_fulfillment_orders".split(
        ",",
      ),
    );
    const a = sim.addProduct(other, { title: "A", variants: [{ sku: "A", price: "1.00" }] });
    const b = sim.addProduct(other, { title: "B", variants: [{ sku: "B", price: "1.00" }] });
    const placed = sim.placeOrder(other, {
      lines: [
        { variantId: a.variants[0]!.id, quantity: 1 },
        { variantId: b.variants[0]!.id, quantity: 1 },
      ],
      fulfillmentOrdersPerLocation: 2,
    });
    expect(placed.fulfillmentOrders).toHaveLength(2);
    const gw = await shopGatewayFor(other);
    const order = (await gw.getOrder(parseOrderGid(placed.id)))!;
    const mine = sim.graphqlCalls().filter((c) => c.shop === other);
    // Refused with the location (Shopify's ACCESS_DENIED), then read without it.
    expect(mine.map((c) => c.operationName)).toEqual([
      "GetOrder",
      "GetOrderFulfillmentOrders",
      "GetOrderFulfillmentOrdersWithoutLocation",
    ]);
    expect(order.fulfillmentOrders).toHaveLength(2);
    const created = await gw.createFulfillment({
      orderGid: order.id,
      lineItems: placed.lineItems.map((l) => ({
        lineItemGid: parseLineItemGid(l.id),
        quantity: 1,
      })),
      tracking: { number: "NOLOC" },
      notifyCustomer: false,
      fulfillmentOrders: order.fulfillmentOrders,
    });
    expect(created.map((c) => c.fulfillmentOrderIds.length)).toEqual([1, 1]);
    expect(sim.order(other, placed.id).displayFulfillmentStatus).toBe("FULFILLED");
  });
});

describe("planFulfillment (pure)", () => {
  const fo = (
    n: number,
    lines: [line: number, remaining: number][],
    o: Partial<ShopFulfillmentOrder> = {},
  ): ShopFulfillmentOrder => ({
    id: parseFulfillmentOrderGid(`gid://shopify/FulfillmentOrder/${n}`),
    status: "OPEN",
    supportedActions: ["CREATE_FULFILLMENT", "HOLD", "MOVE"],
    fulfillAt: null,
    holds: [],
    locationId: "gid://shopify/Location/1",
    lineItems: lines.map(([line, remaining]) => ({
      id: parseFulfillmentOrderLineItemGid(`gid://shopify/FulfillmentOrderLineItem/${n}${line}`),
      lineItemId: parseLineItemGid(`gid://shopify/LineItem/${line}`),
      remainingQuantity: remaining,
      totalQuantity: remaining,
    })),
    ...o,
  });
  const want = (line: number, quantity: number) => ({
    lineItemGid: parseLineItemGid(`gid://shopify/LineItem/${line}`),
    quantity,
  });

  it("uses only fulfilment orders that support CREATE_FULFILLMENT", () => {
    const plan = planFulfillment(
      [
        fo(1, [[1, 1]], { status: "IN_PROGRESS", supportedActions: ["CANCEL_FULFILLMENT_ORDER"] }),
        fo(2, [[1, 1]]),
      ],
      [want(1, 1)],
    );
    expect(plan.problems).toEqual([]);
    expect(plan.calls).toEqual([
      [
        {
          fulfillmentOrderId: "gid://shopify/FulfillmentOrder/2",
          lines: [{ id: "gid://shopify/FulfillmentOrderLineItem/21", quantity: 1 }],
        },
      ],
    ]);
  });

  it("lines on a held or scheduled fulfilment order are not ready (no conflict, nothing sent)", () => {
    const plan = planFulfillment(
      [
        fo(1, [[1, 2]]),
        fo(2, [[2, 1]], {
          status: "ON_HOLD",
          supportedActions: ["RELEASE_HOLD"],
          holds: [{ reason: "AWAITING_PAYMENT", notes: "bank transfer" }],
        }),
        fo(3, [[3, 1]], {
          status: "SCHEDULED",
          supportedActions: ["MARK_AS_OPEN"],
          fulfillAt: "2030-01-02T03:04:05Z",
        }),
      ],
      [want(1, 2), want(2, 1), want(3, 1)],
    );
    expect(plan.calls).toEqual([]);
    expect(plan.problems).toEqual([]);
    expect(plan.notReady.map((n) => [n.lineItemGid, n.status, n.reason])).toEqual([
      ["gid://shopify/LineItem/2", "ON_HOLD", "on hold (AWAITING_PAYMENT: bank transfer)"],
      ["gid://shopify/LineItem/3", "SCHEDULED", "scheduled to open at 2030-01-02T03:04:05Z"],
    ]);
    expect(plan.retryAt?.toISOString()).toBe("2030-01-02T03:04:05.000Z");
  });

  it("more than is open anywhere is a problem, even with a held fulfilment order", () => {
    const plan = planFulfillment(
      [fo(1, [[1, 1]], { status: "ON_HOLD", supportedActions: [] })],
      [want(1, 2)],
    );
    expect(plan.notReady).toEqual([]);
    expect(plan.problems).toEqual([
      { lineItemGid: "gid://shopify/LineItem/1", requested: 2, fulfillable: 0 },
    ]);
  });

  it("one call per location; at most 250 line items and 250 fulfilment orders per call", () => {
    const many = Array.from({ length: 300 }, (_, i) => i + 1);
    const fos = Array.from({ length: 30 }, (_, k) =>
      fo(
        1000 + k,
        many.slice(k * 10, k * 10 + 10).map((l) => [l, 1] as [number, number]),
        { locationId: `gid://shopify/Location/${k % 2 ? "B" : "A"}` },
      ),
    );
    const big = fo(
      2000,
      Array.from({ length: 260 }, (_, i) => [5000 + i, 1] as [number, number]),
    );
    const plan = planFulfillment(
      [...fos, big],
      [...many.map((l) => want(l, 1)), ...big.lineItems.map((_, i) => want(5000 + i, 1))],
    );
    expect(plan.problems).toEqual([]);
    for (const call of plan.calls) {
      expect(call.length).toBeLessThanOrEqual(250);
      expect(call.reduce((n, g) => n + g.lines.length, 0)).toBeLessThanOrEqual(250);
      for (const g of call) expect(g.lines.length).toBeLessThanOrEqual(250);
      const fosOf = [...fos, big].filter((f) => call.some((g) => g.fulfillmentOrderId === f.id));
      expect(new Set(fosOf.map((f) => f.locationId)).size).toBe(1);
    }
    const sent = plan.calls.flat().flatMap((g) => g.lines);
    expect(sent).toHaveLength(560);
    expect(new Set(sent.map((l) => l.id)).size).toBe(560);
  });
});

describe("withheldCustomerData (pure)", () => {
  const address = {
    firstName: "Ada",
    lastName: "Lovelace",
    company: null,
    address1: "1 Analytical St",
    address2: null,
    city: "London",
    province: null,
    provinceCode: null,
    zip: "N1",
    country: "United Kingdom",
    countryCode: "GB",
    phone: null,
  };
  it("a full address withholds nothing; no address is not redaction", () => {
    expect(withheldCustomerData({ shippingAddress: address })).toEqual([]);
    expect(withheldCustomerData({ shippingAddress: null })).toEqual([]);
  });
  it("names and street null while the city and country come through: withheld", () => {
    const redacted = { ...address, firstName: null, lastName: null, address1: null, zip: null };
    expect(withheldCustomerData({ shippingAddress: redacted })).toEqual(["name", "address"]);
    expect(
      withheldCustomerData({ shippingAddress: { ...address, address1: null, zip: null } }),
    ).toEqual(["address"]);
  });
  it("an address merely lacking its street (zip present) is not redaction", () => {
    expect(withheldCustomerData({ shippingAddress: { ...address, address1: null } })).toEqual([]);
  });
});
