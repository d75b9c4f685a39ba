/**
 * The shop's pricing rule: from a catalog cost in USD to the shop's price (and compare-at price)
 * in the shop's currency. Exact decimal arithmetic in integer cents: no floating point touches a
 * price.
 */

export interface PricingRule {
  priceRule: "multiplier" | "markup";
  /** The multiplier (2.5) or the markup in the shop's currency (9.99). */
  priceValue: string;
  priceRounding: "none" | "99" | "95" | "00";
  /** Compare-at price this many % above the price; "" for none. */
  compareAtPct: string;
}

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** A non-negative decimal string as units of 10^-scale. */
function parse(v: string): { units: bigint; scale: number } {
  const m = DECIMAL.exec(v.trim());
  if (!m) throw new Error(`Not a decimal: ${v}`);
  const frac = m[2] ?? "";
  return { units: BigInt(m[1]! + frac), scale: frac.length };
}

/** Units at `scale` rounded half up to cents. */
function toCents(units: bigint, scale: number): bigint {
  if (scale <= 2) return units * 10n ** BigInt(2 - scale);
  const div = 10n ** BigInt(scale - 2);
  return (units + div / 2n) / div;
}

export function centsOf(v: string): bigint {
  const p = parse(v);
  return toCents(p.units, p.scale);
}

export function formatCents(c: bigint): string {
  const s = c.toString().padStart(3, "0");
  return `${s.slice(0, -2)}.${s.slice(-2)}`;
}

/** USD → shop currency: cost / usdPerUnit, to cents (half up). */
export function fromUsd(costUsd: string, usdPerUnit: string): bigint {
  const c = parse(costUsd);
  const r = parse(usdPerUnit);
  if (r.units === 0n) throw new Error("A rate of zero");
  // (cu/10^cs) / (ru/10^rs) in cents = cu * 10^(rs+2) / (ru * 10^cs), rounded half up.
  const num = c.units * 10n ** BigInt(r.scale + 2) * 2n;
  const den = r.units * 10n ** BigInt(c.scale);
  return (num / den + 1n) / 2n;
}

/** Rounds up to the next price ending in the rule's cents (.99, .95, .00). */
export function roundPrice(cents: bigint, rounding: PricingRule["priceRounding"]): bigint {
  if (rounding === "none") return cents;
  const ending = rounding === "00" ? 0n : BigInt(rounding);
  const whole = cents / 100n;
  let candidate = whole * 100n + ending;
  if (candidate < cents) candidate += 100n;
  return candidate;
}

/** The shop price and compare-at price for a catalog cost (USD) at the shop's rate. */
export function priceFor(
  costUsd: string,
  rule: PricingRule,
  usdPerUnit = "1",
): { price: string; compareAtPrice: string | null } {
  const cost = fromUsd(costUsd, usdPerUnit);
  const value = parse(rule.priceValue);
  // cost is in cents; the multiplier is units at 10^-scale: cents × units / 10^scale, half up.
  const div = 10n ** BigInt(value.scale);
  const raw =
    rule.priceRule === "multiplier"
      ? (cost * value.units * 2n + div) / (2n * div)
      : cost + toCents(value.units, value.scale);
  const price = roundPrice(raw, rule.priceRounding);
  if (!rule.compareAtPct) return { price: formatCents(price), compareAtPrice: null };
  const pct = BigInt(rule.compareAtPct);
  if (pct === 0n) return { price: formatCents(price), compareAtPrice: null };
  const compareAt = roundPrice((price * (100n + pct) + 50n) / 100n, rule.priceRounding);
  return { price: formatCents(price), compareAtPrice: formatCents(compareAt) };
}

/** Whether the cost moved by at least `thresholdPct` % of the old cost (either way). */
export function costMoved(oldUsd: string, newUsd: string, thresholdPct: string): boolean {
  const before = centsOf(oldUsd);
  const after = centsOf(newUsd);
  if (before === after) return false;
  if (before === 0n) return true;
  const diff = after > before ? after - before : before - after;
  const t = parse(thresholdPct);
  // diff / before * 100 >= t  ⇔  diff * 100 * 10^ts >= t.units * before
  return diff * 100n * 10n ** BigInt(t.scale) >= t.units * before;
}

/** The margin in % of the price (one decimal), or null without a price. */
export function marginPct(priceShop: string | null, costShopCents: bigint): string | null {
  if (!priceShop) return null;
  const price = centsOf(priceShop);
  if (price === 0n) return null;
  const tenths = ((price - costShopCents) * 1000n) / price;
  const sign = tenths < 0n ? "-" : "";
  const abs = tenths < 0n ? -tenths : tenths;
  return `${sign}${abs / 10n}.${abs % 10n}`;
}
