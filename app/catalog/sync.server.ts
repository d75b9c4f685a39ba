/**
 * Keeps the shop in step with the supplier (issue 16): for every connected variant, the shop's
 * "available" quantity at the app's location is the supplier's stock in the warehouse countries
 * that count (the backups' stock added), a removed variant goes to 0 and is flagged, and a cost
 * that moved beyond the threshold re-prices the variant by the pricing rule (or only flags it,
 * per setting).
 *
 * Nothing is written twice: a row remembers the stock it last set and the cost it was last
 * priced from, and only a difference is sent. Stock goes in batches of 250 per
 * inventorySetQuantities call, each with an idempotency key made of its content, so a retried
 * job re-sends a batch Shopify already applied only as the same key (applied once). Prices go
 * per product (productVariantsBulkUpdate). Every change is recorded in SyncChange.
 */
import { createHash } from "node:crypto";
import type { PrismaClient, ProductConnection } from "@prisma/client";
import { usdRate } from "../fx/rates.server";
import { getSettings, type ShopSettings } from "../settings.server";
import type { ShopGateway } from "../shop/index.server";
import { stockCountries, stockIn } from "./facts.server";
import { costMoved, priceFor } from "./pricing";

/** Rows read per step (a backlog is paged, never loaded whole). */
export const SYNC_PAGE = 500;
export const STOCK_BATCH = 250;

export interface SyncResult {
  variants: number;
  stockSet: number;
  priced: number;
  flagged: number;
  /** Connected variants whose Shopify inventory is not tracked at the app's location. */
  untracked: number;
  /** Variants with no catalog facts yet. */
  unknown: number;
  notes: string[];
}

interface Plan {
  row: ProductConnection;
  stock?: { inventoryItemId: string; quantity: number };
  price?: { price: string; compareAtPrice: string | null; costUsd: string };
  flag?: { kind: "removed" | "cost_change"; note: string; costUsd?: string };
  /** The cost becomes the baseline without a change (first sight of a matched variant). */
  baselineUsd?: string;
  /** A removed variant is back in the catalog. */
  unflag?: boolean;
  /** The shop's quantity as just read from Shopify. */
  observedStock?: number;
}

const variantGid = (id: string) => `gid://shopify/ProductVariant/${id}`;
const productGid = (id: string) => `gid://shopify/Product/${id}`;

/**
 * Brings the shop's connected variants of these catalog products (all when `pids` is null) in
 * step with CatalogVariant. The facts must be fresh already (facts.server.ts refreshFacts).
 */
export async function syncShop(opts: {
  db: PrismaClient;
  shop: string;
  gateway: ShopGateway;
  pids: string[] | null;
  now?: () => number;
  signal?: AbortSignal;
  fxRatesUrl?: string;
}): Promise<SyncResult> {
  const { db, shop, gateway } = opts;
  const now = opts.now ?? Date.now;
  const out: SyncResult = {
    variants: 0,
    stockSet: 0,
    priced: 0,
    flagged: 0,
    untracked: 0,
    unknown: 0,
    notes: [],
  };
  const settings = await getSettings(db, shop);
  const countries = stockCountries(settings);
  const basics = await gateway.shopBasics();
  if (!basics.locationId) {
    out.notes.push("The shop has no location the app can see: stock is not set.");
  }
  const rate = await usdRate(db, basics.currencyCode, settings, {
    nowMs: now(),
    url: opts.fxRatesUrl,
  });
  if (!rate) out.notes.push(`No USD rate for ${basics.currencyCode}: prices are not changed.`);

  // The variants of these products, as first supplier or as a backup.
  const viaBackup = opts.pids
    ? (
        await db.backupSupplier.findMany({
          where: { shopDomain: shop, svcProductId: { in: opts.pids } },
          select: { shopifyVariantId: true },
        })
      ).map((b) => b.shopifyVariantId)
    : [];
  for (let cursor: string | undefined; ; ) {
    if (opts.signal?.aborted) throw new Error("stopped");
    const rows = await db.productConnection.findMany({
      where: {
        shopDomain: shop,
        ...(opts.pids
          ? {
              OR: [
                { svcProductId: { in: opts.pids } },
                ...(viaBackup.length ? [{ shopifyVariantId: { in: viaBackup } }] : []),
              ],
            }
          : {}),
      },
      orderBy: { id: "asc" },
      take: SYNC_PAGE,
      ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
    });
    if (rows.length === 0) break;
    cursor = rows[rows.length - 1]!.id;
    out.variants += rows.length;
    await syncPage(db, gateway, shop, rows, settings, countries, basics.locationId, rate, out, now);
    if (rows.length < SYNC_PAGE) break;
  }
  return out;
}

async function syncPage(
  db: PrismaClient,
  gateway: ShopGateway,
  shop: string,
  rows: ProductConnection[],
  settings: ShopSettings,
  countries: string[],
  locationId: string | null,
  rate: { usdPerUnit: string } | null,
  out: SyncResult,
  now: () => number,
) {
  const backups = await db.backupSupplier.findMany({
    where: { shopDomain: shop, shopifyVariantId: { in: rows.map((r) => r.shopifyVariantId) } },
    select: { shopifyVariantId: true, svcVid: true },
  });
  const facts = new Map(
    (
      await db.catalogVariant.findMany({
        where: { vid: { in: [...rows.map((r) => r.svcVid), ...backups.map((b) => b.svcVid)] } },
      })
    ).map((f) => [f.vid, f]),
  );

  // Inventory items (and today's price) not known yet: read from Shopify, 100 a call.
  const unknownItems = rows.filter((r) => !r.inventoryItemId);
  const read =
    locationId && unknownItems.length
      ? await gateway.variantStock(
          unknownItems.map((r) => variantGid(r.shopifyVariantId)),
          locationId,
        )
      : new Map();

  const plans: Plan[] = [];
  for (const row of rows) {
    const f = facts.get(row.svcVid);
    if (!f) {
      out.unknown++;
      continue;
    }
    const plan: Plan = { row };
    const fresh = read.get(variantGid(row.shopifyVariantId));
    let itemId = row.inventoryItemId;
    let current = row.stockSet;
    if (fresh) {
      row.shopPrice = fresh.price || row.shopPrice;
      if (fresh.tracked && fresh.available !== null) {
        itemId = fresh.inventoryItemId;
        current = fresh.available;
        row.inventoryItemId = itemId;
        // What the shop has now: nothing is written when it is what the supplier has.
        plan.observedStock = fresh.available;
      }
    }
    // Stock: the first supplier's, plus each backup's (an order goes to whichever has it).
    const mine = backups.filter((b) => b.shopifyVariantId === row.shopifyVariantId);
    const sources = [f, ...mine.map((b) => facts.get(b.svcVid)).filter((x) => x !== undefined)];
    const live = sources.filter((s) => !s.removed);
    const quantity = live.reduce((n, s) => n + stockIn(s.stock, countries), 0);
    if (live.length === 0 && row.flag !== "removed") {
      plan.flag = { kind: "removed", note: `Catalog variant ${row.svcVid} was removed` };
    } else if (live.length > 0 && row.flag === "removed") {
      plan.unflag = true;
    }
    if (settings.stockSync && itemId && locationId && quantity !== current) {
      plan.stock = { inventoryItemId: itemId, quantity };
    } else if (!itemId) {
      out.untracked++;
    }
    // Price: against the cost it was last priced from.
    const cost = f.costUsd?.toString() ?? null;
    if (cost && !f.removed) {
      const base = row.pricedFromUsd?.toString() ?? null;
      if (base === null) plan.baselineUsd = cost;
      else if (costMoved(base, cost, settings.repriceThresholdPct)) {
        if (settings.repriceOnCostChange === "apply" && rate) {
          plan.price = { ...priceFor(cost, settings, rate.usdPerUnit), costUsd: cost };
        } else if (row.flag !== "cost_change") {
          plan.flag = {
            kind: "cost_change",
            note: `Cost moved from ${base} to ${cost} USD`,
            costUsd: cost,
          };
        }
      }
    }
    plans.push(plan);
  }

  // Stock: ≤ 250 per call, each batch keyed by its content.
  const stockPlans = plans.filter((p) => p.stock);
  for (let i = 0; i < stockPlans.length; i += STOCK_BATCH) {
    const batch = stockPlans.slice(i, i + STOCK_BATCH);
    const items = batch.map((p) => p.stock!);
    const key = createHash("sha256")
      .update(`${shop}\n${locationId}\n${JSON.stringify(items)}`)
      .digest("hex")
      .slice(0, 40);
    await gateway.setStock(key, locationId!, items);
    const at = new Date(now());
    await db.$transaction([
      ...batch.map((p) =>
        db.productConnection.update({
          where: { id: p.row.id },
          data: {
            stockSet: p.stock!.quantity,
            inventoryItemId: p.stock!.inventoryItemId,
            syncedAt: at,
          },
        }),
      ),
      db.syncChange.createMany({
        data: batch.map((p) => ({
          shopDomain: shop,
          shopifyVariantId: p.row.shopifyVariantId,
          kind: "stock",
          before: p.row.stockSet === null ? null : String(p.row.stockSet),
          after: String(p.stock!.quantity),
          at,
        })),
      }),
    ]);
    out.stockSet += batch.length;
  }

  // Prices: one call per product.
  const byProduct = new Map<string, Plan[]>();
  for (const p of plans.filter((x) => x.price)) {
    byProduct.set(p.row.shopifyProductId, [...(byProduct.get(p.row.shopifyProductId) ?? []), p]);
  }
  for (const [productId, list] of byProduct) {
    await gateway.updatePrices(
      productGid(productId),
      list.map((p) => ({
        id: variantGid(p.row.shopifyVariantId),
        price: p.price!.price,
        compareAtPrice: p.price!.compareAtPrice,
      })),
    );
    const at = new Date(now());
    await db.$transaction([
      ...list.map((p) =>
        db.productConnection.update({
          where: { id: p.row.id },
          data: {
            pricedFromUsd: p.price!.costUsd,
            shopPrice: p.price!.price,
            // A removed variant back at a moved cost: re-priced, and no longer flagged.
            flag: p.unflag || p.row.flag === "cost_change" ? null : p.row.flag,
            syncedAt: at,
          },
        }),
      ),
      db.syncChange.createMany({
        data: list.map((p) => ({
          shopDomain: shop,
          shopifyVariantId: p.row.shopifyVariantId,
          kind: "price",
          before: p.row.shopPrice,
          after: p.price!.price,
          note: `Cost ${p.row.pricedFromUsd?.toString() ?? "?"} → ${p.price!.costUsd} USD`,
          at,
        })),
      }),
    ]);
    out.priced += list.length;
  }

  // Flags and baselines (no Shopify call).
  const at = new Date(now());
  const quiet = plans.filter(
    (p) =>
      (p.flag || p.unflag || p.baselineUsd || read.has(variantGid(p.row.shopifyVariantId))) &&
      !p.price,
  );
  if (quiet.length) {
    await db.$transaction([
      ...quiet.map((p) =>
        db.productConnection.update({
          where: { id: p.row.id },
          data: {
            ...(p.flag ? { flag: p.flag.kind, flaggedAt: at } : {}),
            ...(p.unflag ? { flag: null, flaggedAt: null } : {}),
            ...(p.baselineUsd ? { pricedFromUsd: p.baselineUsd } : {}),
            ...(p.row.inventoryItemId ? { inventoryItemId: p.row.inventoryItemId } : {}),
            ...(p.observedStock !== undefined && !p.stock ? { stockSet: p.observedStock } : {}),
            shopPrice: p.row.shopPrice,
          },
        }),
      ),
      db.syncChange.createMany({
        data: quiet
          .filter((p) => p.flag)
          .map((p) => ({
            shopDomain: shop,
            shopifyVariantId: p.row.shopifyVariantId,
            kind: p.flag!.kind,
            after: p.flag!.costUsd ?? null,
            note: p.flag!.note,
            at,
          })),
      }),
    ]);
    out.flagged += quiet.filter((p) => p.flag).length;
  }
}
