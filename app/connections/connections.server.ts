/**
 * Product connections: a shop variant bound to a catalog variant, both at the service
 * (connections create / delete) and in the ProductConnection table the order pipeline reads.
 *
 * Ids: ProductConnection keeps Shopify's numeric product and variant ids (the REST webhook
 * payloads and the service's store-flow fields carry those); the service gets the same.
 */
import type { Prisma, PrismaClient } from "@prisma/client";
import { recheckHeld } from "../orders/recheck.server";
import { getSettings } from "../settings.server";
import { legacyId, type ShopGateway } from "../shop/index.server";
import {
  SvcNotFoundError,
  type ProductDetail,
  type SvcClient,
  SvcParamError,
} from "../svc/index.server";

/** The connection's logistics when the shop has not chosen one (the contract requires a value). */
export const DEFAULT_CONNECTION_LOGISTICS = "SvcPacket Ordinary";
/** The connection's default area (the contract requires an int; its meaning is not shown). */
export const DEFAULT_AREA = 1;

export const numericId = (id: string) => (/^\d+$/.test(id) ? id : legacyId(id));

export interface VariantToConnect {
  shopifyProductId: string;
  shopifyVariantId: string;
  sku?: string | null;
  svcVid: string;
}

/**
 * Connects variants of ONE shop product to variants of ONE catalog product: one service call,
 * then the rows (the service's create is an upsert, so a retry after a crash is harmless).
 */
export async function connectVariants(
  db: PrismaClient,
  client: SvcClient,
  shop: string,
  svcProductId: string,
  variants: VariantToConnect[],
): Promise<number> {
  if (variants.length === 0) return 0;
  const settings = await getSettings(db, shop);
  const platformProductId = numericId(variants[0]!.shopifyProductId);
  await client.connections.create({
    defaultArea: DEFAULT_AREA,
    logistics: settings.logisticName || DEFAULT_CONNECTION_LOGISTICS,
    svcProductId,
    platformProductId,
    sourceCountryCode: settings.fromCountryCode,
    variantList: variants.map((v) => ({
      svcVariantId: v.svcVid,
      platformVariantId: numericId(v.shopifyVariantId),
    })),
  });
  const ops: Prisma.PrismaPromise<unknown>[] = variants.map((v) => {
    const data = {
      shopifyProductId: platformProductId,
      sku: v.sku || null,
      svcProductId,
      svcVid: v.svcVid,
      // The service's connection now points at svcVid (a backup's route is undone).
      routedVid: null,
    };
    return db.productConnection.upsert({
      where: {
        shopDomain_shopifyVariantId: {
          shopDomain: shop,
          shopifyVariantId: numericId(v.shopifyVariantId),
        },
      },
      create: { shopDomain: shop, shopifyVariantId: numericId(v.shopifyVariantId), ...data },
      update: data,
    });
  });
  await db.$transaction(ops);
  // Orders held for unmatched lines go on at once (the place step checks every line again).
  await recheckHeld(db, shop, ["unconnected_lines"], `matched:${Date.now()}:${platformProductId}`);
  return variants.length;
}

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
        shopifyVariantId: numericId(shopifyVariantId),
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
  const { db, shop, gateway, client } = opts;
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

  const bySku = new Map<string, { pid: string; vid: string } | null>();
  const lookup = async (sku: string) => {
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

  for (let after: string | null = null; ; ) {
    if (opts.signal?.aborted) throw new Error("stopped");
    const page = await gateway.listProducts({ first: pageSize, after });
    for (const product of page.items) {
      const variants = [...product.variants];
      for (let more = product.moreVariantsAfter; more; ) {
        const next = await gateway.listProductVariants(product.id, { after: more });
        variants.push(...next.items);
        more = next.hasNextPage ? next.endCursor : null;
      }
      const existing = new Set(
        (
          await db.productConnection.findMany({
            where: { shopDomain: shop, shopifyProductId: numericId(product.id) },
            select: { shopifyVariantId: true },
          })
        ).map((r) => r.shopifyVariantId),
      );
      const groups = new Map<string, VariantToConnect[]>();
      for (const v of variants) {
        if (existing.has(numericId(v.id))) {
          p.alreadyConnected++;
          p.processed++;
          continue;
        }
        if (!v.sku) {
          p.noSku++;
          p.processed++;
          continue;
        }
        let hit: { pid: string; vid: string } | null;
        try {
          hit = await lookup(v.sku);
        } catch (error) {
          p.failed++;
          p.processed++;
          note(p, `${v.sku}: ${error instanceof Error ? error.message : String(error)}`);
          continue;
        }
        if (!hit) {
          p.noMatch++;
          p.processed++;
          continue;
        }
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
      await opts.report(p);
    }
    if (!page.hasNextPage) break;
    after = page.endCursor;
  }
  p.phase = "done";
  return p;
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
