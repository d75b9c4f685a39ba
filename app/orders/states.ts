/**
 * The order's states and reasons: the one list, read by the pipeline, the pages, the emails, the
 * metrics and the admin extensions. No imports, so that browser code can use it too.
 */
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

/** Whether a text (a row's column, a request's field) names one of the states. */
export function isOrderState(s: string): s is OrderState {
  return (STATES as readonly string[]).includes(s);
}

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

/** The states as the merchant reads them. */
export const STATE_LABELS: Record<OrderState, string> = {
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

/** Each state in one plain sentence, with the reason when held or failed (admin extensions). */
export const STATE_SENTENCES: Record<OrderState, (reason: string | null) => string> = {
  RECEIVED: () => "Received: being sent to the supplier.",
  HELD: (reason) => `Held: ${reason ?? "waiting for you."}`,
  CREATED: () => "Placed with the supplier, waiting for payment from your balance.",
  PAYING: () => "Being paid from your balance.",
  PAID: () => "Paid: the supplier is preparing it.",
  SHIPPED: () => "Shipped: the tracking is being added to this order.",
  FULFILLED: () => "Shipped: the tracking is on this order.",
  DELIVERED: () => "Delivered.",
  FAILED: (reason) => `Failed: ${reason ?? "see the app's order page."}`,
  CANCELLED: () => "Cancelled: it will not be sent.",
};

/** What the service is doing with an order it holds, in the merchant's words. */
export const STATE_SERVICE_STATUS: Partial<Record<OrderState, string>> = {
  CREATED: "Waiting for payment",
  PAYING: "Being paid",
  PAID: "Paid, being prepared",
  SHIPPED: "Shipped",
  FULFILLED: "Shipped",
  DELIVERED: "Delivered",
};

export type StateTone = "new" | "info" | "warning" | "success" | "critical" | "neutral";

/** Each state's badge tone (Polaris's names; "new" and "neutral" map per component library). */
export const STATE_TONES: Record<OrderState, StateTone> = {
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
export const PROBLEM_STATES: OrderState[] = ["HELD", "FAILED"];

/**
 * An order that only waits for the review window is scheduled, not held: the pipeline places it
 * by itself at its time. Pages, the dashboard and the emails treat it as a plan, not a problem.
 */
export function isScheduled(o: { state: string; reasonCode: string | null }): boolean {
  return o.state === "HELD" && o.reasonCode === "review_window";
}

/** The badge's words and tone for an order (a scheduled order is not "Held"). */
export function stateLabelOf(o: { state: string; reasonCode: string | null }): {
  label: string;
  tone: StateTone;
} {
  if (isScheduled(o)) return { label: "Scheduled", tone: "info" };
  if (!isOrderState(o.state)) return { label: o.state, tone: "neutral" };
  return { label: STATE_LABELS[o.state], tone: STATE_TONES[o.state] };
}
