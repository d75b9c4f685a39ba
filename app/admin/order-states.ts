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
  tone: "new" | "info" | "warning" | "success" | "critical" | "neutral";
} {
  if (isScheduled(o)) return { label: "Scheduled", tone: "info" };
  return { label: STATE_LABELS[o.state] ?? o.state, tone: STATE_TONES[o.state] ?? "neutral" };
}

/**
 * A time as the shop reads it: "05:39" in the shop's time zone (IANA name, as Shopify's
 * `shop.ianaTimezone` gives it; UTC when unknown), with the day when it is not the same day as
 * `sameDayAs`. Server and browser render the same text: the zone is explicit.
 */
export function shopClock(iso: string, timeZone: string | null | undefined, sameDayAs?: string) {
  const zone = validZone(timeZone);
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "—";
  const time = new Intl.DateTimeFormat("en-GB", {
    timeZone: zone,
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(d);
  const day = (x: Date) =>
    new Intl.DateTimeFormat("en-GB", { timeZone: zone, day: "numeric", month: "short" }).format(x);
  const ref = sameDayAs ? new Date(sameDayAs) : null;
  return ref && !Number.isNaN(ref.getTime()) && day(ref) !== day(d) ? `${day(d)}, ${time}` : time;
}

/** A date and time in the shop's time zone: "27 Nov 2026, 05:39 CET". */
export function shopDateTime(iso: string | null | undefined, timeZone: string | null | undefined) {
  if (!iso) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "—";
  return new Intl.DateTimeFormat("en-GB", {
    timeZone: validZone(timeZone),
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZoneName: "short",
  }).format(d);
}

/** The zone when the runtime knows it, else UTC. */
export function validZone(timeZone: string | null | undefined): string {
  if (!timeZone) return "UTC";
  try {
    new Intl.DateTimeFormat("en-GB", { timeZone });
    return timeZone;
  } catch {
    return "UTC";
  }
}

/** "Scheduled · places at 05:39": what a scheduled order says instead of a hold reason. */
export function scheduledText(
  placeAfter: string | null,
  timeZone: string | null | undefined,
  createdAt?: string,
): string {
  return placeAfter
    ? `Scheduled · places at ${shopClock(placeAfter, timeZone, createdAt)}`
    : "Scheduled · places shortly";
}
