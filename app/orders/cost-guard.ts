/**
 * The cost guard (issue 16): before an order created at the service goes into an automatic
 * payment, its cost (the service's orderAmount: items and shipping, USD) is held against the
 * merchant's cap and minimum margin. An order over either is held with the figures in the
 * reason; the merchant releases it (pays it anyway) or changes the settings (it is checked
 * again). Money in cents, never floats.
 */
import type { ShopSettings } from "../settings.server";

export interface GuardFacts {
  /** The service's orderAmount (USD). */
  amount: string | null;
  /** The chosen shipping's quoted price (USD), for the figures. */
  shippingCost: string | null;
  /** The shop order's total, in `currency`, and the rate to USD recorded when placing. */
  shopTotal: string | null;
  currency: string | null;
  fxRate: string | null;
}

function cents(v: string): number {
  return Math.round(Number(v) * 100);
}

function usd(c: number): string {
  return `${(c / 100).toFixed(2)} USD`;
}

/** Why automatic payment must not pay this order (a sentence with the figures), or null. */
export function costGuardReason(
  settings: Pick<ShopSettings, "costCapUsd" | "minMarginPct">,
  o: GuardFacts,
): string | null {
  if (!o.amount || !Number.isFinite(Number(o.amount))) return null;
  const cost = cents(o.amount);
  const shipping =
    o.shippingCost && Number.isFinite(Number(o.shippingCost))
      ? ` (shipping ${usd(cents(o.shippingCost))} included)`
      : "";
  const after = "Release it to pay it anyway, or change the cost guard in Settings.";
  if (settings.costCapUsd) {
    const cap = cents(settings.costCapUsd);
    if (cost > cap)
      return `Held before payment: the service asks ${usd(cost)}${shipping}, over your cap of ${usd(cap)}. ${after}`;
  }
  if (settings.minMarginPct && o.shopTotal) {
    const rate = o.currency === "USD" ? 1 : o.fxRate ? Number(o.fxRate) : NaN;
    const total = Math.round(Number(o.shopTotal) * rate * 100);
    if (!Number.isFinite(total) || total <= 0) {
      return `Held before payment: the margin cannot be worked out (no exchange rate for ${o.currency ?? "the shop's currency"}), and your minimum margin is ${settings.minMarginPct}%. ${after}`;
    }
    const margin = total - cost;
    // margin / total < min%, in integers: margin * 1000 < total * min% * 10
    const minTenths = Math.round(Number(settings.minMarginPct) * 10);
    if (margin * 1000 < total * minTenths) {
      const pct = ((margin * 100) / total).toFixed(1);
      return `Held before payment: the service asks ${usd(cost)}${shipping} for an order of ${usd(total)}, a margin of ${usd(margin)} (${pct}%), under your minimum of ${settings.minMarginPct}%. ${after}`;
    }
  }
  return null;
}
