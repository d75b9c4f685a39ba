/** How the pages name orders and tell the shop's time (the states: app/orders/states.ts). */

/** The dashboard's money periods, in days. */
export const PERIODS = [7, 30, 90] as const;

/** An order as the merchant names it: Shopify's name ("#1001"), else its number. */
export function orderName(o: { shopifyOrderName: string | null; shopifyOrderId: string }): string {
  return o.shopifyOrderName ?? `#${o.shopifyOrderId}`;
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
