/**
 * What a body must be to count as a payload of each subscribed topic (the signature covers the
 * body only, so this binds the unsigned topic header to it), the shop it names, and which
 * topics may arrive for a shop that is not installed.
 */
import { describe, expect, it } from "vitest";
import {
  acceptsUninstalledShop,
  checkTopicPayload,
  COMPLIANCE_TOPICS,
  SHOPIFY_TOPICS,
  type ShopifyTopic,
} from "../../app/webhooks/shopify-topics.server";

const ORDER_TOPICS = [
  "orders/create",
  "orders/paid",
  "orders/updated",
  "orders/cancelled",
] as const;

/** The least each topic's payload has. */
const MINIMAL: Record<ShopifyTopic, Record<string, unknown>> = {
  "app/uninstalled": { id: 1, myshopify_domain: null },
  "app/scopes_update": { previous: ["read_orders"], current: [] },
  "orders/create": { id: 1, line_items: [] },
  "orders/paid": { id: 1, line_items: [] },
  "orders/updated": { id: 1, line_items: [] },
  "orders/cancelled": { id: 1, line_items: [] },
  "products/update": { id: 1, variants: [] },
  "products/delete": { id: 1 },
  "customers/data_request": {
    shop_id: 1,
    shop_domain: "a.myshopify.com",
    customer: {},
    orders_requested: [],
  },
  "customers/redact": {
    shop_id: 1,
    shop_domain: "a.myshopify.com",
    customer: {},
    orders_to_redact: [],
  },
  "shop/redact": { shop_id: 1, shop_domain: "a.myshopify.com" },
};

const refused = (topic: ShopifyTopic) => ({ ok: false, reason: `body is not a ${topic} payload` });

describe("checkTopicPayload", () => {
  it.each(SHOPIFY_TOPICS)("takes the least a %s payload has", (topic) => {
    expect(checkTopicPayload(topic, MINIMAL[topic]).ok).toBe(true);
  });

  it.each(SHOPIFY_TOPICS)("refuses a %s payload missing any of its fields", (topic) => {
    for (const field of Object.keys(MINIMAL[topic])) {
      const { [field]: _left, ...rest } = MINIMAL[topic];
      expect(checkTopicPayload(topic, rest), field).toEqual(refused(topic));
    }
  });

  it("ids: positive integers or their digits, nothing else", () => {
    const take = (id: unknown) => checkTopicPayload("products/delete", { id }).ok;
    expect([1, 450789469, "788032119674292922"].map(take)).toEqual([true, true, true]);
    expect([0, -1, 1.5, "", "12a", "a12", " 12", "-3", null].map(take)).toEqual(
      Array(9).fill(false),
    );
  });

  it("a GID must be the topic's resource, and only a GID", () => {
    const order = (gid: string) =>
      checkTopicPayload("orders/create", { id: 1, admin_graphql_api_id: gid, line_items: [] }).ok;
    expect(order("gid://shopify/Order/820982911946154508")).toBe(true);
    expect(order("gid://shopify/Product/1")).toBe(false);
    expect(order("xgid://shopify/Order/1")).toBe(false);
    expect(order("gid://shopify/Order/1/x")).toBe(false);
    expect(order("gid://shopify/Order/")).toBe(false);
    const product = (gid: string) =>
      checkTopicPayload("products/update", { id: 1, admin_graphql_api_id: gid, variants: [] }).ok;
    expect(product("gid://shopify/Product/632910392")).toBe(true);
    expect(product("gid://shopify/Order/632910392")).toBe(false);
  });

  it("the lists and objects must be lists and objects, of the right things", () => {
    expect(checkTopicPayload("orders/paid", { id: 1, line_items: {} })).toEqual(
      refused("orders/paid"),
    );
    expect(checkTopicPayload("products/update", { id: 1, variants: "v" }).ok).toBe(false);
    expect(checkTopicPayload("app/scopes_update", { previous: [1], current: [] }).ok).toBe(false);
    expect(checkTopicPayload("app/scopes_update", { previous: [], current: [true] }).ok).toBe(
      false,
    );
    const redact = MINIMAL["customers/redact"];
    expect(checkTopicPayload("customers/redact", { ...redact, customer: "c" }).ok).toBe(false);
    expect(checkTopicPayload("customers/redact", { ...redact, orders_to_redact: ["x"] }).ok).toBe(
      false,
    );
    expect(
      checkTopicPayload("customers/redact", { ...redact, orders_to_redact: [7, "8"] }).ok,
    ).toBe(true);
    const request = MINIMAL["customers/data_request"];
    expect(
      checkTopicPayload("customers/data_request", { ...request, orders_requested: [0] }).ok,
    ).toBe(false);
    expect(checkTopicPayload("shop/redact", { shop_id: "x", shop_domain: "a" }).ok).toBe(false);
    expect(checkTopicPayload("shop/redact", { shop_id: 1, shop_domain: 1 }).ok).toBe(false);
    expect(checkTopicPayload("app/uninstalled", { id: 1, myshopify_domain: 1 }).ok).toBe(false);
    expect(checkTopicPayload("orders/create", [MINIMAL["orders/create"]]).ok).toBe(false);
    expect(checkTopicPayload("products/delete", null).ok).toBe(false);
  });

  it("a body with another kind's marking field is not this topic's, whatever else it has", () => {
    const markers: [string, unknown, readonly ShopifyTopic[]][] = [
      ["line_items", [], ORDER_TOPICS],
      ["variants", [], ["products/update"]],
      ["myshopify_domain", null, ["app/uninstalled"]],
      ["shop_domain", "a.myshopify.com", COMPLIANCE_TOPICS],
      ["previous", [], ["app/scopes_update"]],
    ];
    for (const [field, value, owners] of markers) {
      for (const topic of SHOPIFY_TOPICS) {
        const result = checkTopicPayload(topic, { ...MINIMAL[topic], [field]: value });
        expect(result.ok, `${field} in ${topic}`).toBe(owners.includes(topic));
        if (!result.ok) expect(result).toEqual(refused(topic));
      }
    }
  });

  it("names the shop the payload names, lower-cased and trimmed, and none otherwise", () => {
    expect(
      checkTopicPayload("shop/redact", { shop_id: 1, shop_domain: " Mine.MyShopify.com " }),
    ).toEqual({ ok: true, shop: "mine.myshopify.com" });
    expect(
      checkTopicPayload("app/uninstalled", { id: 1, myshopify_domain: "MINE.myshopify.com" }),
    ).toEqual({ ok: true, shop: "mine.myshopify.com" });
    expect(checkTopicPayload("app/uninstalled", { id: 1, myshopify_domain: null })).toEqual({
      ok: true,
    });
    expect(checkTopicPayload("orders/create", MINIMAL["orders/create"])).toEqual({ ok: true });
  });
});

describe("acceptsUninstalledShop", () => {
  it("the uninstall and the compliance topics only", () => {
    expect(SHOPIFY_TOPICS.filter(acceptsUninstalledShop)).toEqual([
      "app/uninstalled",
      "customers/data_request",
      "customers/redact",
      "shop/redact",
    ]);
  });
});
