/**
 * Exchange rates to USD (issue 14: the service's money is USD; shops sell in their own
 * currency). Source: the European Central Bank's daily euro reference rates (an XML document of
 * `<Cube currency="USD" rate="1.0812"/>` entries, units of each currency per 1 EUR), address
 * FX_RATES_URL, fetched at most every 12 hours and kept in the FxRate table (shared by every
 * instance). USD per unit of X = rate(USD) / rate(X); EUR's is rate(USD). A merchant's own rate
 * (settings `fxRates`) wins. A rate older than 72 hours is not used. Exact decimals throughout.
 */
import type { PrismaClient } from "@prisma/client";
import { config } from "../config.server";
import { logger } from "../logger.server";
import type { ShopSettings } from "../settings.server";
import { compareMoney, parseDecimal } from "../svc/decimal";
import { ratesArrived } from "./recheck.server";

/** Fetched rates are asked for again after this long. */
export const REFRESH_MS = 12 * 3_600_000;
/** A fetched rate older than this is not used (the ECB publishes on working days). */
export const STALE_MS = 72 * 3_600_000;
/** Digits kept of a computed rate. */
const RATE_SCALE = 8;

export interface UsdRate {
  /** USD per one unit of the currency, as a decimal string. */
  usdPerUnit: string;
  /** Where it comes from: "ECB 2026-11-23", "merchant", "USD". */
  source: string;
}

/** The largest document accepted (the ECB's daily file is about 2 KB). */
export const MAX_DOCUMENT_CHARS = 64 * 1024;

/**
 * ECB reference rates from the XML: currency → units per EUR (EUR itself is 1). Strict: one
 * date, every currency entry well formed (a three-letter code, a positive decimal), none twice,
 * and a USD rate; anything else is refused whole rather than half read.
 */
export function parseEcbXml(xml: string): { date: string; perEur: Map<string, string> } {
  if (xml.length > MAX_DOCUMENT_CHARS) throw new Error("Exchange rates: the document is too large");
  const dates = [...xml.matchAll(/<Cube\s+time=['"]([^'"]*)['"]/g)].map((m) => m[1]!);
  if (dates.length === 0) throw new Error("Exchange rates: no date in the document");
  if (dates.length > 1) throw new Error("Exchange rates: more than one date in the document");
  const date = dates[0]!;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`))) {
    throw new Error(`Exchange rates: "${date.slice(0, 20)}" is not a date`);
  }
  const perEur = new Map<string, string>([["EUR", "1"]]);
  // Every element that names a currency must be one we read: a cube we cannot parse is an
  // error, not a currency quietly missing.
  const entries = xml.match(/<Cube\b[^>]*\bcurrency\s*=/g)?.length ?? 0;
  const re = /<Cube\s+currency=['"]([^'"]*)['"]\s+rate=['"]([^'"]*)['"]\s*\/>/g;
  let read = 0;
  for (const m of xml.matchAll(re)) {
    read++;
    const [, code, rate] = m as unknown as [string, string, string];
    if (!/^[A-Z]{3}$/.test(code)) {
      throw new Error(`Exchange rates: "${code.slice(0, 10)}" is not a currency code`);
    }
    if (!/^\d{1,9}(\.\d{1,10})?$/.test(rate) || compareMoney(rate, "0") <= 0) {
      throw new Error(`Exchange rates: ${code} has no positive rate`);
    }
    if (perEur.has(code)) throw new Error(`Exchange rates: ${code} is listed twice`);
    perEur.set(code, rate);
  }
  if (read !== entries) throw new Error("Exchange rates: a currency entry is malformed");
  if (!perEur.has("USD")) throw new Error("Exchange rates: no USD rate in the document");
  return { date, perEur };
}

/** a / b to RATE_SCALE digits (half up); both positive decimals. */
export function divide(a: string, b: string): string {
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  // a/b = (xu/10^xs) / (yu/10^ys) = xu*10^(ys+S+1) / (yu*10^xs) / 10^(S+1)
  const num = x.units * 10n ** BigInt(y.scale + RATE_SCALE + 1);
  const den = y.units * 10n ** BigInt(x.scale);
  const q = (num / den + 5n) / 10n;
  return formatUnits(q, RATE_SCALE);
}

/** price × rate, rounded half up to cents. */
export function convert(price: string, usdPerUnit: string): string {
  const p = parseDecimal(price);
  const r = parseDecimal(usdPerUnit);
  const scale = p.scale + r.scale;
  const product = p.units * r.units;
  if (scale <= 2) return formatUnits(product * 10n ** BigInt(2 - scale), 2);
  const div = 10n ** BigInt(scale - 2);
  const neg = product < 0n;
  const abs = neg ? -product : product;
  const cents = (abs + div / 2n) / div;
  return formatUnits(neg ? -cents : cents, 2);
}

function formatUnits(units: bigint, scale: number): string {
  const neg = units < 0n;
  const s = (neg ? -units : units).toString().padStart(scale + 1, "0");
  const out = `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
  return `${neg ? "-" : ""}${scale === 2 ? out : out.replace(/\.?0+$/, "")}`;
}

/** After a failed fetch, a placement does not ask the source again for this long. */
export const RETRY_MS = 5 * 60_000;
/** When this process last failed to fetch each source (a courtesy to the source, not state). */
const failedAt = new Map<string, number>();

/**
 * Fetches the document, stores USD per unit of every currency in it, and re-checks the orders
 * held for want of one of those rates. Returns the currencies stored.
 */
export async function refreshRates(
  db: PrismaClient,
  url: string,
  nowMs: number,
  fetchImpl: typeof fetch = fetch,
): Promise<string[]> {
  let doc: ReturnType<typeof parseEcbXml>;
  try {
    const res = await fetchImpl(url, { signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`Exchange rates: the source answered ${res.status}`);
    doc = parseEcbXml(await res.text());
  } catch (error) {
    failedAt.set(url, nowMs);
    throw error;
  }
  failedAt.delete(url);
  const usd = doc.perEur.get("USD")!;
  const source = `ECB ${doc.date}`;
  const fetchedAt = new Date(nowMs);
  const rows = [...doc.perEur.entries()]
    .map(([currency, rate]) => ({
      currency,
      usdPerUnit: currency === "USD" ? "1" : divide(usd, rate),
    }))
    // A rate too small for eight digits would price everything at nothing: left out.
    .filter((r) => compareMoney(r.usdPerUnit, "0") > 0);
  await db.$transaction(
    rows.map(({ currency, usdPerUnit }) =>
      db.fxRate.upsert({
        where: { currency },
        create: { currency, usdPerUnit, source, fetchedAt },
        update: { usdPerUnit, source, fetchedAt },
      }),
    ),
  );
  const currencies = rows.map((r) => r.currency);
  await ratesArrived(db, currencies, `${doc.date}:${nowMs}`);
  return currencies;
}

/**
 * Whether the source is due: its last successful fetch (the USD row, written by every one) is
 * older than 12 hours or there is none, and this process has not just failed to reach it.
 */
export async function refreshDue(db: PrismaClient, url: string, nowMs: number): Promise<boolean> {
  if (!url) return false;
  const failed = failedAt.get(url);
  if (failed !== undefined && nowMs - failed < RETRY_MS && nowMs >= failed) return false;
  const last = await db.fxRate.findUnique({
    where: { currency: "USD" },
    select: { fetchedAt: true },
  });
  return !last || nowMs - last.fetchedAt.getTime() >= REFRESH_MS;
}

/**
 * USD per unit of `currency`: 1 for USD, the merchant's rate, else a stored rate not older
 * than 72 hours (the source is asked again when its last fetch is older than 12). Null when
 * none is known.
 */
export async function usdRate(
  db: PrismaClient,
  currency: string,
  settings: Pick<ShopSettings, "fxRates">,
  opts: { nowMs: number; url?: string; fetchImpl?: typeof fetch },
): Promise<UsdRate | null> {
  const code = currency.toUpperCase();
  if (code === "USD") return { usdPerUnit: "1", source: "USD" };
  const own = settings.fxRates[code];
  if (own) return { usdPerUnit: own, source: "merchant" };
  const url = opts.url ?? config.FX_RATES_URL;
  if (await refreshDue(db, url, opts.nowMs)) {
    try {
      await refreshRates(db, url, opts.nowMs, opts.fetchImpl);
    } catch (error) {
      logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        "exchange rates",
      );
    }
  }
  const stored = await db.fxRate.findUnique({ where: { currency: code } });
  if (!stored || opts.nowMs - stored.fetchedAt.getTime() >= STALE_MS) return null;
  return { usdPerUnit: stored.usdPerUnit, source: stored.source };
}
