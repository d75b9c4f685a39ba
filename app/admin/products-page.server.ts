/** The products page: the shop's variants with their catalog variant, the picker, the actions. */
import { startImport } from "../catalog/import-connections.server";
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { bulkConnectStatus, startBulkConnect } from "../connections/bulk-connect.server";
import type { ShopGateway } from "../shop/index.server";
import { SvcError } from "../svc/index.server";
import { accountOf, clientForShop, describeSvcError } from "../svc-account/account.server";
import { pageClientForShop, withinPageDeadline } from "../page-kit/page-reads.server";
import {
  connectOne,
  connectVariants,
  disconnectVariant,
  numericId,
} from "../connections/connections.server";
import { startShopSync } from "../catalog/jobs.server";
import { browseErrorText, categoryOptions } from "../catalog/page.server";
import {
  refreshFacts,
  stockCountries,
  stockIn,
  stockOf,
  storeDetail,
} from "../catalog/facts.server";
import { fromUsd, marginPct } from "../catalog/pricing";
import { getSettings, type ShopSettings } from "../settings.server";
import { QUOTE_TTL_MS, quoteFor, quoteKey } from "../shipping/quote.server";
import { svcClientForAccount, type FreightOption, type SvcClient } from "../svc/index.server";
import { type FieldErrors, type IntentResult, parseForm } from "../page-kit/forms.server";

const pageQuery = z.object({
  after: z.string().max(500).optional().catch(undefined),
  q: z.string().trim().max(100).optional().catch(undefined),
  pick: z.string().regex(/^\d+$/).optional().catch(undefined),
  catalogQ: z.string().trim().max(200).optional().catch(undefined),
  catalogPage: z.coerce.number().int().min(1).max(300).optional().catch(undefined),
  cat: z
    .string()
    .trim()
    .max(100)
    .regex(/^[\w-]+$/)
    .optional()
    .catch(undefined),
  pid: z.string().max(200).optional().catch(undefined),
  /** all | unconnected | attention (out of stock, flagged, or margin under `margin` %). */
  show: z.enum(["all", "unconnected", "attention"]).optional().catch(undefined),
  // Checked apart (marginFilter): a margin out of range is said by the field, not dropped.
  margin: z.string().optional().catch(undefined),
});

/** The page's query as the page uses it: the margin filter checked, as a number. */
type PageQuery = Omit<z.output<typeof pageQuery>, "margin"> & { margin?: number };

/**
 * The "Margin under (%)" filter as typed: a number from 0 to 100, or empty (no filter). Anything
 * else is refused with a sentence for the field, and the filter is not applied.
 */
export function marginFilter(raw: string | undefined): { value?: number; error?: string } {
  const text = raw?.trim() ?? "";
  if (text === "") return {};
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0 || n > 100) {
    return { error: "Enter a margin from 0 to 100 (%): the list is not filtered by it." };
  }
  return { value: n };
}

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

export async function productsPageData(
  db: PrismaClient,
  shop: string,
  gateway: ShopGateway,
  search: URLSearchParams,
) {
  const parsed = pageQuery.parse(Object.fromEntries(search));
  const margin = marginFilter(parsed.margin);
  const q = { ...parsed, margin: margin.value };
  const page = await gateway.listProducts({ first: 20, after: q.after ?? null, query: q.q });
  const variantIds = page.items.flatMap((p) => p.variants.map((v) => numericId(v.id)));
  const rows = await db.productConnection.findMany({
    where: { shopDomain: shop, shopifyVariantId: { in: variantIds } },
  });
  const byVariant = new Map(rows.map((r) => [r.shopifyVariantId, r]));
  // Read once for the page: the settings and the account (the facts need both).
  const [settings, account] = await Promise.all([getSettings(db, shop), accountOf(db, shop)]);
  const facts = await factsFor(db, shop, rows, gateway, settings, account?.id ?? null);
  const show = q.show ?? "all";
  const products = page.items
    .map((p) => ({
      id: numericId(p.id),
      title: p.title,
      imageUrl: p.imageUrl,
      moreVariants: Boolean(p.moreVariantsAfter),
      variants: p.variants
        .map((v) => {
          const c = byVariant.get(numericId(v.id));
          const f = c ? (facts.get(c.shopifyVariantId) ?? null) : null;
          return {
            id: numericId(v.id),
            title: v.title,
            sku: v.sku,
            price: v.price,
            options: v.options,
            connection: c
              ? { svcVid: c.svcVid, svcProductId: c.svcProductId, imported: c.imported }
              : null,
            facts: f,
          };
        })
        .filter((v) =>
          show === "unconnected"
            ? !v.connection
            : show === "attention"
              ? needsAttention(v.facts, q.margin)
              : true,
        ),
    }))
    .filter((p) => p.variants.length > 0);
  const changes = await db.syncChange.findMany({
    where: { shopDomain: shop },
    orderBy: { id: "desc" },
    take: 8,
  });
  const [connectedTotal, bulk] = await Promise.all([
    db.productConnection.count({ where: { shopDomain: shop } }),
    bulkConnectStatus(db, shop),
  ]);
  const pageVids = [...new Set(rows.map((r) => r.svcVid))];
  return {
    query: q,
    marginError: margin.error ?? null,
    /** The margin filter as typed (kept in the field when refused). */
    marginTyped: parsed.margin?.trim() ?? "",
    mainMarket: settings.mainMarket,
    pageVids,
    changes: changes.map((c) => ({
      id: String(c.id),
      variantId: c.shopifyVariantId,
      kind: c.kind,
      before: c.before,
      after: c.after,
      note: c.note,
      at: c.at.toISOString(),
    })),
    products,
    nextCursor: page.hasNextPage ? page.endCursor : null,
    connectedTotal,
    bulk,
    connected: Boolean(account),
    picker: q.pick ? await pickerData(db, shop, q, settings, account?.id ?? null) : null,
  };
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
async function quoteShipping(db: PrismaClient, shop: string, vids: string[]): Promise<number> {
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
function needsAttention(f: VariantFacts | null, margin: number | undefined): boolean {
  if (!f) return false;
  if (f.removed || f.flag || f.stock <= 0) return true;
  return margin !== undefined && f.margin !== null && Number(f.margin) < margin;
}

/** Catalog facts of the page's connected variants, with stock and margin as the shop sees them. */
async function factsFor(
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
async function pickerData(
  db: PrismaClient,
  shop: string,
  q: PageQuery,
  settings: ShopSettings,
  accountId: string | null,
) {
  const client = await pageClientForShop(db, shop);
  const out = {
    variantId: q.pick!,
    catalogQ: q.catalogQ ?? "",
    cat: q.cat ?? "",
    categories: [] as { value: string; label: string }[],
    catalogPage: q.catalogPage ?? 1,
    totalPages: 0,
    results: [] as {
      pid: string;
      name: string;
      sku: string;
      price: string;
      image: string;
      supplier: string;
      stock: number | null;
    }[],
    pid: q.pid ?? null,
    variants: [] as {
      vid: string;
      sku: string;
      name: string;
      key: string;
      price: string;
      image: string;
      stock: number;
    }[],
    error: null as string | null,
  };
  if (!client || !accountId) return { ...out, error: "Connect a service account first" };
  try {
    await withinPageDeadline(read(client, accountId), "The supplier's catalog");
  } catch (error) {
    out.error = browseErrorText(error);
  }
  return out;

  async function read(client: SvcClient, accountId: string) {
    out.categories = await categoryOptions(accountId, client);
    if (q.pid) {
      const detail = await client.catalog.product({ pid: q.pid });
      await storeDetail(db, detail, new Date());
      const countries = stockCountries(settings);
      out.variants = (detail.variants ?? []).map((v) => ({
        vid: v.vid ?? "",
        sku: v.variantSku ?? "",
        name: v.variantNameEn ?? v.variantKey ?? v.variantSku ?? "",
        key: v.variantKey ?? "",
        price: v.variantSellPrice != null ? String(v.variantSellPrice) : "",
        image: v.variantImage ?? "",
        stock: stockIn(stockOf(v), countries),
      }));
    } else if (q.catalogQ || q.cat) {
      const page = await client.catalog.listV2({
        keyWord: q.catalogQ || undefined,
        categoryId: q.cat || undefined,
        size: 10,
        page: out.catalogPage,
      });
      out.totalPages = page.totalPages ?? 0;
      out.results = page.items
        .flatMap((g) => g.productList)
        .map((p) => ({
          pid: p.id ?? "",
          name: p.nameEn ?? "",
          sku: p.sku ?? "",
          price: p.nowPrice ?? p.sellPrice ?? "",
          image: p.bigImage ?? "",
          supplier: p.supplierName ?? "",
          stock: p.warehouseInventoryNum ?? null,
        }));
    }
  }
}

const connectForm = z.object({
  productId: z.string().regex(/^\d+$/, "Not a product id"),
  variantId: z.string().regex(/^\d+$/, "Not a variant id"),
  vid: z.string().trim().min(1, "Choose a catalog variant").max(50, "Not a catalog variant"),
  sku: z.string().max(200).optional(),
});
const disconnectForm = z.object({ variantId: z.string().regex(/^\d+$/, "Not a variant id") });
const connectAllForm = z.object({
  productId: z.string().regex(/^\d+$/, "Not a product id"),
  pid: z.string().trim().min(1, "Choose a catalog product").max(50, "Not a catalog product"),
  pairs: z
    .string()
    .max(20_000)
    .transform((v, ctx) => {
      const out: { variantId: string; vid: string; sku: string }[] = [];
      for (const line of v.split("\n").filter(Boolean)) {
        const [variantId, vid, sku] = line.split("\t");
        if (!variantId || !/^\d+$/.test(variantId) || !vid || vid.length > 50) {
          ctx.addIssue({ code: "custom", message: "A pairing is not valid" });
          return z.NEVER;
        }
        out.push({ variantId, vid, sku: sku ?? "" });
      }
      if (out.length === 0) {
        ctx.addIssue({ code: "custom", message: "No variant pairs up by its options" });
        return z.NEVER;
      }
      return out;
    }),
});
const backupForm = z.object({
  variantId: z.string().regex(/^\d+$/, "Not a variant id"),
  pid: z.string().trim().min(1, "Choose a catalog product").max(50, "Not a catalog product"),
  vid: z.string().trim().min(1, "Choose a catalog variant").max(50, "Not a catalog variant"),
});

export type ProductsActionResult = IntentResult;

export async function productsAction(
  db: PrismaClient,
  shop: string,
  form: FormData,
): Promise<ProductsActionResult> {
  const intent = String(form.get("intent") ?? "");
  const fail = (errors: FieldErrors): ProductsActionResult => ({ ok: false, intent, errors });
  const client = await clientForShop(db, shop);
  if (!client && intent !== "disconnect") return fail({ form: "Connect a service account first" });
  try {
    switch (intent) {
      case "auto-match": {
        await startBulkConnect(db, shop);
        return { ok: true, intent, message: "Matching by SKU started" };
      }
      case "import-connections": {
        const account = await accountOf(db, shop);
        if (!account) return fail({ form: "Connect a service account first" });
        await startImport(db, shop, account.id);
        return {
          ok: true,
          intent,
          message: "Reading the connections made at the service: matched variants show in a moment",
        };
      }
      case "connect": {
        const parsed = parseForm(connectForm, form);
        if (!parsed.ok) return fail(parsed.errors);
        const d = parsed.data;
        await connectOne(db, client!, shop, {
          shopifyProductId: d.productId,
          shopifyVariantId: d.variantId,
          sku: d.sku,
          svcVid: d.vid,
        });
        return { ok: true, intent, message: "Variant connected" };
      }
      case "connect-all": {
        const parsed = parseForm(connectAllForm, form);
        if (!parsed.ok) return fail(parsed.errors);
        const d = parsed.data;
        const n = await connectVariants(
          db,
          client!,
          shop,
          d.pid,
          d.pairs.map((p) => ({
            shopifyProductId: d.productId,
            shopifyVariantId: p.variantId,
            sku: p.sku || null,
            svcVid: p.vid,
          })),
        );
        return { ok: true, intent, message: `${n} variants connected` };
      }
      case "add-backup": {
        const parsed = parseForm(backupForm, form);
        if (!parsed.ok) return fail(parsed.errors);
        const d = parsed.data;
        const first = await db.productConnection.findUnique({
          where: {
            shopDomain_shopifyVariantId: { shopDomain: shop, shopifyVariantId: d.variantId },
          },
        });
        if (!first) return fail({ form: "Connect the variant to its first supplier first" });
        if (first.svcVid === d.vid) return fail({ form: "This is the variant's first supplier" });
        const taken = await db.backupSupplier.findMany({
          where: { shopDomain: shop, shopifyVariantId: d.variantId },
        });
        if (taken.some((b) => b.svcVid === d.vid))
          return fail({ form: "This catalog variant is a backup already" });
        if (taken.length >= 3) return fail({ form: "At most 3 backup suppliers per variant" });
        // The catalog's word on it first: the variant must be one of that product's.
        await refreshFacts(db, client!, [d.pid], { maxAgeMs: 60_000 });
        const fact = await db.catalogVariant.findUnique({ where: { vid: d.vid } });
        if (!fact || fact.pid !== d.pid || fact.removed)
          return fail({ vid: "Not a variant of that catalog product" });
        await db.backupSupplier.create({
          data: {
            shopDomain: shop,
            shopifyVariantId: d.variantId,
            position: Math.max(0, ...taken.map((b) => b.position)) + 1,
            svcProductId: d.pid,
            svcVid: d.vid,
          },
        });
        return { ok: true, intent, message: `Backup supplier ${taken.length + 2} added` };
      }
      case "quote-shipping": {
        const vids = String(form.get("vids") ?? "")
          .split(",")
          .map((v) => v.trim())
          .filter((v) => v && v.length <= 50);
        if (vids.length === 0) return fail({ form: "No connected variant on this page" });
        const n = await quoteShipping(db, shop, vids);
        return { ok: true, intent, message: `Shipping quoted for ${n} catalog variants` };
      }
      case "keep-price": {
        // The merchant has seen the cost change and keeps the price: the new cost is the base.
        const parsed = parseForm(disconnectForm, form);
        if (!parsed.ok) return fail(parsed.errors);
        const row = await db.productConnection.findUnique({
          where: {
            shopDomain_shopifyVariantId: {
              shopDomain: shop,
              shopifyVariantId: parsed.data.variantId,
            },
          },
        });
        if (!row || row.flag !== "cost_change")
          return fail({ form: "This variant has no cost change to review" });
        const fact = await db.catalogVariant.findUnique({ where: { vid: row.svcVid } });
        await db.productConnection.update({
          where: { id: row.id },
          data: { flag: null, flaggedAt: null, pricedFromUsd: fact?.costUsd ?? row.pricedFromUsd },
        });
        return { ok: true, intent, message: "Price kept; the new cost is the base from now on" };
      }
      case "sync-now": {
        await startShopSync(db, shop);
        return { ok: true, intent, message: "Stock and prices are being brought in step" };
      }
      case "disconnect": {
        const parsed = parseForm(disconnectForm, form);
        if (!parsed.ok) return fail(parsed.errors);
        const gone = await disconnectVariant(db, client, shop, parsed.data.variantId);
        return gone
          ? { ok: true, intent, message: "Variant disconnected" }
          : fail({ form: "This variant is not connected" });
      }
      default:
        return fail({ form: "Unknown action" });
    }
  } catch (error) {
    if (error instanceof SvcError) return fail({ form: describeSvcError(error) });
    throw error;
  }
}
