/** The pipeline's states as the pages show them (shared by server and browser code). */
export const ORDER_STATES = [
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
export type OrderStateName = (typeof ORDER_STATES)[number];

/** The states as the merchant reads them. */
export const STATE_LABELS: Record<string, string> = {
  RECEIVED: "Received",
  HELD: "Held",
  CREATED: "Placed",
  PAYING: "Paying",
  PAID: "Paid",
  SHIPPED: "Shipped",
  FULFILLED: "Tracking sent",
  DELIVERED: "Delivered",
  FAILED: "Failed",
  CANCELLED: "Cancelled",
};

/** Each state's badge tone (Polaris's names; "new" and "neutral" map per component library). */
export const STATE_TONES: Record<
  string,
  "new" | "info" | "warning" | "success" | "critical" | "neutral"
> = {
  RECEIVED: "new",
  HELD: "warning",
  CREATED: "info",
  PAYING: "info",
  PAID: "success",
  SHIPPED: "success",
  FULFILLED: "success",
  DELIVERED: "success",
  FAILED: "critical",
  CANCELLED: "neutral",
};

/** States that need the merchant. */
export const PROBLEM_STATES: OrderStateName[] = ["HELD", "FAILED"];

/** The dashboard's money periods, in days. */
export const PERIODS = [7, 30, 90] as const;

/** An order as the merchant names it: Shopify's name ("#1001"), else its number. */
export function orderName(o: { shopifyOrderName: string | null; shopifyOrderId: string }): string {
  return o.shopifyOrderName ?? `#${o.shopifyOrderId}`;
}
