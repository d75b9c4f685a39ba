/**
 * The production gateway through the real library: an offline session stored with
 * sessionStorage, `unauthenticated.admin(shop)`, the library's GraphQL client, and its HTTP
 * routed to the shop simulator with setAbstractFetchFunc.
 */
import { Session } from "@shopify/shopify-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ShopAuthError,
  ShopFulfillmentPlanError,
  ShopNoSessionError,
  ShopUserError,
  parseFulfillmentGid,
  parseLineItemGid,
  parseOrderGid,
  parseProductGid,
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

    expect(route.routed.length).toBe(before + 1);
    expect(route.routed.at(-1)).toBe(`https://${SHOP}/admin/api/2026-10/graphql.json`);
    expect(calls("GetOrder").at(-1)).toMatchObject({
      shop: SHOP,
      apiVersion: "2026-10",
      variables: { id: placed.id },
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
