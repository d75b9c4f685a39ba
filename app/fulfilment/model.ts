/** States, reason codes and small pure helpers of the order pipeline (DESIGN §4). */
import { createHash } from "node:crypto";

export const STATES = [
  "RECEIVED",
  "HELD",
  "CREATED",
  "PAYING",
  "PAID",
  "SHIPPED",
  "FULFILLED",
  "DELIVERED",
  "FAILED",
  "CANCELLED",
] as const;
export type OrderState = (typeof STATES)[number];

/** Why an order is held or failed; the sentence shown to the merchant goes with it. */
export type ReasonCode =
  | "unconnected_lines"
  | "review_window"
  | "fraud_risk"
  | "paused"
  | "invalid_address"
  /** Shopify withholds the customer's name or address: protected customer data not granted. */
  | "protected_data"
  | "no_account"
  | "settings_incomplete"
  | "merchant_hold"
  | "short_balance"
  | "intercepted"
  | "payment_failed"
  | "create_failed"
  | "confirm_unknown"
  | "nothing_to_ship"
  | "cancelled_in_shop"
  | "waiting_connection"
  /** The rules find no shipping method the service offers for the destination. */
  | "no_shipping_method"
  /** The shop's currency has no exchange rate to USD (issue 14: prices go in USD). */
  | "no_fx_rate"
  /** The service kept failing (unreachable, busy): placed again when it answers. */
  | "service_unavailable"
  /** Created at the service, but its cost is over the merchant's cap or its margin too thin. */
  | "cost_guard"
  /**
   * Created at the service, not paid: the shop's warehouse mode needs a shipping label after
   * payment, which the app cannot send (settings.server.ts labelModeReason).
   */
  | "warehouse_mode";

/** Held orders whose cause can go away by itself: the pipeline checks them again. */
export const SELF_RELEASING: ReasonCode[] = [
  "paused",
  "unconnected_lines",
  "no_account",
  "settings_incomplete",
  "review_window",
  // Granted in the Partner Dashboard, out of sight of the app: checked again.
  "protected_data",
  "no_shipping_method",
  "no_fx_rate",
  "service_unavailable",
];

/** States in which nothing has been sent to the service yet. */
export const NOT_PLACED: OrderState[] = ["RECEIVED", "HELD"];
/** States after the payment. */
export const PAID_STATES: OrderState[] = ["PAID", "SHIPPED", "FULFILLED", "DELIVERED"];

/**
 * The service orderNumber of a shop order: stable (a retry sends the same), ≤ 50 characters,
 * unique across the shops of one account (the shop's name and a hash of its domain).
 */
export function orderNumberFor(shopDomain: string, shopifyOrderId: string): string {
  const shop = shopDomain.replace(/\.myshopify\.com$/, "").replace(/[^a-z0-9-]/gi, "");
  const hash = createHash("sha256").update(shopDomain).digest("hex").slice(0, 6);
  const id = shopifyOrderId.replace(/\D/g, "").slice(-20);
  const head = `${shop.slice(0, 50 - id.length - hash.length - 2)}`;
  return `${head}-${hash}-${id}`.slice(0, 50);
}

/** Cuts a text to `max` characters without splitting a character; undefined when empty. */
export function cut(value: string | null | undefined, max: number): string | undefined {
  if (value == null) return undefined;
  const t = value.replace(/\s+/g, " ").trim();
  if (!t) return undefined;
  const chars = Array.from(t);
  return chars.length <= max ? t : chars.slice(0, max).join("").trim();
}

/** The numeric tail of a Shopify id (GID or number), as text. */
export function numericId(value: string | number | null | undefined): string | undefined {
  if (value == null) return undefined;
  const m = /(\d+)(\?.*)?$/.exec(String(value));
  return m?.[1];
}
