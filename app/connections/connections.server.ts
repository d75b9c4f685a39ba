/**
 * Product connections as the Products page makes and undoes them: one variant connected by its
 * catalog variant's id, a connection removed, and every variant of the shop matched by SKU (the
 * link itself, at the service and in the ProductConnection table, is
 * app/orders/product-links.server.ts).
 */
import type { PrismaClient } from "@prisma/client";
import {
  type VariantToConnect,
  connectVariants,
  shopifyNumericId,
} from "../orders/product-links.server";
import type { ShopGateway } from "../shop/index.server";
import {
  SvcNotFoundError,
  type ProductDetail,
  type SvcClient,
  SvcParamError,
} from "../svc/index.server";

/** Connects one shop variant to a catalog variant, looking the catalog product up by vid. */
export async function connectOne(
  db: PrismaClient,
  client: SvcClient,
  shop: string,
  v: VariantToConnect,
): Promise<void> {
  const variant = await client.catalog.variantByVid(v.svcVid);
  if (!variant.pid) throw new SvcParamError({ operation: "variant/queryByVid", message: "no pid" });
  await connectVariants(db, client, shop, variant.pid, [{ ...v, sku: v.sku ?? null }]);
}

/** Removes the connection at the service (already gone is fine) and the row. */
export async function disconnectVariant(
  db: PrismaClient,
  client: SvcClient | null,
  shop: string,
  shopifyVariantId: string,
): Promise<boolean> {
  const row = await db.productConnection.findUnique({
    where: {
      shopDomain_shopifyVariantId: {
        shopDomain: shop,
        shopifyVariantId: shopifyNumericId(shopifyVariantId),
      },
    },
  });
  if (!row) return false;
  if (client) {
    try {
      await client.connections.delete({
        platformProductId: row.shopifyProductId,
        platformVariantId: row.shopifyVariantId,
      });
    } catch (error) {
      if (!(error instanceof SvcNotFoundError)) throw error;
    }
  }
  await db.productConnection.delete({ where: { id: row.id } });
  return true;
}

// ---------------------------------------------------------------------------------------------
// Auto-match by SKU, for thousands of variants: run as a job (bulk-connect.server.ts)

export interface MatchProgress {
  phase: "counting" | "matching" | "done";
  total: number;
  processed: number;
  connected: number;
  alreadyConnected: number;
  noSku: number;
  noMatch: number;
  failed: number;
  errors: string[];
}

export const emptyProgress = (): MatchProgress => ({
  phase: "counting",
  total: 0,
  processed: 0,
  connected: 0,
  alreadyConnected: 0,
  noSku: 0,
  noMatch: 0,
  failed: 0,
  errors: [],
});

/**
 * Walks every product of the shop; each variant with a SKU and no connection is looked up in
 * the catalog by variant SKU (a catalog product, once fetched, answers for all its variants),
 * and the matches of a shop product are connected in one call per catalog product. Safe to run
 * again: connected variants are skipped.
 */
export async function autoMatchBySku(opts: {
  db: PrismaClient;
  shop: string;
  gateway: ShopGateway;
  client: SvcClient;
  report: (p: MatchProgress) => Promise<void>;
  signal?: AbortSignal;
  pageSize?: number;
}): Promise<MatchProgress> {
  const { gateway } = opts;
  const p = emptyProgress();
  // The gateway's largest product page (ListProducts stays under Shopify's cost limit).
  const pageSize = opts.pageSize ?? 20;
  // Count first, so the progress bar has a denominator (product pages are cheap).
  for (let after: string | null = null; ; ) {
    const page = await gateway.listProducts({ first: pageSize, after });
    for (const product of page.items) p.total += await variantCount(gateway, product);
    if (!page.hasNextPage) break;
    after = page.endCursor;
  }
  p.phase = "matching";
  await opts.report(p);

  const run: MatchRun = { ...opts, p, lookup: catalogBySku(opts.client) };
  for (let after: string | null = null; ; ) {
    if (opts.signal?.aborted) throw new Error("stopped");
    const page = await gateway.listProducts({ first: pageSize, after });
    for (const product of page.items) {
      await matchProduct(run, product);
      await opts.report(p);
    }
    if (!page.hasNextPage) break;
    after = page.endCursor;
  }
  p.phase = "done";
  return p;
}

type CatalogHit = { pid: string; vid: string };
type ShopProduct = Awaited<ReturnType<ShopGateway["listProducts"]>>["items"][number];
interface MatchRun {
  db: PrismaClient;
  shop: string;
  gateway: ShopGateway;
  client: SvcClient;
  p: MatchProgress;
  lookup: (sku: string) => Promise<CatalogHit | null>;
}

/** The catalog variant of a SKU, each catalog product read once for all of its variants. */
function catalogBySku(client: SvcClient) {
  const bySku = new Map<string, CatalogHit | null>();
  return async (sku: string): Promise<CatalogHit | null> => {
    if (bySku.has(sku)) return bySku.get(sku) ?? null;
    let detail: ProductDetail | null = null;
    try {
      detail = await client.catalog.product({ variantSku: sku });
    } catch (error) {
      if (!(error instanceof SvcNotFoundError || error instanceof SvcParamError)) throw error;
    }
    bySku.set(sku, null);
    for (const v of detail?.variants ?? []) {
      if (v.variantSku && v.vid)
        bySku.set(v.variantSku, { pid: detail!.pid ?? v.pid ?? "", vid: v.vid });
    }
    return bySku.get(sku) ?? null;
  };
}

/** One shop product: its unconnected variants matched by SKU, connected per catalog product. */
async function matchProduct(run: MatchRun, product: ShopProduct): Promise<void> {
  const { db, shop, gateway, client, p } = run;
  const variants = [...product.variants];
  for (let more = product.moreVariantsAfter; more; ) {
    const next = await gateway.listProductVariants(product.id, { after: more });
    variants.push(...next.items);
    more = next.hasNextPage ? next.endCursor : null;
  }
  const existing = new Set(
    (
      await db.productConnection.findMany({
        where: { shopDomain: shop, shopifyProductId: shopifyNumericId(product.id) },
        select: { shopifyVariantId: true },
      })
    ).map((r) => r.shopifyVariantId),
  );
  const groups = new Map<string, VariantToConnect[]>();
  for (const v of variants) {
    const hit = await matchVariant(run, v, existing);
    if (!hit) continue;
    const list = groups.get(hit.pid) ?? [];
    list.push({
      shopifyProductId: product.id,
      shopifyVariantId: v.id,
      sku: v.sku,
      svcVid: hit.vid,
    });
    groups.set(hit.pid, list);
  }
  for (const [pid, list] of groups) {
    try {
      p.connected += await connectVariants(db, client, shop, pid, list);
    } catch (error) {
      p.failed += list.length;
      note(p, `${product.title}: ${error instanceof Error ? error.message : String(error)}`);
    }
    p.processed += list.length;
  }
}

/**
 * The catalog variant a shop variant is to be connected to, or null when it is connected
 * already, has no SKU, matches nothing or its lookup failed (each counted as processed).
 */
async function matchVariant(
  run: MatchRun,
  v: ShopProduct["variants"][number],
  existing: Set<string>,
): Promise<CatalogHit | null> {
  const { p } = run;
  if (existing.has(shopifyNumericId(v.id))) {
    p.alreadyConnected++;
    p.processed++;
    return null;
  }
  if (!v.sku) {
    p.noSku++;
    p.processed++;
    return null;
  }
  let hit: CatalogHit | null;
  try {
    hit = await run.lookup(v.sku);
  } catch (error) {
    p.failed++;
    p.processed++;
    note(p, `${v.sku}: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
  if (!hit) {
    p.noMatch++;
    p.processed++;
    return null;
  }
  return hit;
}

async function variantCount(
  gateway: ShopGateway,
  product: {
    id: Parameters<ShopGateway["listProductVariants"]>[0];
    variants: unknown[];
    moreVariantsAfter: string | null;
  },
): Promise<number> {
  let n = product.variants.length;
  for (let more = product.moreVariantsAfter; more; ) {
    const next = await gateway.listProductVariants(product.id, { first: 250, after: more });
    n += next.items.length;
    more = next.hasNextPage ? next.endCursor : null;
  }
  return n;
}

function note(p: MatchProgress, message: string) {
  if (p.errors.length < 20) p.errors.push(message.slice(0, 200));
}
