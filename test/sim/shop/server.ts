/**
 * The shop simulator: a node:http server that answers the Admin GraphQL API
 * (`POST /admin/api/<version>/graphql.json`) from its own state, checking
 * `X-Shopify-Access-Token`; sends webhooks signed with a real HMAC; and offers a small admin API
 * under `/__sim/…` for other processes.
 *
 * The GraphQL is as strict as Shopify's (engine.ts over Shopify's published 2026-10 schema):
 * validation and variable coercion against the real types, the 1,000-point cost limit, a leaky
 * bucket per shop (setThrottle), ACCESS_DENIED by the shop's installed scopes (setScopes),
 * protected customer data null until granted (setProtectedCustomerData), fulfilment orders in
 * all seven statuses with their supportedActions, holds and schedules, and fulfilment-service
 * locations (addLocation) whose fulfilment orders merchant-managed scopes do not see.
 *
 * Which shop a GraphQL request is for: Shopify knows it from the host name. Requests routed
 * here (see route-shopify.ts) carry it in `X-Sim-Shop-Domain`; a path prefix
 * `/shops/<domain>/admin/api/…` works too (handy with curl).
 */
import { randomBytes } from "node:crypto";
import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { newBucket, runGraphql, throttledBody } from "./engine";
import { type OAuthSim, createOAuthSim } from "./oauth";
import {
  type Ctx,
  holdFulfillmentOrder,
  openDueFulfillmentOrders,
  openScheduledFulfillmentOrder,
  releaseFulfillmentOrderHold,
} from "./schema";
import { ensureItem, takeStock } from "./catalog";
import {
  DEFAULT_SCOPES,
  type FulfillmentOrderRec,
  type FulfillmentOrderStatus,
  type FulfillmentRec,
  type OrderRec,
  type ProtectedDataAccess,
  type RiskRecommendation,
  type ShopRec,
  type SimAddress,
  gid,
  supportedActionsOf,
} from "./state";
import { assertSimPayload, orderPayload, productPayload, webhookHeaders } from "./webhooks";

export interface SimProduct {
  id: string;
  legacyId: number;
  title: string;
  handle: string;
  variants: {
    id: string;
    legacyId: number;
    sku: string;
    price: string;
    title: string;
    compareAtPrice: string | null;
    options: string[];
    tracked: boolean;
    /** "available" at the shop's default location; null when not stocked there. */
    available: number | null;
    inventoryItemId: string | null;
  }[];
  optionNames: string[];
  images: string[];
  descriptionHtml: string;
}

export interface SimOrder {
  id: string;
  legacyId: number;
  name: string;
  lineItems: {
    id: string;
    legacyId: number;
    variantId: string | null;
    sku: string;
    quantity: number;
  }[];
  fulfillmentOrders: {
    id: string;
    status: FulfillmentOrderStatus;
    locationId: string;
    /** What Shopify lets an app do with it in this status (CREATE_FULFILLMENT, …). */
    supportedActions: string[];
    /** Set while SCHEDULED. */
    fulfillAt: string | null;
    holds: { reason: string; reasonNotes: string | null }[];
    lineItems: {
      id: string;
      lineItemId: string;
      totalQuantity: number;
      remainingQuantity: number;
    }[];
  }[];
  displayFulfillmentStatus: string;
}

export interface SimFulfillment {
  id: string;
  orderId: string;
  status: string;
  tracking: { number: string | null; url: string | null; company: string | null }[];
  lineItems: { lineItemId: string; quantity: number }[];
  notifications: number;
}

export interface GraphqlCall {
  shop: string | null;
  apiVersion: string;
  operationName: string | null;
  variables: Record<string, unknown>;
  status: number;
  /** Shopify's cost of the call (null when it was refused before the cost was known). */
  requestedQueryCost: number | null;
  actualQueryCost: number | null;
}

export interface PlaceOrderInput {
  lines: { variantId: string; quantity: number; location?: string; requiresShipping?: boolean }[];
  shippingAddress?: SimAddress | null;
  /** A risk level (LOW → ACCEPT, MEDIUM → INVESTIGATE, HIGH → CANCEL) or the recommendation. */
  risk?: "LOW" | "MEDIUM" | "HIGH" | RiskRecommendation;
  email?: string | null;
  financialStatus?: OrderRec["financialStatus"];
  currency?: string;
  /** Every fulfilment order is SCHEDULED until then (ISO). */
  fulfillAt?: string;
  /**
   * The order's id as Shopify's digits (a documented payload's order, placed under its own id);
   * default a new one. The simulator keys orders by number: an id above 2^53 is kept as its
   * nearest double, so it cannot tell apart two such ids that close.
   */
  id?: string;
  /**
   * Splits each location's lines over up to this many fulfilment orders (round robin), as
   * Shopify does after splits; default 1 per location.
   */
  fulfillmentOrdersPerLocation?: number;
}

export interface ShopSim {
  url: string;
  apiSecret: string;
  appUrl: string | undefined;
  /** The token endpoint's store and knobs (oauth.ts): id tokens, revocation, expiry, clock. */
  oauth: OAuthSim;
  addShop(
    domain: string,
    /** currency: the shop's currency (default USD). */
    opts?: { accessToken?: string; ianaTimezone?: string; currency?: string },
  ): { domain: string; accessToken: string };
  /** Replaces the shop's installed token (the old one then gets 401). */
  rotateToken(domain: string, accessToken?: string): string;
  addProduct(
    domain: string,
    p: {
      title: string;
      handle?: string;
      image?: string;
      optionNames?: string[];
      variants: {
        sku: string;
        price: string;
        title?: string;
        options?: string[];
        /** Tracked, with this "available" at the shop's default location. */
        inventory?: number;
      }[];
    },
  ): SimProduct;
  updateProduct(domain: string, productId: string, patch: { title?: string }): SimProduct;
  placeOrder(domain: string, o: PlaceOrderInput): SimOrder;
  cancelOrder(domain: string, orderId: string, reason?: string): SimOrder;
  /** The merchant edits the order's shipping address in the admin (no webhook sent here). */
  editShippingAddress(domain: string, orderId: string, patch: Partial<SimAddress>): SimOrder;
  order(domain: string, orderId: string): SimOrder;
  orders(domain: string): SimOrder[];
  products(domain: string): SimProduct[];
  fulfillments(domain: string, orderId: string): SimFulfillment[];
  graphqlCalls(): GraphqlCall[];
  /** Answer the next `count` GraphQL calls of the shop with THROTTLED. */
  throttleNext(domain: string, count: number): void;
  /** Answer the next `count` GraphQL calls of the shop with this HTTP status. */
  failNext(domain: string, status: number, count?: number): void;
  /** A location of the shop: merchant-managed, or one of a fulfilment service. */
  addLocation(
    domain: string,
    l: { name: string; fulfillmentService?: boolean },
  ): { id: string; name: string; fulfillmentService: boolean };
  /** Puts a fulfilment order ON_HOLD (from OPEN or IN_PROGRESS). */
  holdFulfillmentOrder(domain: string, fulfillmentOrderId: string, reason?: string): SimOrder;
  /** Releases its holds: back to the status it had before (OPEN or IN_PROGRESS). */
  releaseFulfillmentOrderHold(domain: string, fulfillmentOrderId: string): SimOrder;
  /** SCHEDULED → OPEN (its fulfillAt has come). */
  openScheduledFulfillmentOrder(domain: string, fulfillmentOrderId: string): SimOrder;
  /** Sets any status as is (INCOMPLETE, CLOSED, CANCELLED, …); no rule applied. */
  setFulfillmentOrderStatus(
    domain: string,
    fulfillmentOrderId: string,
    status: FulfillmentOrderStatus,
  ): SimOrder;
  /** The app's installed access scopes on the shop (default DEFAULT_SCOPES). */
  setScopes(domain: string, scopes: string[]): void;
  /**
   * Protected customer data access: true (default) = level 2 with every field; false = not
   * granted (email, names, addresses, phones answered as null); or a level with some fields.
   */
  setProtectedCustomerData(domain: string, access: boolean | ProtectedDataAccess): void;
  /** The shop's throttle bucket (default Standard: 2000 points, 100/s); it starts full. */
  setThrottle(
    domain: string,
    o: { maximumAvailable: number; restoreRate: number; currentlyAvailable?: number },
  ): void;
  /** The bucket as a reply's throttleStatus would show it now. */
  throttleStatus(domain: string): {
    maximumAvailable: number;
    currentlyAvailable: number;
    restoreRate: number;
  };
  /**
   * POSTs a webhook to the app: `${appUrl}${path}` (default path `/webhooks/<topic>`), signed
   * with the API secret (or forged). `payload` is sent as is.
   */
  sendWebhook(
    domain: string,
    topic: string,
    payload: unknown,
    opts?: { forge?: boolean; eventId?: string; webhookId?: string; path?: string; url?: string },
  ): Promise<Response>;
  /** The REST-style payload of an order or product, for sendWebhook. */
  orderWebhookPayload(domain: string, orderId: string): Record<string, unknown>;
  productWebhookPayload(domain: string, productId: string): Record<string, unknown>;
  close(): Promise<void>;
}

const API_VERSION_RE = /^\/(?:shops\/([^/]+)\/)?admin\/api\/(\d{4}-\d{2}|unstable)\/graphql\.json$/;
export const SIM_API_VERSION = "2026-10";

function riskOf(r: PlaceOrderInput["risk"]): {
  risk: RiskRecommendation;
  level: OrderRec["riskLevel"];
} {
  switch (r) {
    case undefined:
    case "LOW":
      return { risk: "ACCEPT", level: "LOW" };
    case "MEDIUM":
      return { risk: "INVESTIGATE", level: "MEDIUM" };
    case "HIGH":
      return { risk: "CANCEL", level: "HIGH" };
    case "NONE":
      return { risk: "NONE", level: "NONE" };
    default:
      return { risk: r, level: r === "ACCEPT" ? "LOW" : r === "INVESTIGATE" ? "MEDIUM" : "HIGH" };
  }
}

export async function startShopSim(
  opts: {
    port?: number;
    apiSecret?: string;
    apiKey?: string;
    appUrl?: string;
    host?: string;
  } = {},
): Promise<ShopSim> {
  const apiSecret = opts.apiSecret ?? "test-api-secret";
  const shops = new Map<string, ShopRec>();
  const oauth = createOAuthSim({
    apiKey: opts.apiKey ?? "test-api-key",
    apiSecret,
    scopesFor: (d) => shops.get(d)?.scopes.join(",") ?? "",
    hasShop: (d) => shops.has(d),
    legacyTokenOf: (d) => shops.get(d)?.accessToken,
  });
  const calls: GraphqlCall[] = [];
  let seq = 1000;
  const nextId = () => ++seq * 7 + 1_000_000; // not consecutive, like Shopify's ids
  const now = () => new Date().toISOString();

  const shopOf = (domain: string): ShopRec => {
    const s = shops.get(domain.toLowerCase());
    if (!s) throw new Error(`sim: unknown shop ${domain}`);
    return s;
  };
  const num = (resource: string, id: string | number): number => {
    if (typeof id === "number") return id;
    const m = new RegExp(`^(?:gid://shopify/${resource}/)?(\\d+)$`).exec(id);
    if (!m) throw new Error(`sim: not a ${resource} id: ${id}`);
    return Number(m[1]);
  };

  const productView = (shop: ShopRec, id: number): SimProduct => {
    const p = shop.products.get(id);
    if (!p) throw new Error(`sim: unknown product ${id}`);
    return {
      id: gid("Product", p.id),
      legacyId: p.id,
      title: p.title,
      handle: p.handle,
      variants: p.variantIds.map((vid) => {
        const v = shop.variants.get(vid)!;
        return {
          id: gid("ProductVariant", v.id),
          legacyId: v.id,
          sku: v.sku,
          price: v.price,
          title: v.title,
          compareAtPrice: v.compareAtPrice ?? null,
          options: v.options,
          tracked: Boolean(v.tracked),
          available: v.available?.get(shop.defaultLocationId) ?? null,
          inventoryItemId:
            v.inventoryItemId === undefined ? null : gid("InventoryItem", v.inventoryItemId),
        };
      }),
      optionNames: p.optionNames,
      images: p.images ?? (p.image ? [p.image] : []),
      descriptionHtml: p.descriptionHtml ?? "",
    };
  };
  const orderView = (shop: ShopRec, id: number): SimOrder => {
    openDueFulfillmentOrders(shop);
    const o = shop.orders.get(id);
    if (!o) throw new Error(`sim: unknown order ${id}`);
    const fos = o.fulfillmentOrderIds.map((fid) => shop.fulfillmentOrders.get(fid)!);
    const remaining = fos.flatMap((f) => f.lines).reduce((n, l) => n + l.remainingQuantity, 0);
    const total = fos.flatMap((f) => f.lines).reduce((n, l) => n + l.totalQuantity, 0);
    return {
      id: gid("Order", o.id),
      legacyId: o.id,
      name: o.name,
      lineItems: o.lineItems.map((l) => ({
        id: gid("LineItem", l.id),
        legacyId: l.id,
        variantId: l.variantId ? gid("ProductVariant", l.variantId) : null,
        sku: l.sku,
        quantity: l.quantity,
      })),
      fulfillmentOrders: fos.map((f) => ({
        id: gid("FulfillmentOrder", f.id),
        status: f.status,
        locationId: gid("Location", f.locationId),
        supportedActions: supportedActionsOf(f),
        fulfillAt: f.fulfillAt,
        holds: f.holds.map((h) => ({ reason: h.reason, reasonNotes: h.reasonNotes })),
        lineItems: f.lines.map((l) => ({
          id: gid("FulfillmentOrderLineItem", l.id),
          lineItemId: gid("LineItem", l.lineItemId),
          totalQuantity: l.totalQuantity,
          remainingQuantity: l.remainingQuantity,
        })),
      })),
      displayFulfillmentStatus:
        remaining === total ? "UNFULFILLED" : remaining === 0 ? "FULFILLED" : "PARTIALLY_FULFILLED",
    };
  };
  const foOf = (domain: string, id: string): { shop: ShopRec; fo: FulfillmentOrderRec } => {
    const shop = shopOf(domain);
    const fo = shop.fulfillmentOrders.get(num("FulfillmentOrder", id));
    if (!fo) throw new Error(`sim: unknown fulfillment order ${id}`);
    return { shop, fo };
  };
  const fulfillmentView = (f: FulfillmentRec): SimFulfillment => ({
    id: gid("Fulfillment", f.id),
    orderId: gid("Order", f.orderId),
    status: f.status,
    tracking: f.tracking.map((t) => ({ ...t })),
    lineItems: f.lines.map((l) => ({
      lineItemId: gid("LineItem", l.lineItemId),
      quantity: l.quantity,
    })),
    notifications: f.notifications,
  });

  const sim: Omit<ShopSim, "url" | "close"> = {
    apiSecret,
    oauth,
    appUrl: opts.appUrl,
    addShop(domain, o = {}) {
      const d = domain.toLowerCase();
      const accessToken = o.accessToken ?? `simtoken_${randomBytes(16).toString("hex")}`;
      const locationId = nextId();
      shops.set(d, {
        domain: d,
        accessToken,
        currency: o.currency ?? "USD",
        // A shop's zone is rarely UTC: the sandbox and tests see times converted.
        ianaTimezone: o.ianaTimezone ?? "America/New_York",
        products: new Map(),
        variants: new Map(),
        orders: new Map(),
        fulfillmentOrders: new Map(),
        fulfillments: new Map(),
        locations: new Map([
          [locationId, { id: locationId, name: "Shop location", fulfillmentService: false }],
        ]),
        defaultLocationId: locationId,
        scopes: [...DEFAULT_SCOPES],
        protectedData: { level: 2 },
        bucket: newBucket(),
        nextOrderNumber: 1001,
        throttleNext: 0,
        failNext: null,
      });
      return { domain: d, accessToken };
    },
    rotateToken(domain, token) {
      const shop = shopOf(domain);
      shop.accessToken = token ?? `simtoken_${randomBytes(16).toString("hex")}`;
      return shop.accessToken;
    },
    addProduct(domain, p) {
      const shop = shopOf(domain);
      const id = nextId();
      const optionNames =
        p.optionNames ??
        (p.variants.some((v) => v.options?.length)
          ? ["Option1", "Option2", "Option3"].slice(
              0,
              Math.max(...p.variants.map((v) => v.options?.length ?? 0)),
            )
          : ["Title"]);
      const variantIds = p.variants.map((v) => {
        const vid = nextId();
        const options = v.options?.length ? v.options : [v.title ?? "Default Title"];
        shop.variants.set(vid, {
          id: vid,
          productId: id,
          sku: v.sku,
          price: v.price,
          title: v.title ?? options.join(" / "),
          options,
        });
        if (v.inventory !== undefined) {
          const rec = shop.variants.get(vid)!;
          rec.tracked = true;
          ensureItem(shop, rec, nextId);
          rec.available!.set(shop.defaultLocationId, v.inventory);
        }
        return vid;
      });
      shop.products.set(id, {
        id,
        title: p.title,
        handle:
          p.handle ??
          p.title
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, "-")
            .replace(/^-|-$/g, ""),
        image: p.image ?? null,
        optionNames,
        variantIds,
        updatedAt: now(),
      });
      return productView(shop, id);
    },
    updateProduct(domain, productId, patch) {
      const shop = shopOf(domain);
      const p = shop.products.get(num("Product", productId));
      if (!p) throw new Error(`sim: unknown product ${productId}`);
      if (patch.title) p.title = patch.title;
      p.updatedAt = now();
      return productView(shop, p.id);
    },
    placeOrder(domain, o) {
      const shop = shopOf(domain);
      const id = o.id === undefined ? nextId() : num("Order", o.id);
      if (shop.orders.has(id)) throw new Error(`sim: order ${o.id} exists`);
      const { risk, level } = riskOf(o.risk);
      const number = shop.nextOrderNumber++;
      const lineItems = o.lines.map((l) => {
        if (!Number.isInteger(l.quantity) || l.quantity <= 0)
          throw new Error("sim: quantity must be a positive integer");
        const v = shop.variants.get(num("ProductVariant", l.variantId));
        if (!v) throw new Error(`sim: unknown variant ${l.variantId}`);
        const p = shop.products.get(v.productId)!;
        return {
          rec: {
            id: nextId(),
            variantId: v.id,
            productId: p.id,
            title: p.title,
            variantTitle: v.title === "Default Title" ? null : v.title,
            sku: v.sku,
            quantity: l.quantity,
            price: v.price,
            requiresShipping: l.requiresShipping ?? true,
            image: p.image,
            options: v.options.map((value, i) => ({
              name: p.optionNames[i] ?? `Option${i + 1}`,
              value,
            })),
          },
          location: l.location,
        };
      });
      const created = now();
      const order: OrderRec = {
        id,
        name: `#${number}`,
        number,
        email: o.email === undefined ? "customer@example.com" : o.email,
        createdAt: created,
        updatedAt: created,
        cancelledAt: null,
        cancelReason: null,
        currency: o.currency ?? shop.currency,
        financialStatus: o.financialStatus ?? "PAID",
        shippingAddress:
          o.shippingAddress === undefined
            ? {
                firstName: "Ada",
                lastName: "Lovelace",
                address1: "1 Main St",
                city: "Springfield",
                province: "Illinois",
                provinceCode: "IL",
                zip: "62701",
                country: "United States",
                countryCode: "US",
                phone: "+15555550100",
              }
            : o.shippingAddress,
        risk,
        riskLevel: level,
        lineItems: lineItems.map((l) => l.rec),
        fulfillmentOrderIds: [],
        fulfillmentIds: [],
      };
      // One fulfilment order per location (or `fulfillmentOrdersPerLocation`), holding the
      // lines that need shipping there.
      const byLocation = new Map<number, typeof lineItems>();
      for (const l of lineItems) {
        if (!l.rec.requiresShipping) continue;
        let locId = shop.defaultLocationId;
        if (l.location) {
          const found = [...shop.locations.values()].find((x) => x.name === l.location);
          locId = found ? found.id : nextId();
          if (!found)
            shop.locations.set(locId, { id: locId, name: l.location, fulfillmentService: false });
        }
        byLocation.set(locId, [...(byLocation.get(locId) ?? []), l]);
        // A tracked variant stocked at the location: the order takes its quantity off.
        const variant = l.rec.variantId === null ? undefined : shop.variants.get(l.rec.variantId);
        if (variant) takeStock(shop, variant, locId, l.rec.quantity);
      }
      const per = Math.max(1, Math.floor(o.fulfillmentOrdersPerLocation ?? 1));
      for (const [locationId, lines] of byLocation) {
        const parts = Array.from({ length: Math.min(per, lines.length) }, () => [] as typeof lines);
        lines.forEach((l, i) => parts[i % parts.length]!.push(l));
        for (const part of parts) {
          const foId = nextId();
          shop.fulfillmentOrders.set(foId, {
            id: foId,
            orderId: id,
            locationId,
            status: o.fulfillAt ? "SCHEDULED" : "OPEN",
            holds: [],
            fulfillAt: o.fulfillAt ?? null,
            createdAt: created,
            updatedAt: created,
            lines: part.map((l) => ({
              id: nextId(),
              lineItemId: l.rec.id,
              totalQuantity: l.rec.quantity,
              remainingQuantity: l.rec.quantity,
            })),
          });
          order.fulfillmentOrderIds.push(foId);
        }
      }
      shop.orders.set(id, order);
      return orderView(shop, id);
    },
    cancelOrder(domain, orderId, reason = "CUSTOMER") {
      const shop = shopOf(domain);
      const o = shop.orders.get(num("Order", orderId));
      if (!o) throw new Error(`sim: unknown order ${orderId}`);
      o.cancelledAt = now();
      o.cancelReason = reason;
      o.updatedAt = o.cancelledAt;
      for (const foId of o.fulfillmentOrderIds) {
        const fo = shop.fulfillmentOrders.get(foId)!;
        if (fo.status === "IN_PROGRESS") fo.status = "CLOSED";
        else if (["OPEN", "ON_HOLD", "SCHEDULED"].includes(fo.status)) fo.status = "CANCELLED";
      }
      return orderView(shop, o.id);
    },
    order: (domain, orderId) => orderView(shopOf(domain), num("Order", orderId)),
    editShippingAddress(domain, orderId, patch) {
      const shop = shopOf(domain);
      const rec = shop.orders.get(num("Order", orderId));
      if (!rec) throw new Error(`sim: unknown order ${orderId}`);
      if (!rec.shippingAddress) throw new Error("sim: the order has no shipping address");
      rec.shippingAddress = { ...rec.shippingAddress, ...patch };
      return orderView(shop, rec.id);
    },
    orders: (domain) =>
      [...shopOf(domain).orders.keys()].map((id) => orderView(shopOf(domain), id)),
    products: (domain) =>
      [...shopOf(domain).products.keys()].map((id) => productView(shopOf(domain), id)),
    fulfillments(domain, orderId) {
      const shop = shopOf(domain);
      const o = shop.orders.get(num("Order", orderId));
      if (!o) throw new Error(`sim: unknown order ${orderId}`);
      return o.fulfillmentIds.map((id) => fulfillmentView(shop.fulfillments.get(id)!));
    },
    graphqlCalls: () => calls.map((c) => ({ ...c })),
    throttleNext(domain, count) {
      shopOf(domain).throttleNext = count;
    },
    failNext(domain, status, count = 1) {
      shopOf(domain).failNext = { status, count };
    },
    addLocation(domain, l) {
      const shop = shopOf(domain);
      const id = nextId();
      const rec = { id, name: l.name, fulfillmentService: l.fulfillmentService ?? false };
      shop.locations.set(id, rec);
      return {
        id: gid("Location", id),
        name: rec.name,
        fulfillmentService: rec.fulfillmentService,
      };
    },
    holdFulfillmentOrder(domain, foId, reason = "OTHER") {
      const { shop, fo } = foOf(domain, foId);
      const err = holdFulfillmentOrder(fo, { id: nextId(), reason, reasonNotes: null }, now());
      if (err) throw new Error(`sim: ${err}`);
      return orderView(shop, fo.orderId);
    },
    releaseFulfillmentOrderHold(domain, foId) {
      const { shop, fo } = foOf(domain, foId);
      const err = releaseFulfillmentOrderHold(fo, now());
      if (err) throw new Error(`sim: ${err}`);
      return orderView(shop, fo.orderId);
    },
    openScheduledFulfillmentOrder(domain, foId) {
      const { shop, fo } = foOf(domain, foId);
      const err = openScheduledFulfillmentOrder(fo, now());
      if (err) throw new Error(`sim: ${err}`);
      return orderView(shop, fo.orderId);
    },
    setFulfillmentOrderStatus(domain, foId, status) {
      const { shop, fo } = foOf(domain, foId);
      fo.status = status;
      if (status !== "ON_HOLD") fo.holds = [];
      if (status !== "SCHEDULED") fo.fulfillAt = null;
      fo.updatedAt = now();
      return orderView(shop, fo.orderId);
    },
    setScopes(domain, scopes) {
      shopOf(domain).scopes = [...scopes];
    },
    setProtectedCustomerData(domain, access) {
      shopOf(domain).protectedData =
        typeof access === "boolean" ? { level: access ? 2 : 0 } : { ...access };
    },
    setThrottle(domain, o) {
      const shop = shopOf(domain);
      shop.bucket = newBucket(o);
      if (o.currentlyAvailable !== undefined) shop.bucket.currentlyAvailable = o.currentlyAvailable;
    },
    throttleStatus(domain) {
      const b = shopOf(domain).bucket;
      const gained = ((Date.now() - b.at) / 1000) * b.restoreRate;
      return {
        maximumAvailable: b.maximumAvailable,
        currentlyAvailable: Math.floor(Math.min(b.maximumAvailable, b.currentlyAvailable + gained)),
        restoreRate: b.restoreRate,
      };
    },
    async sendWebhook(domain, topic, payload, o = {}) {
      const target =
        o.url ??
        `${o.path?.startsWith("http") ? "" : (opts.appUrl ?? "")}${o.path ?? `/webhooks/${topic}`}`;
      if (!/^https?:\/\//.test(target))
        throw new Error("sim: sendWebhook needs appUrl (startShopSim) or an absolute url");
      // A payload the simulator built must be one Shopify could send (its published schema).
      assertSimPayload(topic, payload);
      const body = JSON.stringify(payload);
      return fetch(target, {
        method: "POST",
        body,
        headers: webhookHeaders({
          topic,
          shop: domain,
          body,
          secret: apiSecret,
          apiVersion: SIM_API_VERSION,
          eventId: o.eventId,
          webhookId: o.webhookId,
          forge: o.forge,
        }),
      });
    },
    orderWebhookPayload(domain, orderId) {
      const shop = shopOf(domain);
      const o = shop.orders.get(num("Order", orderId));
      if (!o) throw new Error(`sim: unknown order ${orderId}`);
      return orderPayload(shop, o);
    },
    productWebhookPayload(domain, productId) {
      const shop = shopOf(domain);
      const p = shop.products.get(num("Product", productId));
      if (!p) throw new Error(`sim: unknown product ${productId}`);
      return productPayload(shop, p);
    },
  };

  // --- HTTP ----------------------------------------------------------------------------------

  const send = (
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { "Content-Type": "application/json; charset=utf-8", ...headers });
    res.end(JSON.stringify(body));
  };

  const readBody = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on("data", (c: Buffer) => {
        size += c.length;
        if (size > 5_000_000) reject(new Error("body too large"));
        else chunks.push(c);
      });
      req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      req.on("error", reject);
    });

  /**
   * Whether the request may use the shop's Admin API: "ok", or why not (401). One small
   * function so that the token rules can change in one place.
   */
  function tokenStatus(req: IncomingMessage, shop: ShopRec): "ok" | "invalid" {
    const token = req.headers["x-shopify-access-token"];
    if (typeof token !== "string") return "invalid";
    return oauth.accessTokenStatus(shop.domain, token) === "ok" ? "ok" : "invalid";
  }

  async function handleGraphql(
    req: IncomingMessage,
    res: ServerResponse,
    pathShop: string | undefined,
    apiVersion: string,
  ) {
    const raw = await readBody(req);
    const domain =
      (pathShop
        ? decodeURIComponent(pathShop)
        : (req.headers["x-sim-shop-domain"] as string | undefined)
      )?.toLowerCase() ?? null;
    const call: GraphqlCall = {
      shop: domain,
      apiVersion,
      operationName: null,
      variables: {},
      status: 200,
      requestedQueryCost: null,
      actualQueryCost: null,
    };
    calls.push(call);
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      call.status = status;
      send(res, status, body, {
        "X-Shopify-API-Version": apiVersion,
        "X-Request-Id": randomBytes(8).toString("hex"),
        ...headers,
      });
    };
    let body: { query?: unknown; variables?: unknown; operationName?: unknown };
    try {
      body = JSON.parse(raw);
    } catch {
      return reply(400, { errors: { query: "Required parameter missing or invalid" } });
    }
    call.variables =
      body.variables && typeof body.variables === "object"
        ? (body.variables as Record<string, unknown>)
        : {};
    if (typeof body.query === "string")
      call.operationName = /\b(?:query|mutation)\s+([A-Za-z_]\w*)/.exec(body.query)?.[1] ?? null;
    const shop = domain ? shops.get(domain) : undefined;
    if (!shop) return reply(404, { errors: "Not Found" });
    if (tokenStatus(req, shop) !== "ok") {
      return reply(401, {
        errors: "[API] Invalid API key or access token (unrecognized login or wrong password)",
      });
    }
    if (shop.failNext && shop.failNext.count > 0) {
      const { status } = shop.failNext;
      if (--shop.failNext.count === 0) shop.failNext = null;
      return reply(
        status,
        {
          errors:
            status === 429
              ? "Exceeded 2 calls per second for api client."
              : "Internal Server Error",
        },
        status === 429 ? { "Retry-After": "1" } : {},
      );
    }
    if (shop.throttleNext > 0) {
      shop.throttleNext--;
      return reply(200, throttledBody(shop.bucket, 10, true));
    }
    const ctx: Ctx = { shop, nextId, now };
    const out = runGraphql(
      { query: body.query, variables: body.variables, operationName: body.operationName },
      ctx,
    );
    if (out.operationName) call.operationName = out.operationName;
    call.requestedQueryCost = out.requestedQueryCost;
    call.actualQueryCost = out.actualQueryCost;
    return reply(200, out.body);
  }

  async function handleAdmin(req: IncomingMessage, res: ServerResponse, path: string) {
    const parts = path.split("/").filter(Boolean).slice(1).map(decodeURIComponent); // drop "__sim"
    const method = req.method ?? "GET";
    const json = async () => {
      const raw = await readBody(req);
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- GraphQL values are untyped JSON
      return (raw ? JSON.parse(raw) : {}) as Record<string, any>;
    };
    const [a, domain, b, id, c] = parts;
    if (method === "GET" && a === "calls") return send(res, 200, sim.graphqlCalls());
    if (method === "POST" && a === "shops" && !domain) {
      const body = await json();
      return send(res, 200, sim.addShop(String(body.domain), { accessToken: body.accessToken }));
    }
    if (a !== "shops" || !domain) return send(res, 404, { error: "unknown sim route" });
    if (b === "products" && method === "POST" && !id)
      return send(res, 200, sim.addProduct(domain, (await json()) as never));
    if (b === "products" && method === "GET" && !id) return send(res, 200, sim.products(domain));
    if (b === "orders" && method === "POST" && !id)
      return send(res, 200, sim.placeOrder(domain, (await json()) as never));
    if (b === "orders" && method === "GET" && !id) return send(res, 200, sim.orders(domain));
    if (b === "orders" && method === "GET" && id && !c)
      return send(res, 200, sim.order(domain, id));
    if (b === "orders" && method === "GET" && id && c === "fulfillments")
      return send(res, 200, sim.fulfillments(domain, id));
    if (b === "orders" && method === "POST" && id && c === "cancel")
      return send(res, 200, sim.cancelOrder(domain, id, (await json()).reason));
    if (b === "token" && method === "POST")
      return send(res, 200, { accessToken: sim.rotateToken(domain, (await json()).accessToken) });
    if (b === "throttle" && method === "POST") {
      sim.throttleNext(domain, Number((await json()).count ?? 1));
      return send(res, 200, { ok: true });
    }
    if (b === "locations" && method === "POST" && !id) {
      const body = await json();
      return send(
        res,
        200,
        sim.addLocation(domain, {
          name: String(body.name),
          fulfillmentService: body.fulfillmentService === true,
        }),
      );
    }
    if (b === "fulfillment-orders" && method === "POST" && id) {
      const body = await json();
      if (c === "hold") return send(res, 200, sim.holdFulfillmentOrder(domain, id, body.reason));
      if (c === "release") return send(res, 200, sim.releaseFulfillmentOrderHold(domain, id));
      if (c === "open") return send(res, 200, sim.openScheduledFulfillmentOrder(domain, id));
      if (c === "status")
        return send(res, 200, sim.setFulfillmentOrderStatus(domain, id, body.status));
    }
    if (b === "scopes" && method === "POST") {
      sim.setScopes(domain, (await json()).scopes as string[]);
      return send(res, 200, { ok: true });
    }
    if (b === "protected-customer-data" && method === "POST") {
      const body = await json();
      sim.setProtectedCustomerData(
        domain,
        typeof body.granted === "boolean" ? body.granted : (body as ProtectedDataAccess),
      );
      return send(res, 200, { ok: true });
    }
    if (b === "bucket" && method === "POST") {
      sim.setThrottle(domain, (await json()) as never);
      return send(res, 200, sim.throttleStatus(domain));
    }
    if (b === "bucket" && method === "GET") return send(res, 200, sim.throttleStatus(domain));
    if (b === "webhooks" && method === "POST") {
      const body = await json();
      const payload =
        body.payload ??
        (body.orderId
          ? sim.orderWebhookPayload(domain, String(body.orderId))
          : body.productId
            ? sim.productWebhookPayload(domain, String(body.productId))
            : {});
      const r = await sim.sendWebhook(domain, String(body.topic), payload, {
        forge: body.forge,
        eventId: body.eventId,
        path: body.path,
        url: body.url,
      });
      return send(res, 200, { status: r.status });
    }
    return send(res, 404, { error: "unknown sim route" });
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    const m = API_VERSION_RE.exec(path);
    const run = async () => {
      if (m && req.method === "POST") return handleGraphql(req, res, m[1], m[2]!);
      if (path.startsWith("/__sim/")) return handleAdmin(req, res, path);
      const t = /^\/(?:shops\/([^/]+)\/)?admin\/oauth\/access_token$/.exec(path);
      if (t && req.method === "POST") {
        const d = t[1] ? decodeURIComponent(t[1]) : req.headers["x-sim-shop-domain"];
        const r = await oauth.handleTokenRequest(
          String(d ?? ""),
          await readBody(req),
          req.headers["content-type"],
        );
        return send(res, r.status, r.body);
      }
      return send(res, 404, { errors: "Not Found" });
    };
    run().catch((e: unknown) => {
      if (!res.headersSent)
        send(res, e instanceof Error && e.message.startsWith("sim:") ? 400 : 500, {
          error: e instanceof Error ? e.message : String(e),
        });
      else res.end();
    });
  });
  // Idle keep-alive sockets are closed by the client first (undici: 4 s), never by the server
  // (Node: 5 s): on a loaded machine the client's timer fires late and it reused a socket the
  // server had just closed (ECONNRESET in CI).
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 61_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    ...sim,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
