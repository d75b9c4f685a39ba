/**
 * Every payload the shop simulator builds conforms to Shopify's published JSON Schema of its
 * topic (test/sim/shop/reference/webhooks-2026-07.json), and sendWebhook refuses to send one
 * that does not.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ShopSim, startShopSim } from "../sim/shop/server";
import {
  FULL_VARIANTS_IN_PAYLOAD,
  appUninstalledPayload,
  customersDataRequestPayload,
  customersRedactPayload,
  productDeletePayload,
  scopesUpdatePayload,
  shopRedactPayload,
  webhookPayloadErrors,
  webhookReference,
} from "../sim/shop/webhooks";

const SHOP = "payloads.myshopify.com";
let sim: ShopSim;
let token: string;

beforeAll(async () => {
  // No app: sendWebhook's target is a closed local port, so only validation can throw first.
  sim = await startShopSim({ apiSecret: "s3cret" });
  token = sim.addShop(SHOP).accessToken;
});
afterAll(() => sim.close());

function expectConforms(topic: string, payload: unknown) {
  const errors = webhookPayloadErrors(topic, payload);
  expect(errors, `${topic}: ${JSON.stringify(errors?.slice(0, 5))}`).toEqual([]);
}

const gql = async (query: string, variables: Record<string, unknown>) => {
  const res = await fetch(`${sim.url}/admin/api/2026-10/graphql.json`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-Sim-Shop-Domain": SHOP,
      "X-Shopify-Access-Token": token,
    },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
};

const ORDER_TOPICS = ["orders/create", "orders/paid", "orders/updated", "orders/cancelled"];

describe("the simulator's payloads against the published schemas", () => {
  it("the reference holds a schema and an example for every subscribed topic", () => {
    expect(Object.keys(webhookReference()).sort()).toEqual(
      [
        ...ORDER_TOPICS,
        "app/scopes_update",
        "app/uninstalled",
        "customers/data_request",
        "customers/redact",
        "products/delete",
        "products/update",
        "shop/redact",
      ].sort(),
    );
    // The validator is not a rubber stamp: a payload missing a required field fails.
    expect(webhookPayloadErrors("products/delete", {})).not.toEqual([]);
    expect(webhookPayloadErrors("orders/create", { id: "1" })!.length).toBeGreaterThan(10);
  });

  it("orders/*: new, several lines, no optional address parts, pending, cancelled, fulfilled", async () => {
    const p = sim.addProduct(SHOP, {
      title: "Mug",
      optionNames: ["Colour"],
      variants: [
        { sku: "MUG-R", price: "9.50", options: ["Red"] },
        { sku: "MUG-B", price: "9.50", options: ["Blue"] },
      ],
    });
    const plain = sim.placeOrder(SHOP, { lines: [{ variantId: p.variants[0]!.id, quantity: 1 }] });
    const several = sim.placeOrder(SHOP, {
      lines: [
        { variantId: p.variants[0]!.id, quantity: 2 },
        { variantId: p.variants[1]!.id, quantity: 3 },
      ],
      currency: "EUR",
    });
    const sparse = sim.placeOrder(SHOP, {
      lines: [{ variantId: p.variants[1]!.id, quantity: 1 }],
      shippingAddress: { address1: "2 Side St", city: "Leeds", countryCode: "GB" },
      financialStatus: "PENDING",
    });
    const cancelled = sim.placeOrder(SHOP, {
      lines: [{ variantId: p.variants[0]!.id, quantity: 1 }],
    });
    sim.cancelOrder(SHOP, cancelled.id, "customer");

    const fulfilled = sim.placeOrder(SHOP, {
      lines: [
        { variantId: p.variants[0]!.id, quantity: 2 },
        { variantId: p.variants[1]!.id, quantity: 1 },
      ],
    });
    const fo = fulfilled.fulfillmentOrders[0]!;
    const created = await gql(
      `mutation CreateFulfillment($f: FulfillmentInput!) {
        fulfillmentCreate(fulfillment: $f) { fulfillment { id } userErrors { field message } }
      }`,
      {
        f: {
          lineItemsByFulfillmentOrder: [
            {
              fulfillmentOrderId: fo.id,
              fulfillmentOrderLineItems: [{ id: fo.lineItems[0]!.id, quantity: 1 }],
            },
          ],
          trackingInfo: { number: "TRK1", url: "https://track.example/TRK1", company: "UPS" },
        },
      },
    );
    expect(created.errors).toBeUndefined();
    expect(sim.fulfillments(SHOP, fulfilled.id)).toHaveLength(1);

    for (const o of [plain, several, sparse, cancelled, fulfilled]) {
      const payload = sim.orderWebhookPayload(SHOP, o.id);
      for (const topic of ORDER_TOPICS) expectConforms(topic, payload);
    }
    const partly = sim.orderWebhookPayload(SHOP, fulfilled.id) as {
      fulfillment_status: string | null;
      fulfillments: { tracking_number: string; line_items: { quantity: number }[] }[];
      line_items: { fulfillable_quantity: number; fulfillment_status: string | null }[];
    };
    expect(partly.fulfillment_status).toBe("partial");
    expect(partly.fulfillments[0]).toMatchObject({
      tracking_number: "TRK1",
      line_items: [{ quantity: 1 }],
    });
    expect(partly.line_items.map((l) => [l.fulfillable_quantity, l.fulfillment_status])).toEqual([
      [1, "partial"],
      [1, null],
    ]);
    const gone = sim.orderWebhookPayload(SHOP, cancelled.id);
    expect(gone).toMatchObject({ cancel_reason: "customer", cancelled_at: expect.any(String) });
  });

  it("orders/*: the same customer (by email) has the same id on every order", () => {
    const p = sim.addProduct(SHOP, { title: "Pen", variants: [{ sku: "PEN", price: "1.00" }] });
    const a = sim.placeOrder(SHOP, {
      lines: [{ variantId: p.variants[0]!.id, quantity: 1 }],
      email: "kim@example.com",
    });
    const b = sim.placeOrder(SHOP, {
      lines: [{ variantId: p.variants[0]!.id, quantity: 1 }],
      email: "kim@example.com",
    });
    const c = sim.placeOrder(SHOP, {
      lines: [{ variantId: p.variants[0]!.id, quantity: 1 }],
      email: "lee@example.com",
    });
    const id = (o: { id: string }) =>
      (sim.orderWebhookPayload(SHOP, o.id) as { customer: { id: number } }).customer.id;
    expect(id(a)).toBe(id(b));
    expect(id(a)).not.toBe(id(c));
    const request = customersDataRequestPayload({
      domain: SHOP,
      email: "kim@example.com",
      orderIds: [a.legacyId, b.legacyId],
    });
    expect(request.customer.id).toBe(id(a));
  });

  it("products/update: a product without options or image, with an image, with 250 variants", () => {
    const bare = sim.addProduct(SHOP, { title: "Bare", variants: [{ sku: "B", price: "1.00" }] });
    const pictured = sim.addProduct(SHOP, {
      title: "Pictured",
      image: "https://cdn.example/p.png",
      optionNames: ["Size", "Colour"],
      variants: [
        { sku: "P-S-R", price: "2.00", options: ["S", "Red"] },
        { sku: "P-M-R", price: "2.00", options: ["M", "Red"] },
      ],
    });
    const big = sim.addProduct(SHOP, {
      title: "Big",
      optionNames: ["Number"],
      variants: Array.from({ length: 250 }, (_, i) => ({
        sku: `BIG-${i + 1}`,
        price: "3.00",
        options: [String(i + 1)],
      })),
    });
    for (const p of [bare, pictured, big]) {
      expectConforms("products/update", sim.productWebhookPayload(SHOP, p.id));
    }
    const payload = sim.productWebhookPayload(SHOP, big.id) as {
      variants: { id: number }[];
      variant_gids: { admin_graphql_api_id: string; updated_at: string }[];
    };
    expect(payload.variants).toHaveLength(FULL_VARIANTS_IN_PAYLOAD);
    expect(payload.variants.map((v) => v.id)).toEqual(
      big.variants.slice(0, 100).map((v) => v.legacyId),
    );
    // variant_gids names every variant, the ones beyond the first 100 included.
    expect(payload.variant_gids.map((v) => v.admin_graphql_api_id).sort()).toEqual(
      big.variants.map((v) => v.id).sort(),
    );
  });

  it("products/delete, app/*, customers/* and shop/redact", () => {
    expectConforms("products/delete", productDeletePayload(123));
    expectConforms("app/uninstalled", appUninstalledPayload(SHOP));
    expectConforms(
      "app/scopes_update",
      scopesUpdatePayload(SHOP, ["read_orders"], ["read_orders", "write_products"]),
    );
    const who = { domain: SHOP, email: "kim@example.com", phone: "+15550100", orderIds: [1, 2] };
    expectConforms("customers/data_request", customersDataRequestPayload(who));
    expectConforms("customers/redact", customersRedactPayload(who));
    expectConforms("shop/redact", shopRedactPayload(SHOP));
    // Each compliance topic names its orders with its own key.
    expect(customersDataRequestPayload(who)).toMatchObject({ orders_requested: [1, 2] });
    expect(customersDataRequestPayload(who)).not.toHaveProperty("orders_to_redact");
    expect(customersRedactPayload(who)).toMatchObject({ orders_to_redact: [1, 2] });
  });

  it("sendWebhook throws before sending a simulator-built payload that does not conform", async () => {
    const p = sim.addProduct(SHOP, { title: "Broken", variants: [{ sku: "X", price: "1.00" }] });
    const payload = sim.productWebhookPayload(SHOP, p.id) as Record<string, unknown>;
    delete payload.variant_gids;
    await expect(
      sim.sendWebhook(SHOP, "products/update", payload, { url: "http://127.0.0.1:9/hook" }),
    ).rejects.toThrow(/products\/update payload does not conform.*variant_gids/);
    const shopPayload = shopRedactPayload(SHOP) as Record<string, unknown>;
    shopPayload.shop_id = String(shopPayload.shop_id);
    await expect(
      sim.sendWebhook(SHOP, "shop/redact", shopPayload, { url: "http://127.0.0.1:9/hook" }),
    ).rejects.toThrow(/shop\/redact payload does not conform.*shop_id must be integer/);
  });
});
