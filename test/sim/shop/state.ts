/**
 * The shop simulator's state: shops with products, variants, orders, line items, fulfilment
 * orders and fulfilments, kept the way Shopify relates them (an order's lines sit on
 * fulfilment orders, one per location; a fulfilment takes quantities off them).
 */

export type RiskRecommendation = "ACCEPT" | "INVESTIGATE" | "CANCEL" | "NONE";

export interface SimAddress {
  firstName?: string;
  lastName?: string;
  company?: string;
  address1?: string;
  address2?: string;
  city?: string;
  province?: string;
  provinceCode?: string;
  zip?: string;
  country?: string;
  countryCode?: string;
  phone?: string;
}

export interface VariantRec {
  id: number;
  productId: number;
  sku: string;
  price: string;
  title: string;
  options: string[];
  compareAtPrice?: string | null;
  image?: string | null;
  /** The variant's inventory item (same number space as every other id). */
  inventoryItemId?: number;
  /** Whether Shopify tracks the item's inventory (orders then take quantities off). */
  tracked?: boolean;
  /** "available" per location the item is stocked at (a location absent: not stocked there). */
  available?: Map<number, number>;
}

export interface ProductRec {
  id: number;
  title: string;
  handle: string;
  image: string | null;
  optionNames: string[];
  variantIds: number[];
  updatedAt: string;
  descriptionHtml?: string;
  vendor?: string;
  images?: string[];
}

export interface LineItemRec {
  id: number;
  variantId: number | null;
  productId: number | null;
  title: string;
  variantTitle: string | null;
  sku: string;
  quantity: number;
  price: string;
  requiresShipping: boolean;
  image: string | null;
  options: { name: string; value: string }[];
}

export type FulfillmentOrderStatus =
  | "OPEN"
  | "IN_PROGRESS"
  | "CLOSED"
  | "CANCELLED"
  | "INCOMPLETE"
  | "ON_HOLD"
  | "SCHEDULED";

export const FULFILLMENT_ORDER_STATUSES: readonly FulfillmentOrderStatus[] = [
  "OPEN",
  "IN_PROGRESS",
  "CLOSED",
  "CANCELLED",
  "INCOMPLETE",
  "ON_HOLD",
  "SCHEDULED",
];

export interface FulfillmentHoldRec {
  id: number;
  reason: string;
  reasonNotes: string | null;
}

export interface FulfillmentOrderRec {
  id: number;
  orderId: number;
  locationId: number;
  status: FulfillmentOrderStatus;
  /** The status a hold returns to when it is released. */
  statusBeforeHold?: FulfillmentOrderStatus;
  holds: FulfillmentHoldRec[];
  /** When a SCHEDULED fulfilment order opens (ISO). */
  fulfillAt: string | null;
  createdAt: string;
  updatedAt: string;
  lines: {
    id: number;
    lineItemId: number;
    totalQuantity: number;
    remainingQuantity: number;
  }[];
}

/** What Shopify lets an app do with a fulfilment order in this status. */
export function supportedActionsOf(fo: Pick<FulfillmentOrderRec, "status">): string[] {
  switch (fo.status) {
    case "OPEN":
      return ["CREATE_FULFILLMENT", "HOLD", "MOVE", "SPLIT", "CANCEL_FULFILLMENT_ORDER"];
    case "IN_PROGRESS":
      return ["CREATE_FULFILLMENT", "HOLD", "MOVE", "SPLIT"];
    case "ON_HOLD":
      return ["RELEASE_HOLD"];
    case "SCHEDULED":
      return ["MARK_AS_OPEN"];
    default:
      return [];
  }
}

export interface LocationRec {
  id: number;
  name: string;
  /** A location that belongs to a fulfilment service (not merchant-managed). */
  fulfillmentService: boolean;
}

/** The shop's protected customer data access: level 2 with `fields` limits it to those. */
export interface ProtectedDataAccess {
  level: 0 | 1 | 2;
  fields?: ("name" | "email" | "phone" | "address")[];
}

export interface ThrottleBucket {
  maximumAvailable: number;
  restoreRate: number;
  currentlyAvailable: number;
  /** When currentlyAvailable was last brought up to date (ms). */
  at: number;
}

export interface FulfillmentRec {
  id: number;
  orderId: number;
  status: "SUCCESS" | "CANCELLED";
  createdAt: string;
  updatedAt: string;
  tracking: { number: string | null; url: string | null; company: string | null }[];
  lines: { id: number; lineItemId: number; quantity: number }[];
  fulfillmentOrderIds: number[];
  /** How many times the customer was told (creation and tracking updates with notify). */
  notifications: number;
}

export interface OrderRec {
  id: number;
  name: string;
  number: number;
  email: string | null;
  createdAt: string;
  updatedAt: string;
  cancelledAt: string | null;
  cancelReason: string | null;
  currency: string;
  financialStatus: "PENDING" | "PAID" | "REFUNDED" | "VOIDED";
  shippingAddress: SimAddress | null;
  risk: RiskRecommendation;
  riskLevel: "LOW" | "MEDIUM" | "HIGH" | "NONE";
  lineItems: LineItemRec[];
  fulfillmentOrderIds: number[];
  fulfillmentIds: number[];
}

export interface ShopRec {
  domain: string;
  accessToken: string;
  currency: string;
  /** Shopify's `shop.ianaTimezone` (an IANA zone name). */
  ianaTimezone: string;
  products: Map<number, ProductRec>;
  variants: Map<number, VariantRec>;
  orders: Map<number, OrderRec>;
  fulfillmentOrders: Map<number, FulfillmentOrderRec>;
  fulfillments: Map<number, FulfillmentRec>;
  locations: Map<number, LocationRec>;
  defaultLocationId: number;
  /** The app's installed access scopes on this shop. */
  scopes: string[];
  protectedData: ProtectedDataAccess;
  bucket: ThrottleBucket;
  nextOrderNumber: number;
  /** Inventory item id → variant id. */
  inventoryItems?: Map<number, number>;
  /** Results of mutations sent with `@idempotent(key:)`, by key (a repeat gets the same). */
  idempotent?: Map<string, unknown>;
  /** Every inventory change (inventorySetQuantities, orders), newest last. */
  inventoryLog?: {
    itemId: number;
    locationId: number;
    delta: number;
    after: number;
    reason: string;
  }[];
  /** Fault knobs: answer the next N GraphQL calls with THROTTLED, or with an HTTP status. */
  throttleNext: number;
  failNext: { status: number; count: number } | null;
}

export function gid(resource: string, id: number): string {
  return `gid://shopify/${resource}/${id}`;
}

/** The numeric id of a GID of the given resource, or null when it is not one. */
export function parseGid(resource: string, value: unknown): number | null {
  if (typeof value !== "string") return null;
  const m = new RegExp(`^gid://shopify/${resource}/(\\d+)$`).exec(value);
  return m ? Number(m[1]) : null;
}

export function isGid(value: unknown): boolean {
  return typeof value === "string" && /^gid:\/\/shopify\/[A-Za-z]+\/\d+$/.test(value);
}

export function fulfillmentStatusOf(shop: ShopRec, order: OrderRec): string {
  const fos = order.fulfillmentOrderIds.map((id) => shop.fulfillmentOrders.get(id)!);
  const total = fos.reduce((n, fo) => n + fo.lines.reduce((m, l) => m + l.totalQuantity, 0), 0);
  const remaining = fos.reduce(
    (n, fo) => n + fo.lines.reduce((m, l) => m + l.remainingQuantity, 0),
    0,
  );
  if (remaining === total) return "UNFULFILLED";
  if (remaining === 0) return "FULFILLED";
  return "PARTIALLY_FULFILLED";
}

/** How much of each line is still unfulfilled. */
export function unfulfilledOf(shop: ShopRec, order: OrderRec, lineItemId: number): number {
  let n = 0;
  for (const foId of order.fulfillmentOrderIds) {
    const fo = shop.fulfillmentOrders.get(foId)!;
    if (fo.status === "CANCELLED" || fo.status === "INCOMPLETE") continue;
    for (const l of fo.lines) if (l.lineItemId === lineItemId) n += l.remainingQuantity;
  }
  return n;
}

/** The app's scopes (shopify.app.toml), installed on every simulated shop by default. */
export const DEFAULT_SCOPES = [
  "read_orders",
  "read_products",
  "write_products",
  "read_merchant_managed_fulfillment_orders",
  "write_merchant_managed_fulfillment_orders",
  "read_locations",
  "read_inventory",
  "write_inventory",
];
