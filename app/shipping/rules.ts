/**
 * Shipping rules (issue 14): per destination (a country, a region, or every other destination),
 * the origin and how the method is chosen from a freight quote — the cheapest, the fastest, the
 * cheapest within N days, or a named method — with a price cap and fallbacks tried in order when
 * the choice is not offered or the service refuses it. Pure: no database, no service.
 */
import { z } from "zod";
import { compareMoney, isDecimal, toMoney } from "../svc/decimal";
import type { FreightOption } from "../svc/logistics.server";
import { EU_MEMBER_STATES } from "./destinations";

/** Regions a rule can name (two-letter country codes). */
export const REGIONS: Record<string, { label: string; countries: string[] }> = {
  EU: { label: "European Union", countries: [...EU_MEMBER_STATES] },
};

/** The rule for every destination no other rule names. */
export const EVERYWHERE = "*";

export const STRATEGIES = ["cheapest", "fastest", "cheapest_within", "named"] as const;
export type Strategy = (typeof STRATEGIES)[number];

const code = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[A-Z]{2}$/, "a two-letter country code");

export const ruleSchema = z
  .object({
    /** A two-letter country code, a region of REGIONS, or "*" (every other destination). */
    to: z
      .string()
      .trim()
      .toUpperCase()
      .refine(
        (v) => v === EVERYWHERE || v in REGIONS || /^[A-Z]{2}$/.test(v),
        "a two-letter country code, a region (EU) or * for every other destination",
      ),
    from: code.default("CN"),
    strategy: z.enum(STRATEGIES, "cheapest, fastest, cheapest_within or named"),
    /** cheapest_within: the longest transit accepted (days). */
    days: z.coerce.number().int().min(1).max(90).optional(),
    /** named: the method. */
    method: z.string().trim().max(50).optional(),
    /** No method above this price (USD). */
    maxPriceUsd: z
      .string()
      .trim()
      .refine((v) => v === "" || (isDecimal(v) && compareMoney(v, "0") > 0), "a positive amount")
      .transform((v) => (v === "" ? undefined : toMoney(v)))
      .optional(),
    /** Methods tried in this order when the choice is not offered or is refused. */
    fallbacks: z.array(z.string().trim().min(1).max(50)).max(5).default([]),
  })
  .superRefine((r, ctx) => {
    if (r.strategy === "cheapest_within" && !r.days) {
      ctx.addIssue({ code: "custom", path: ["days"], message: "enter the number of days" });
    }
    if (r.strategy === "named" && !r.method) {
      ctx.addIssue({ code: "custom", path: ["method"], message: "choose a method" });
    }
  });

export type ShippingRule = z.output<typeof ruleSchema>;

export const rulesSchema = z
  .array(ruleSchema)
  .max(50)
  .superRefine((rules, ctx) => {
    const seen = new Set<string>();
    rules.forEach((r, i) => {
      if (seen.has(r.to)) {
        ctx.addIssue({ code: "custom", path: [i, "to"], message: `a second rule for ${r.to}` });
      }
      seen.add(r.to);
    });
  });

/** The rule for a destination: its country's, else its region's, else the default one. */
export function ruleFor(rules: ShippingRule[], countryCode: string): ShippingRule | null {
  const c = countryCode.toUpperCase();
  return (
    rules.find((r) => r.to === c) ??
    rules.find((r) => REGIONS[r.to]?.countries.includes(c)) ??
    rules.find((r) => r.to === EVERYWHERE) ??
    null
  );
}

/** "rule for DE: cheapest within 7 days, at most 20.00 USD". */
export function describeRule(r: ShippingRule): string {
  const where = r.to === EVERYWHERE ? "every other destination" : (REGIONS[r.to]?.label ?? r.to);
  const how =
    r.strategy === "named"
      ? `${r.method}`
      : r.strategy === "cheapest_within"
        ? `cheapest within ${r.days} days`
        : r.strategy;
  const cap = r.maxPriceUsd ? `, at most ${r.maxPriceUsd} USD` : "";
  const fb = r.fallbacks.length ? `, then ${r.fallbacks.join(", then ")}` : "";
  return `rule for ${where} from ${r.from}: ${how}${cap}${fb}`;
}

const byPrice = (a: FreightOption, b: FreightOption) => compareMoney(a.priceUsd, b.priceUsd);
const bySpeed = (a: FreightOption, b: FreightOption) =>
  (a.maxDays ?? Infinity) - (b.maxDays ?? Infinity) || byPrice(a, b);

/**
 * The methods to try, in order: those the strategy picks (best first), then the fallbacks that
 * are offered, each within the price cap, without repeats.
 */
export function candidates(rule: ShippingRule, offered: FreightOption[]): FreightOption[] {
  const capped = offered.filter(
    (o) => !rule.maxPriceUsd || compareMoney(o.priceUsd, rule.maxPriceUsd) <= 0,
  );
  let first: FreightOption[];
  switch (rule.strategy) {
    case "cheapest":
      first = [...capped].sort(byPrice);
      break;
    case "fastest":
      first = [...capped].sort(bySpeed);
      break;
    case "cheapest_within":
      first = capped.filter((o) => o.maxDays != null && o.maxDays <= rule.days!).sort(byPrice);
      break;
    case "named":
      first = capped.filter((o) => same(o.logisticName, rule.method));
      break;
  }
  const out = [...first];
  for (const name of rule.fallbacks) {
    const o = capped.find((x) => same(x.logisticName, name));
    if (o && !out.includes(o)) out.push(o);
  }
  return out;
}

function same(a: string, b: string | undefined): boolean {
  return b !== undefined && a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** "Express Air, 14.99 USD, 3–5 days". */
export function describeOption(
  o: Pick<FreightOption, "logisticName" | "priceUsd" | "minDays" | "maxDays">,
): string {
  const days =
    o.minDays == null || o.maxDays == null
      ? ""
      : o.minDays === o.maxDays
        ? `, ${o.maxDays} days`
        : `, ${o.minDays}–${o.maxDays} days`;
  return `${o.logisticName}, ${o.priceUsd} USD${days}`;
}
