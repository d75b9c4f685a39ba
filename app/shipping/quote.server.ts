/**
 * Freight quotes: the shipping methods the service offers for a route and a set of variants, with
 * their USD price and transit days (freightCalculate, DESIGN §8). Quotes are kept in the database
 * for a few hours (FreightQuote), shared by every instance, so that placing a hundred orders to
 * the same country asks the service once.
 */
import { createHash } from "node:crypto";
import type { Prisma } from "@prisma/client";
import type { FulfilmentDeps } from "../orders/deps.server";
import { addMoney, compareMoney, type Money } from "../svc/decimal";
import type { FreightOption } from "../svc/logistics.server";

/** How long a stored quote is used before asking again. */
export const QUOTE_TTL_MS = 6 * 3_600_000;

export interface QuoteInput {
  from: string;
  to: string;
  zip?: string | null;
  products: Array<{ vid: string; quantity: number }>;
}

export interface Quote {
  options: FreightOption[];
  /** When the service gave it (a stored quote is older than now). */
  fetchedAt: Date;
  /** The lines were quoted one by one (the combined quote offered nothing). */
  perLine: boolean;
}

type QuoteDeps = Pick<FulfilmentDeps, "prisma" | "svcFor" | "clock">;

/** Same route, zip and variants (in any order, quantities summed) → same key. */
export function quoteKey(accountId: string, input: QuoteInput): string {
  const qty = new Map<string, number>();
  for (const p of input.products) qty.set(p.vid, (qty.get(p.vid) ?? 0) + p.quantity);
  const products = [...qty.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const zip = (input.zip ?? "").replace(/\s+/g, "").toUpperCase();
  const text = JSON.stringify([
    accountId,
    input.from.toUpperCase(),
    input.to.toUpperCase(),
    zip,
    products,
  ]);
  return createHash("sha256").update(text).digest("hex");
}

function parseStored(options: Prisma.JsonValue): { options: FreightOption[]; perLine: boolean } {
  const o = (options ?? {}) as { options?: FreightOption[]; perLine?: boolean };
  return { options: Array.isArray(o.options) ? o.options : [], perLine: o.perLine === true };
}

/**
 * The methods offered for a route and variants, cheapest first. A stored quote younger than
 * QUOTE_TTL_MS is used as is (`fresh: true` asks the service anyway). When the combined quote
 * offers nothing for several variants (suppliers often allow only their own methods), each
 * variant is quoted alone and only the methods every variant allows are kept, priced as the sum.
 * Service errors are thrown to the caller.
 */
export async function quoteFor(
  deps: QuoteDeps,
  accountId: string,
  input: QuoteInput,
  opts: { fresh?: boolean } = {},
): Promise<Quote> {
  const key = quoteKey(accountId, input);
  const now = deps.clock.now();
  if (!opts.fresh) {
    const stored = await deps.prisma.freightQuote.findUnique({ where: { key } });
    if (stored && now - stored.fetchedAt.getTime() < QUOTE_TTL_MS) {
      return { ...parseStored(stored.options), fetchedAt: stored.fetchedAt };
    }
  }
  const client = await deps.svcFor(accountId);
  const ask = (products: QuoteInput["products"]) =>
    client.logistics.freightCalculate({
      startCountryCode: input.from.toUpperCase(),
      endCountryCode: input.to.toUpperCase(),
      ...(input.zip ? { zip: input.zip.slice(0, 20) } : {}),
      products,
    });
  const variants = new Set(input.products.map((p) => p.vid));
  let options = await ask(input.products);
  let perLine = false;
  if (options.length === 0 && variants.size > 1) {
    perLine = true;
    const each: FreightOption[][] = [];
    for (const vid of variants) {
      const quantity = input.products
        .filter((p) => p.vid === vid)
        .reduce((a, p) => a + p.quantity, 0);
      each.push(await ask([{ vid, quantity }]));
    }
    options = combine(each);
  }
  const fetchedAt = new Date(now);
  const value = { options, perLine } as unknown as Prisma.InputJsonValue;
  await deps.prisma.freightQuote.upsert({
    where: { key },
    create: { key, accountId, options: value, fetchedAt },
    update: { options: value, fetchedAt },
  });
  return { options, perLine, fetchedAt };
}

/** Methods offered for every part, priced as the sum, slowest transit of the parts. */
export function combine(parts: FreightOption[][]): FreightOption[] {
  if (parts.length === 0) return [];
  const [first, ...rest] = parts;
  const out: FreightOption[] = [];
  for (const o of first!) {
    const same = rest.map((p) => p.find((x) => x.logisticName === o.logisticName));
    if (same.some((x) => !x)) continue;
    const all = [o, ...(same as FreightOption[])];
    const days = (pick: (x: FreightOption) => number | null) =>
      all.some((x) => pick(x) == null) ? null : Math.max(...all.map((x) => pick(x)!));
    out.push({
      logisticName: o.logisticName,
      priceUsd: addMoney(...all.map((x) => x.priceUsd)) as Money,
      minDays: days((x) => x.minDays),
      maxDays: days((x) => x.maxDays),
    });
  }
  return out.sort((a, b) => compareMoney(a.priceUsd, b.priceUsd));
}

/** Drops stored quotes past their time (a housekeeping step; they are also overwritten). */
export async function pruneQuotes(db: QuoteDeps["prisma"], nowMs: number): Promise<number> {
  const r = await db.freightQuote.deleteMany({
    where: { fetchedAt: { lt: new Date(nowMs - QUOTE_TTL_MS) } },
  });
  return r.count;
}
