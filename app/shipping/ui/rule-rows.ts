/**
 * The shipping rules as the settings page's editor holds them (every field as text) and posts
 * them (the fields a strategy does not use left out), and the methods a quote offers.
 */

/** A method the service offers on a route, with its price and transit days. */
export interface Option {
  logisticName: string;
  priceUsd: string;
  minDays: number | null;
  maxDays: number | null;
}

export interface RuleRow {
  to: string;
  from: string;
  strategy: string;
  days?: number | string;
  method?: string;
  maxPriceUsd?: string;
  fallbacks: string[];
}

export const SHIPPING_INTENT = "save-shipping";

export const STRATEGY_OPTIONS = [
  { label: "Cheapest", value: "cheapest" },
  { label: "Fastest", value: "fastest" },
  { label: "Cheapest within a number of days", value: "cheapest_within" },
  { label: "A method I choose", value: "named" },
];

/** The country a rule's methods are shown for: its own, Austria for the EU, the US for "*". */
export const sampleTo = (to: string) => (to === "*" ? "US" : to === "EU" ? "AT" : to);
export const routeKey = (from: string, to: string) =>
  `${from.toUpperCase()}>${sampleTo(to.toUpperCase())}`;
export const days = (o: Option) =>
  o.minDays == null || o.maxDays == null ? "" : `, ${o.minDays}–${o.maxDays} days`;

/** A rule as the editor holds it: every optional field present, as text (compared as saved). */
export function editable(r: RuleRow): RuleRow {
  return {
    to: r.to,
    from: r.from,
    strategy: r.strategy,
    days: r.days == null ? "" : String(r.days),
    method: r.method ?? "",
    maxPriceUsd: r.maxPriceUsd ?? "",
    fallbacks: r.fallbacks ?? [],
  };
}

/** A rule as it is posted: the fields its strategy does not use, and empty ones, left out. */
export function posted(r: RuleRow): RuleRow {
  return {
    to: r.to,
    from: r.from,
    strategy: r.strategy,
    ...(r.strategy === "cheapest_within" && r.days !== "" ? { days: r.days } : {}),
    ...(r.strategy === "named" && r.method ? { method: r.method } : {}),
    ...(r.maxPriceUsd ? { maxPriceUsd: r.maxPriceUsd } : {}),
    fallbacks: r.fallbacks,
  };
}

/** The saved rules as the editor holds them (its draft starts from these). */
export function shippingSaved(rules: RuleRow[]): RuleRow[] {
  return rules.map(editable);
}

/**
 * The choices of a method for a rule: what the service offered on its route, and the current
 * choice when it is not offered (kept, so it is not lost), after "Choose…".
 */
export function methodOptions(offered: Option[] | undefined, current?: string) {
  const opts = (offered ?? []).map((o) => ({
    label: `${o.logisticName} (${o.priceUsd} USD${days(o)})`,
    value: o.logisticName,
  }));
  if (current && !(offered ?? []).some((o) => o.logisticName === current)) {
    opts.unshift({ label: current, value: current });
  }
  return [{ label: "Choose…", value: "" }, ...opts];
}
