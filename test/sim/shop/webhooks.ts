/**
 * Webhook deliveries as Shopify makes them: the REST-style JSON payload, signed with
 * base64(HMAC-SHA256(raw body, app API secret)) in X-Shopify-Hmac-Sha256.
 */
import { createHmac, randomUUID } from "node:crypto";
import { type OrderRec, type ProductRec, type ShopRec, fulfillmentStatusOf, gid } from "./state";

export function signWebhook(body: string, secret: string): string {
  return createHmac("sha256", secret).update(body, "utf8").digest("base64");
}

export function webhookHeaders(opts: {
  topic: string;
  shop: string;
  body: string;
  secret: string;
  apiVersion: string;
  eventId?: string;
  webhookId?: string;
  forge?: boolean;
}): Record<string, string> {
  return {
    "Content-Type": "application/json",
    "User-Agent": "Shopify-Captain-Hook",
    "X-Shopify-Topic": opts.topic,
    "X-Shopify-Shop-Domain": opts.shop,
    "X-Shopify-Hmac-Sha256": signWebhook(
      opts.body,
      opts.forge ? `forged-${opts.secret}` : opts.secret,
    ),
    "X-Shopify-Webhook-Id": opts.webhookId ?? randomUUID(),
    "X-Shopify-Event-Id": opts.eventId ?? randomUUID(),
    "X-Shopify-Triggered-At": new Date().toISOString(),
    "X-Shopify-API-Version": opts.apiVersion,
  };
}

function address(a: OrderRec["shippingAddress"]) {
  if (!a) return null;
  const name = [a.firstName, a.lastName].filter(Boolean).join(" ");
  return {
    first_name: a.firstName ?? null,
    last_name: a.lastName ?? null,
    name: name || null,
    company: a.company ?? null,
    address1: a.address1 ?? null,
    address2: a.address2 ?? null,
    city: a.city ?? null,
    province: a.province ?? null,
    province_code: a.provinceCode ?? null,
    zip: a.zip ?? null,
    country: a.country ?? null,
    country_code: a.countryCode ?? null,
    phone: a.phone ?? null,
  };
}

/** The orders/* payload (orders/create, orders/paid, orders/updated, orders/cancelled). */
export function orderPayload(shop: ShopRec, o: OrderRec) {
  const total = o.lineItems.reduce((n, l) => n + Number(l.price) * l.quantity, 0).toFixed(2);
  const status = fulfillmentStatusOf(shop, o);
  return {
    id: o.id,
    admin_graphql_api_id: gid("Order", o.id),
    name: o.name,
    order_number: o.number,
    number: o.number - 1000,
    email: o.email,
    contact_email: o.email,
    created_at: o.createdAt,
    updated_at: o.updatedAt,
    processed_at: o.createdAt,
    cancelled_at: o.cancelledAt,
    cancel_reason: o.cancelReason,
    financial_status: o.financialStatus.toLowerCase(),
    fulfillment_status:
      status === "FULFILLED" ? "fulfilled" : status === "PARTIALLY_FULFILLED" ? "partial" : null,
    currency: o.currency,
    presentment_currency: o.currency,
    total_price: total,
    subtotal_price: total,
    test: false,
    shipping_address: address(o.shippingAddress),
    line_items: o.lineItems.map((l) => ({
      id: l.id,
      admin_graphql_api_id: gid("LineItem", l.id),
      variant_id: l.variantId,
      product_id: l.productId,
      sku: l.sku,
      title: l.title,
      variant_title: l.variantTitle,
      name: l.variantTitle ? `${l.title} - ${l.variantTitle}` : l.title,
      quantity: l.quantity,
      current_quantity: l.quantity,
      fulfillable_quantity: l.quantity,
      price: l.price,
      requires_shipping: l.requiresShipping,
      fulfillment_status: null,
      variant_inventory_management: "shopify",
      properties: [],
    })),
    fulfillments: o.fulfillmentIds.map((id) => {
      const f = shop.fulfillments.get(id)!;
      return {
        id: f.id,
        admin_graphql_api_id: gid("Fulfillment", f.id),
        status: f.status.toLowerCase(),
        tracking_number: f.tracking[0]?.number ?? null,
        tracking_url: f.tracking[0]?.url ?? null,
        tracking_company: f.tracking[0]?.company ?? null,
      };
    }),
  };
}

/** The products/update (and products/create) payload. */
export function productPayload(shop: ShopRec, p: ProductRec) {
  const variants = p.variantIds.map((id) => shop.variants.get(id)!);
  return {
    id: p.id,
    admin_graphql_api_id: gid("Product", p.id),
    title: p.title,
    handle: p.handle,
    status: "active",
    created_at: p.updatedAt,
    updated_at: p.updatedAt,
    options: p.optionNames.map((name, i) => ({
      name,
      position: i + 1,
      values: [...new Set(variants.map((v) => v.options[i]).filter(Boolean))],
    })),
    variants: variants.map((v, i) => ({
      id: v.id,
      admin_graphql_api_id: gid("ProductVariant", v.id),
      product_id: p.id,
      title: v.title,
      sku: v.sku,
      price: v.price,
      position: i + 1,
      option1: v.options[0] ?? null,
      option2: v.options[1] ?? null,
      option3: v.options[2] ?? null,
    })),
    image: p.image ? { src: p.image, position: 1 } : null,
    images: p.image ? [{ src: p.image, position: 1 }] : [],
  };
}
