/**
 * The catalog's facts of the products page's connected variants (stock in the shop's countries,
 * margin in its currency, backups, the cheapest stored freight quote to the main market) and the
 * "quote shipping" action that fills those quotes.
 */
import type { PrismaClient } from "@prisma/client";
import type { ShopGateway } from "../shop/index.server";
import { accountOf } from "../svc-account/account.server";
import { stockCountries, stockIn } from "../catalog/facts.server";
import { fromUsd, marginPct } from "../catalog/pricing";
import type { ShopSettings } from "../settings.server";
import { getSettings } from "../settings.server";
import { QUOTE_TTL_MS, quoteFor, quoteKey } from "../shipping/quote.server";
import { svcClientForAccount, type FreightOption } from "../svc/index.server";

/** What the catalog says of a connected variant, for the table. */
export interface VariantFacts {
  productName: string;
  variantKey: string | null;
  image: string | null;
  supplier: string | null;
  costUsd: string | null;
  stock: number;
  stockByCountry: Record<string, number>;
  removed: boolean;
  flag: string | null;
  backups: number;
  /** Margin in % of the shop price (cost turned into the shop's currency), when known. */
  margin: string | null;
  /** The cheapest shipping to the main market, from a stored freight quote (null: not quoted). */
  shipping: { priceUsd: string; method: string; days: string | null; to: string } | null;
}

/** One unit of a catalog variant from the ship-from country to the main market. */
function shippingInput(settings: ShopSettings, vid: string) {
  return {
    from: settings.fromCountryCode,
    to: settings.mainMarket,
    products: [{ vid, quantity: 1 }],
  };
}

function cheapest(stored: unknown, to: string): VariantFacts["shipping"] {
  const options = ((stored as { options?: FreightOption[] } | null)?.options ?? []).filter(
    (o) => o && typeof o.priceUsd === "string",
  );
  if (options.length === 0) return null;
  const best = options.reduce((a, b) => (Number(b.priceUsd) < Number(a.priceUsd) ? b : a));
  return {
    priceUsd: best.priceUsd,
    method: best.logisticName,
    days:
      best.minDays !== null && best.maxDays !== null ? `${best.minDays}–${best.maxDays} d` : null,
    to,
  };
}

/** Freight quotes for the page's connected variants (≤ 10 a click, one service call each). */
export async function quoteShipping(
  db: PrismaClient,
  shop: string,
  vids: string[],
): Promise<number> {
  const account = await accountOf(db, shop);
  if (!account) return 0;
  const settings = await getSettings(db, shop);
  const deps = {
    prisma: db,
    svcFor: (id: string) => svcClientForAccount(id, { prisma: db }),
    clock: { now: () => Date.now() },
  };
  let n = 0;
  for (const vid of [...new Set(vids)].slice(0, MAX_QUOTES_PER_CLICK)) {
    await quoteFor(deps, account.id, shippingInput(settings, vid));
    n++;
  }
  return n;
}
const MAX_QUOTES_PER_CLICK = 10;

/** Out of stock, flagged (removed, cost moved) or under the margin asked for. */
export function needsAttention(f: VariantFacts | null, margin: number | undefined): boolean {
  if (!f) return false;
  if (f.removed || f.flag || f.stock <= 0) return true;
  return margin !== undefined && f.margin !== null && Number(f.margin) < margin;
}

/** Catalog facts of the page's connected variants, with stock and margin as the shop sees them. */
export async function factsFor(
  db: PrismaClient,
  shop: string,
  rows: {
    shopifyVariantId: string;
    svcVid: string;
    shopPrice: string | null;
    flag: string | null;
  }[],
  gateway: ShopGateway,
  settings: ShopSettings,
  accountId: string | null,
): Promise<Map<string, VariantFacts>> {
  const out = new Map<string, VariantFacts>();
  if (rows.length === 0) return out;
  const [cats, backups] = await Promise.all([
    db.catalogVariant.findMany({ where: { vid: { in: rows.map((r) => r.svcVid) } } }),
    db.backupSupplier.groupBy({
      by: ["shopifyVariantId"],
      where: { shopDomain: shop, shopifyVariantId: { in: rows.map((r) => r.shopifyVariantId) } },
      _count: { _all: true },
    }),
  ]);
  const byVid = new Map(cats.map((c) => [c.vid, c]));
  const countries = stockCountries(settings);
  // Shipping to the main market: stored quotes only (the page never waits on the service).
  const keyOf = (vid: string) =>
    accountId ? quoteKey(accountId, shippingInput(settings, vid)) : "";
  const quotes = accountId
    ? new Map(
        (
          await db.freightQuote.findMany({
            where: {
              key: { in: rows.map((r) => keyOf(r.svcVid)) },
              fetchedAt: { gt: new Date(Date.now() - QUOTE_TTL_MS) },
            },
          })
        ).map((q) => [q.key, q]),
      )
    : new Map();
  // The margin needs the shop's currency and a rate (a stored one: a page never waits on one).
  let usdPerUnit: string | null = null;
  try {
    const { currencyCode } = await gateway.shopBasics();
    usdPerUnit =
      currencyCode === "USD"
        ? "1"
        : (settings.fxRates[currencyCode] ??
          (await db.fxRate.findUnique({ where: { currency: currencyCode } }))?.usdPerUnit ??
          null);
  } catch {
    usdPerUnit = null;
  }
  for (const r of rows) {
    const c = byVid.get(r.svcVid);
    if (!c) continue;
    const cost = c.costUsd?.toString() ?? null;
    out.set(r.shopifyVariantId, {
      productName: c.productName,
      variantKey: c.variantKey,
      image: c.variantImage ?? c.productImage,
      supplier: c.supplierName,
      costUsd: cost,
      stock: stockIn(c.stock, countries),
      stockByCountry: (c.stock ?? {}) as Record<string, number>,
      removed: c.removed,
      flag: r.flag,
      backups: backups.find((b) => b.shopifyVariantId === r.shopifyVariantId)?._count._all ?? 0,
      shipping: cheapest(quotes.get(keyOf(r.svcVid))?.options, settings.mainMarket),
      margin:
        cost && usdPerUnit && r.shopPrice
          ? marginPct(r.shopPrice, fromUsd(cost, usdPerUnit))
          : null,
    });
  }
  return out;
}

/**
 * The picker: the catalog by keyword (list V2, 10 a page, paged) and, once a product is chosen,
 * its variants with cost and stock, paired with the shop product's variants by option values so
 * that all of them can be connected at once.
 */
