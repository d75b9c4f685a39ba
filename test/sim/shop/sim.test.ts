/** The shop simulator on its own, over raw HTTP: auth, GraphQL validation, userErrors, admin API, HMAC. */
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ShopSim, startShopSim } from "./server";

const SHOP = "raw.myshopify.com";
let sim: ShopSim;
let token: string;

const gql = (
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) =>
  fetch(`${sim.url}/admin/api/2026-10/graphql.json`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-Sim-Shop-Domain": SHOP,
      "X-Shopify-Access-Token": token,
      ...headers,
    },
    body: JSON.stringify({ query, variables }),
  });

beforeAll(async () => {
  sim = await startShopSim({ apiSecret: "s3cret" });
  token = sim.addShop(SHOP).accessToken;
});
afterAll(() => sim.close());

describe("shop simulator", () => {
  it("answers 401 without the installed token, and 404 for an unknown shop", async () => {
    expect(
      (
        await gql(
          "{ products(first: 1) { nodes { id } } }",
          {},
          { "X-Shopify-Access-Token": "wrong" },
        )
      ).status,
    ).toBe(401);
    const res = await gql(
      "{ products(first: 1) { nodes { id } } }",
      {},
      { "X-Sim-Shop-Domain": "nope.myshopify.com" },
    );
    expect(res.status).toBe(404);
  });

  it("rejects unknown fields and missing required variables without running anything", async () => {
    const p = sim.addProduct(SHOP, { title: "T", variants: [{ sku: "A", price: "1.00" }] });
    const o = sim.placeOrder(SHOP, { lines: [{ variantId: p.variants[0]!.id, quantity: 1 }] });
    const bad = await (
      await gql(`query Q($id: ID!) { order(id: $id) { id nope } }`, { id: o.id })
    ).json();
    expect(bad).toEqual({
      errors: [expect.objectContaining({ message: "Field 'nope' doesn't exist on type 'Order'" })],
    });
    const noVar = await (await gql(`query Q($id: ID!) { order(id: $id) { id } }`)).json();
    expect(noVar.errors[0].message).toBe("Variable $id of type ID! was provided invalid value");
    expect(noVar.data).toBeUndefined();
    // A mutation with a bad selection does not fulfil anything.
    const fo = o.fulfillmentOrders[0]!;
    const m = await (
      await gql(
        `mutation M($f: FulfillmentInput!) { fulfillmentCreate(fulfillment: $f) { fulfillment { id bogus } userErrors { field message } } }`,
        {
          f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fo.id }] },
        },
      )
    ).json();
    expect(m.errors[0].message).toBe("Field 'bogus' doesn't exist on type 'Fulfillment'");
    expect(sim.fulfillments(SHOP, o.id)).toEqual([]);
  });

  it("connections need first or last, at most 250", async () => {
    const r = await (await gql("{ products { nodes { id } } }")).json();
    expect(r.errors[0].message).toBe("you must provide one of first or last");
    const r2 = await (await gql("{ products(first: 251) { nodes { id } } }")).json();
    expect(r2.errors[0].message).toMatch(/between 0 and 250/);
  });

  it("fulfillmentCreate: userErrors for an unknown fulfilment order and for too much quantity", async () => {
    const p = sim.addProduct(SHOP, { title: "U", variants: [{ sku: "U1", price: "2.00" }] });
    const o = sim.placeOrder(SHOP, { lines: [{ variantId: p.variants[0]!.id, quantity: 2 }] });
    const doc = `mutation CreateFulfillment($f: FulfillmentInput!) { fulfillmentCreate(fulfillment: $f) { fulfillment { id } userErrors { field message } } }`;
    const unknown = await (
      await gql(doc, {
        f: {
          lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: "gid://shopify/FulfillmentOrder/9" }],
        },
      })
    ).json();
    expect(unknown.data.fulfillmentCreate).toEqual({
      fulfillment: null,
      userErrors: [
        {
          field: ["fulfillment", "lineItemsByFulfillmentOrder", "0", "fulfillmentOrderId"],
          message: "Fulfillment order does not exist.",
        },
      ],
    });
    const fo = o.fulfillmentOrders[0]!;
    const tooMany = await (
      await gql(doc, {
        f: {
          lineItemsByFulfillmentOrder: [
            {
              fulfillmentOrderId: fo.id,
              fulfillmentOrderLineItems: [{ id: fo.lineItems[0]!.id, quantity: 3 }],
            },
          ],
        },
      })
    ).json();
    expect(tooMany.data.fulfillmentCreate.userErrors[0].message).toBe(
      "Invalid fulfillment order line item quantity requested.",
    );
    // Omitting the lines fulfils everything that is left.
    const all = await (
      await gql(doc, {
        f: {
          lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fo.id }],
          trackingInfo: { number: "N1" },
        },
      })
    ).json();
    expect(all.data.fulfillmentCreate.fulfillment.id).toMatch(
      /^gid:\/\/shopify\/Fulfillment\/\d+$/,
    );
    expect(sim.order(SHOP, o.id).fulfillmentOrders[0]).toMatchObject({
      status: "CLOSED",
      lineItems: [{ remainingQuantity: 0 }],
    });
    expect(sim.graphqlCalls().at(-1)).toMatchObject({
      operationName: "CreateFulfillment",
      shop: SHOP,
      apiVersion: "2026-10",
    });
  });

  it("the /__sim admin API adds shops, products and orders and reads fulfilments", async () => {
    const post = async (path: string, body: unknown) =>
      (
        await fetch(`${sim.url}/__sim${path}`, { method: "POST", body: JSON.stringify(body) })
      ).json();
    const shop = await post("/shops", {
      domain: "admin-api.myshopify.com",
      accessToken: "simtoken_admin",
    });
    expect(shop).toEqual({ domain: "admin-api.myshopify.com", accessToken: "simtoken_admin" });
    const product = await post("/shops/admin-api.myshopify.com/products", {
      title: "Via HTTP",
      variants: [{ sku: "H1", price: "5.00" }],
    });
    const order = await post("/shops/admin-api.myshopify.com/orders", {
      lines: [{ variantId: product.variants[0].id, quantity: 1 }],
    });
    expect(order.fulfillmentOrders[0].lineItems[0].remainingQuantity).toBe(1);
    const res = await fetch(
      `${sim.url}/shops/admin-api.myshopify.com/admin/api/2026-10/graphql.json`,
      {
        method: "POST",
        headers: { "X-Shopify-Access-Token": "simtoken_admin", "Content-Type": "application/json" },
        body: JSON.stringify({
          query: `query GetOrder($id: ID!) { order(id: $id) { name lineItems(first: 5) { nodes { sku } } } }`,
          variables: { id: order.id },
        }),
      },
    );
    expect((await res.json()).data.order).toEqual({
      name: order.name,
      lineItems: { nodes: [{ sku: "H1" }] },
    });
    expect(
      await (
        await fetch(
          `${sim.url}/__sim/shops/admin-api.myshopify.com/orders/${order.legacyId}/fulfillments`,
        )
      ).json(),
    ).toEqual([]);
  });

  it("webhooks carry Shopify's headers and a valid base64 HMAC-SHA256 of the raw body (or a forged one)", async () => {
    const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        received.push({ headers: req.headers, body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    try {
      const p = sim.addProduct(SHOP, {
        title: "Hooked",
        optionNames: ["Size"],
        variants: [{ sku: "HK-S", price: "3.00", options: ["S"] }],
      });
      const payload = sim.productWebhookPayload(SHOP, p.id);
      await sim.sendWebhook(SHOP, "products/update", payload, {
        url: `${base}/webhooks/products/update`,
        eventId: "e-1",
      });
      await sim.sendWebhook(SHOP, "products/update", payload, {
        url: `${base}/webhooks/products/update`,
        forge: true,
      });
      const [good, forged] = received;
      const expected = createHmac("sha256", "s3cret").update(good!.body).digest("base64");
      expect(good!.headers["x-shopify-hmac-sha256"]).toBe(expected);
      expect(forged!.headers["x-shopify-hmac-sha256"]).not.toBe(
        createHmac("sha256", "s3cret").update(forged!.body).digest("base64"),
      );
      expect(good!.headers).toMatchObject({
        "x-shopify-topic": "products/update",
        "x-shopify-shop-domain": SHOP,
        "x-shopify-event-id": "e-1",
        "x-shopify-api-version": "2026-10",
      });
      expect(good!.headers["x-shopify-webhook-id"]).toEqual(expect.any(String));
      expect(Number.isNaN(Date.parse(String(good!.headers["x-shopify-triggered-at"])))).toBe(false);
      expect(JSON.parse(good!.body)).toMatchObject({
        id: p.legacyId,
        admin_graphql_api_id: p.id,
        title: "Hooked",
        variants: [{ sku: "HK-S", price: "3.00", option1: "S" }],
      });
    } finally {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    }
  });
});

describe("shop simulator admin API for Shopify's rules", () => {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${sim.url}/__sim/shops/${SHOP}${path}`, {
      method: "POST",
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return res.json();
  };

  it("adds locations, holds, releases, schedules and sets statuses of fulfilment orders over HTTP", async () => {
    const loc = await post("/locations", { name: "Service DC", fulfillmentService: true });
    expect(loc).toEqual({
      id: expect.stringMatching(/^gid:\/\/shopify\/Location\/\d+$/),
      name: "Service DC",
      fulfillmentService: true,
    });
    const p = sim.addProduct(SHOP, { title: "Admin", variants: [{ sku: "AD1", price: "1.00" }] });
    const o = sim.placeOrder(SHOP, { lines: [{ variantId: p.variants[0]!.id, quantity: 1 }] });
    const foId = o.fulfillmentOrders[0]!.id;
    const held = await post(`/fulfillment-orders/${encodeURIComponent(foId)}/hold`, {
      reason: "AWAITING_PAYMENT",
    });
    expect(held.fulfillmentOrders[0]).toMatchObject({
      status: "ON_HOLD",
      supportedActions: ["RELEASE_HOLD"],
      holds: [{ reason: "AWAITING_PAYMENT", reasonNotes: null }],
    });
    const released = await post(`/fulfillment-orders/${encodeURIComponent(foId)}/release`, {});
    expect(released.fulfillmentOrders[0]).toMatchObject({ status: "OPEN", holds: [] });
    await post(`/fulfillment-orders/${encodeURIComponent(foId)}/status`, { status: "SCHEDULED" });
    const opened = await post(`/fulfillment-orders/${encodeURIComponent(foId)}/open`, {});
    expect(opened.fulfillmentOrders[0].status).toBe("OPEN");
    // Releasing what is not held is refused (400, the simulator's own error).
    const bad = await fetch(
      `${sim.url}/__sim/shops/${SHOP}/fulfillment-orders/${encodeURIComponent(foId)}/release`,
      { method: "POST", body: "{}" },
    );
    expect(bad.status).toBe(400);
  });

  it("sets scopes, protected customer data and the throttle bucket over HTTP", async () => {
    const p = sim.addProduct(SHOP, { title: "Knobs", variants: [{ sku: "KN1", price: "1.00" }] });
    const o = sim.placeOrder(SHOP, { lines: [{ variantId: p.variants[0]!.id, quantity: 1 }] });
    await post("/protected-customer-data", { granted: false });
    await post("/scopes", { scopes: ["read_orders"] });
    const r = await (
      await gql(
        `query Q($id: ID!) { order(id: $id) { email fulfillmentOrders(first: 1) { nodes { id } } } }`,
        {
          id: o.id,
        },
      )
    ).json();
    // FulfillmentOrder needs a fulfilment-order scope; the non-null nodes and connection null
    // the order, as graphql-js propagates.
    expect(r.data).toEqual({ order: null });
    expect(r.errors[0].extensions.code).toBe("ACCESS_DENIED");
    expect(r.errors[0].path).toEqual(["order", "fulfillmentOrders", "nodes"]);
    expect(r.errors[0].message).toMatch(
      /^Access denied for nodes field\. Required access: .*`read_merchant_managed_fulfillment_orders` access scope/,
    );
    const redacted = await (
      await gql(`query Q($id: ID!) { order(id: $id) { name email } }`, { id: o.id })
    ).json();
    expect(redacted).toMatchObject({ data: { order: { name: o.name, email: null } } });
    expect(redacted.errors).toBeUndefined();
    await post("/scopes", {
      scopes: [
        "read_orders",
        "read_products",
        "write_products",
        "read_merchant_managed_fulfillment_orders",
        "write_merchant_managed_fulfillment_orders",
        "read_locations",
      ],
    });
    await post("/protected-customer-data", { granted: true });
    expect(await post("/bucket", { maximumAvailable: 1000, restoreRate: 50 })).toMatchObject({
      maximumAvailable: 1000,
      restoreRate: 50,
    });
    const ok = await (
      await gql(`query Q($id: ID!) { order(id: $id) { email } }`, { id: o.id })
    ).json();
    expect(ok.data.order.email).toBe("customer@example.com");
    expect(ok.extensions.cost.throttleStatus).toMatchObject({
      maximumAvailable: 1000,
      restoreRate: 50,
    });
  });
});
