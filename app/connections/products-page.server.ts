/**
 * The products page's loader: the shop's variants (a page of Shopify products) with their
 * catalog variant and facts, the filters, the sync log and the picker when one is open. The
 * facts are products-facts.server.ts, the picker products-picker.server.ts, the actions
 * products-actions.server.ts.
 */
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { bulkConnectStatus } from "./bulk-connect.server";
import type { ShopGateway } from "../shop/index.server";
import { accountOf } from "../svc-account/account.server";
import { shopifyNumericId } from "../orders/product-links.server";
import { getSettings } from "../settings.server";
import { stockCountries } from "../catalog/facts.server";
import { syncChangeNames } from "../catalog/sync-log.server";
import { factsFor, needsAttention } from "./products-facts.server";
import { pickerData } from "./products-picker.server";

export type { VariantFacts } from "./products-facts.server";

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
export type PageQuery = Omit<z.output<typeof pageQuery>, "margin"> & { margin?: number };

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
  const variantIds = page.items.flatMap((p) => p.variants.map((v) => shopifyNumericId(v.id)));
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
      id: shopifyNumericId(p.id),
      title: p.title,
      imageUrl: p.imageUrl,
      moreVariants: Boolean(p.moreVariantsAfter),
      variants: p.variants
        .map((v) => {
          const c = byVariant.get(shopifyNumericId(v.id));
          const f = c ? (facts.get(c.shopifyVariantId) ?? null) : null;
          return {
            id: shopifyNumericId(v.id),
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

/**
 * The whole page as the route gives it: the data above, the sync log's changes named by their
 * variant (never by its id) and the warehouses whose stock the Stock column counts.
 */
export async function productsPage(
  db: PrismaClient,
  shop: string,
  gateway: ShopGateway,
  search: URLSearchParams,
) {
  const [page, settings] = await Promise.all([
    productsPageData(db, shop, gateway, search),
    getSettings(db, shop),
  ]);
  const names = await syncChangeNames(
    db,
    shop,
    page.changes.map((c) => c.variantId),
  );
  return {
    ...page,
    changes: page.changes.map((c) => ({ ...c, variantName: names[c.variantId] ?? null })),
    stockCountries: stockCountries(settings),
  };
}
