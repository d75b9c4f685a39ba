/**
 * What each Shopify webhook topic the app subscribes to must look like at the edge.
 *
 * Shopify signs only the body. The topic and shop come in unsigned headers, so a captured
 * signed body can be replayed under another topic or another shop's domain. The checks here
 * bind the unsigned headers to the signed body as far as the body allows:
 * - the body must be a payload of the route's topic (a minimal zod shape per topic, plus no
 *   field that marks another topic's payload: an orders body is no products/delete body);
 * - where the payload names its shop (compliance: `shop_domain`; app/uninstalled:
 *   `myshopify_domain`), that shop must be the header's.
 * Shapes are minimal on purpose (only what tells topics apart and what the handlers rely on),
 * so a field Shopify adds or omits tomorrow does not make the app refuse real deliveries.
 */
import { z } from "zod";

export const SHOPIFY_TOPICS = [
  "app/uninstalled",
  "app/scopes_update",
  "orders/create",
  "orders/paid",
  "orders/updated",
  "orders/cancelled",
  "products/update",
  "products/delete",
  "customers/data_request",
  "customers/redact",
  "shop/redact",
] as const;
export type ShopifyTopic = (typeof SHOPIFY_TOPICS)[number];

export const COMPLIANCE_TOPICS = [
  "customers/data_request",
  "customers/redact",
  "shop/redact",
] as const satisfies readonly ShopifyTopic[];

/** A Shopify id as the lossless parse gives it: a safe integer or the digits of a larger one. */
const id = z.union([z.number().int().positive(), z.string().regex(/^\d+$/)]);
const gidOf = (resource: string) =>
  z.string().regex(new RegExp(`^gid://shopify/${resource}/\\d+$`));
const record = z.record(z.string(), z.unknown());

const order = z.object({
  id,
  admin_graphql_api_id: gidOf("Order").optional(),
  line_items: z.array(z.unknown()),
});

const compliance = { shop_id: id, shop_domain: z.string() };

const SHAPES: Record<ShopifyTopic, z.ZodType> = {
  // The shop object; `myshopify_domain` is always there (Shopify's schema requires it), though
  // the documented example leaves it null.
  "app/uninstalled": z.object({ id, myshopify_domain: z.string().nullable() }),
  "app/scopes_update": z.object({ previous: z.array(z.string()), current: z.array(z.string()) }),
  "orders/create": order,
  "orders/paid": order,
  "orders/updated": order,
  "orders/cancelled": order,
  "products/update": z.object({
    id,
    admin_graphql_api_id: gidOf("Product").optional(),
    variants: z.array(z.unknown()),
  }),
  "products/delete": z.object({ id }),
  "customers/data_request": z.object({
    ...compliance,
    customer: record,
    orders_requested: z.array(id),
  }),
  "customers/redact": z.object({ ...compliance, customer: record, orders_to_redact: z.array(id) }),
  "shop/redact": z.object(compliance),
};

/** Top-level fields that only one kind of payload has: a body with one is that kind's. */
const MARKERS: Record<string, readonly ShopifyTopic[]> = {
  line_items: ["orders/create", "orders/paid", "orders/updated", "orders/cancelled"],
  variants: ["products/update"],
  myshopify_domain: ["app/uninstalled"],
  shop_domain: COMPLIANCE_TOPICS,
  previous: ["app/scopes_update"],
};

export type PayloadCheck =
  | { ok: true; /** The shop the payload names, lower-cased, when it names one. */ shop?: string }
  | { ok: false; reason: string };

/** Whether the (already parsed) payload is one of `topic`, and the shop it names. */
export function checkTopicPayload(topic: ShopifyTopic, payload: unknown): PayloadCheck {
  const parsed = SHAPES[topic].safeParse(payload);
  if (!parsed.success) return { ok: false, reason: `body is not a ${topic} payload` };
  const body = payload as Record<string, unknown>;
  for (const [field, topics] of Object.entries(MARKERS)) {
    if (field in body && !topics.includes(topic)) {
      return { ok: false, reason: `body is not a ${topic} payload` };
    }
  }
  const named = body.shop_domain ?? body.myshopify_domain;
  return typeof named === "string" ? { ok: true, shop: named.trim().toLowerCase() } : { ok: true };
}

/**
 * Topics that may arrive for a shop that is not (or no longer) installed: the uninstall itself
 * and the compliance topics, which Shopify sends up to 48 hours after an uninstall and later.
 * Every other topic needs an installed shop.
 */
export function acceptsUninstalledShop(topic: ShopifyTopic): boolean {
  return topic === "app/uninstalled" || (COMPLIANCE_TOPICS as readonly string[]).includes(topic);
}
