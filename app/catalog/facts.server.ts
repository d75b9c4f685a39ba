/**
 * What the catalog says of its variants (cost in USD, stock per warehouse country, removed),
 * kept in CatalogVariant. The service's PRODUCT/VARIANT/STOCK events say which products moved,
 * but their bodies are "not shown" in the contract: the app reads only the ids from them
 * (tolerantly) and asks the catalog itself (product query: one call answers every variant of a
 * product), so a body in another shape still leads to the right facts.
 */
import { Prisma, type PrismaClient } from "@prisma/client";
import type { ProductDetail, SvcClient } from "../svc/index.server";
import { SvcProductRemovedError } from "../svc/index.server";

import type { Db } from "../db/types";

/** Product and variant ids named anywhere in an event's params (pid/productId, vid/variantId). */
export function catalogIdsFromParams(params: unknown): { pids: string[]; vids: string[] } {
  const pids = new Set<string>();
  const vids = new Set<string>();
  const id = (v: unknown) =>
    (typeof v === "string" && v.trim() && v.length <= 200) || typeof v === "number"
      ? String(v).trim()
      : null;
  const walk = (v: unknown, depth: number) => {
    if (depth > 4 || v === null || typeof v !== "object") return;
    if (Array.isArray(v)) {
      for (const x of v.slice(0, 1000)) walk(x, depth + 1);
      return;
    }
    const o = v as Record<string, unknown>;
    for (const k of ["pid", "productId", "svcProductId"]) {
      const x = id(o[k]);
      if (x) pids.add(x);
    }
    for (const k of ["vid", "variantId", "svcVariantId"]) {
      const x = id(o[k]);
      if (x) vids.add(x);
    }
    for (const x of Object.values(o)) if (x && typeof x === "object") walk(x, depth + 1);
  };
  let p = params;
  if (typeof p === "string") {
    try {
      p = JSON.parse(p);
    } catch {
      p = null;
    }
  }
  walk(p, 0);
  return { pids: [...pids], vids: [...vids] };
}

/** Stock per country of a catalog variant record. */
export function stockOf(v: ProductDetail["variants"][number]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const i of v.inventories ?? []) {
    const c = (i.countryCode ?? "").toUpperCase();
    if (!/^[A-Z]{2}$/.test(c)) continue;
    out[c] = (out[c] ?? 0) + Math.max(0, Math.floor(Number(i.totalInventory ?? 0)) || 0);
  }
  return out;
}

/** The stock that counts for a shop: the sum over the warehouse countries it ships from. */
export function stockIn(stock: unknown, countries: string[]): number {
  const s = (stock && typeof stock === "object" ? stock : {}) as Record<string, unknown>;
  return countries.reduce((n, c) => n + (Number(s[c]) > 0 ? Math.floor(Number(s[c])) : 0), 0);
}

/** The countries whose stock counts: the setting, or the ship-from country. */
export function stockCountries(settings: { stockCountries: string; fromCountryCode: string }) {
  const list = settings.stockCountries
    .split(",")
    .map((c) => c.trim().toUpperCase())
    .filter((c) => /^[A-Z]{2}$/.test(c));
  return list.length ? [...new Set(list)] : [settings.fromCountryCode];
}

/**
 * Stores a product detail's variants in one statement; variants of the product it no longer
 * lists are marked removed.
 */
export async function storeDetail(db: Db, detail: ProductDetail, now: Date): Promise<number> {
  const pid = detail.pid ?? "";
  if (!pid) return 0;
  const listed = (detail.variants ?? []).filter((v) => v.vid);
  const name = detail.productNameEn ?? detail.productName ?? "";
  const image = detail.bigImage ?? detail.productImageSet?.[0] ?? null;
  const supplier = detail.supplierName ?? null;
  if (listed.length) {
    const values = listed.map(
      (v) =>
        Prisma.sql`(${v.vid}, ${pid}, ${name}, ${image}, ${v.variantKey ?? null}, ${
          v.variantImage ?? null
        }, ${v.variantSku ?? null}, ${supplier}, ${
          v.variantSellPrice != null ? String(v.variantSellPrice) : null
        }::numeric, ${JSON.stringify(stockOf(v))}::jsonb, false, ${now})`,
    );
    await db.$executeRaw`
      INSERT INTO "CatalogVariant" ("vid", "pid", "productName", "productImage", "variantKey",
        "variantImage", "sku", "supplierName", "costUsd", "stock", "removed", "checkedAt")
      VALUES ${Prisma.join(values)}
      ON CONFLICT ("vid") DO UPDATE SET "pid" = EXCLUDED."pid",
        "productName" = EXCLUDED."productName", "productImage" = EXCLUDED."productImage",
        "variantKey" = EXCLUDED."variantKey", "variantImage" = EXCLUDED."variantImage",
        "sku" = EXCLUDED."sku", "supplierName" = EXCLUDED."supplierName",
        "costUsd" = EXCLUDED."costUsd", "stock" = EXCLUDED."stock", "removed" = false,
        "checkedAt" = EXCLUDED."checkedAt"`;
  }
  await db.catalogVariant.updateMany({
    where: { pid, vid: { notIn: listed.map((v) => v.vid!) }, removed: false },
    data: { removed: true, checkedAt: now },
  });
  return listed.length;
}

/**
 * A product the service reports removed: every variant of it the app knows (read before, or
 * only connected by a shop, as first supplier or backup) is marked removed.
 */
async function markProductRemoved(db: PrismaClient, pid: string, at: Date) {
  const [conns, backups] = await Promise.all([
    db.productConnection.findMany({
      where: { svcProductId: pid },
      select: { svcVid: true },
      distinct: ["svcVid"],
    }),
    db.backupSupplier.findMany({
      where: { svcProductId: pid },
      select: { svcVid: true },
      distinct: ["svcVid"],
    }),
  ]);
  const vids = [...new Set([...conns, ...backups].map((r) => r.svcVid))];
  if (vids.length)
    await db.catalogVariant.createMany({
      data: vids.map((vid) => ({ vid, pid, productName: "", removed: true, checkedAt: at })),
      skipDuplicates: true,
    });
  await db.catalogVariant.updateMany({ where: { pid }, data: { removed: true, checkedAt: at } });
}

/** Catalog reads in flight at once per refresh. */
export const READS_IN_FLIGHT = 4;

export interface RefreshResult {
  products: number;
  variants: number;
  removedProducts: number;
  /** Fresh enough already (another shop of the account asked moments ago). */
  fresh: number;
}

/**
 * Reads these catalog products (one product query each) into CatalogVariant. A product whose
 * facts are fresh (see the options) is not asked again; one the service reports removed
 * (1602002) has all its variants marked removed.
 */
export async function refreshFacts(
  db: PrismaClient,
  client: SvcClient,
  pids: string[],
  opts: {
    now?: () => number;
    /** Products read this recently are not read again… */
    maxAgeMs?: number;
    /** …or read at or after this moment (an event: facts read since it arrived are fresh). */
    freshSince?: Date;
    signal?: AbortSignal;
  } = {},
): Promise<RefreshResult> {
  const now = opts.now ?? Date.now;
  const out: RefreshResult = { products: 0, variants: 0, removedProducts: 0, fresh: 0 };
  const wanted = [...new Set(pids.filter(Boolean))];
  const since = opts.freshSince
    ? opts.freshSince.getTime()
    : opts.maxAgeMs
      ? now() - opts.maxAgeMs
      : null;
  const recent =
    since !== null
      ? new Set(
          (
            await db.catalogVariant.groupBy({
              by: ["pid"],
              where: { pid: { in: wanted } },
              _min: { checkedAt: true },
            })
          )
            .filter((g) => g._min.checkedAt && g._min.checkedAt.getTime() >= since)
            .map((g) => g.pid),
        )
      : new Set<string>();
  const todo = wanted.filter((pid) => !recent.has(pid));
  out.fresh = wanted.length - todo.length;
  // A few reads in flight: the client's limiter paces them to the account's rate, and a slow
  // reply does not leave the rest of the second unused.
  let next = 0;
  const one = async () => {
    while (next < todo.length) {
      if (opts.signal?.aborted) throw new Error("stopped");
      const pid = todo[next++]!;
      try {
        const detail = await client.catalog.product({ pid });
        // Stored first, then added: `out.variants += await …` would read the total before the
        // await and lose what the other reads in flight added meanwhile.
        const stored = await storeDetail(db, detail, new Date(now()));
        out.variants += stored;
        out.products++;
      } catch (error) {
        if (!(error instanceof SvcProductRemovedError)) throw error;
        await markProductRemoved(db, pid, new Date(now()));
        out.removedProducts++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READS_IN_FLIGHT, todo.length) }, one));
  return out;
}
