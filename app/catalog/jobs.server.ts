/**
 * The catalog's jobs (issue 16):
 * - `catalog.import`: one catalog product into the shop (import-job.server.ts);
 * - the service's PRODUCT / VARIANT / STOCK events (one job per shop of the account): the named
 *   products are read again and the shop's variants of them brought in step (sync.server.ts);
 * - `catalog.fullSync` every 6 hours → `catalog.syncShop` per shop with connections: every
 *   connected product read again (facts another shop read in the last 10 minutes are reused),
 *   then the whole shop in step. A lost event is caught here.
 */
import type { PrismaClient } from "@prisma/client";
import { enqueue, startForShop } from "../jobs/enqueue.server";
import type { JobContext, JobHandler, RecurringJob } from "../jobs/handler";
import { PermanentJobError } from "../jobs/handler";
import { loadEvent } from "../events/store.server";
import { accountOf } from "../svc-account/account.server";
import { catalogIdsFromParams, refreshFacts } from "./facts.server";
import { importJob } from "./import-job.server";
import { CATALOG_JOB, type GetDeps } from "./job-kinds";
import { syncShop } from "./sync.server";

const FULL_SYNC_EVERY_MS = 6 * 3600_000;
/** Facts read this recently (by another shop of the account, say) are not read again. */
const FACTS_FRESH_MS = 10 * 60_000;
const PID_PAGE = 500;

/** Distinct catalog products the shop is connected to (first suppliers and backups), paged. */
async function* connectedPids(db: PrismaClient, shop: string): AsyncGenerator<string[]> {
  for (let after = ""; ; ) {
    const rows = await db.$queryRaw<{ pid: string }[]>`
      SELECT DISTINCT "pid" FROM (
        SELECT "svcProductId" AS "pid" FROM "ProductConnection"
          WHERE "shopDomain" = ${shop} AND "svcProductId" IS NOT NULL
        UNION
        SELECT "svcProductId" FROM "BackupSupplier" WHERE "shopDomain" = ${shop}
      ) p WHERE "pid" > ${after} ORDER BY "pid" LIMIT ${PID_PAGE}`;
    if (rows.length === 0) return;
    yield rows.map((r) => r.pid);
    if (rows.length < PID_PAGE) return;
    after = rows[rows.length - 1]!.pid;
  }
}

/** A service catalog event (PRODUCT, VARIANT, STOCK): the named products' facts and the shops' stock and prices. */
export const catalogEvent =
  (getDeps: GetDeps): JobHandler =>
  async (ctx) => {
    const event = await loadEvent(ctx);
    if (!event?.shopDomain) return { skipped: "event gone" };
    const params = (event.payload as { params?: unknown } | null)?.params;
    const { pids, vids } = catalogIdsFromParams(params);
    const shop = event.shopDomain;
    // Variants named without their product: the product from what the app knows.
    const known = vids.length
      ? await ctx.prisma.catalogVariant.findMany({
          where: { vid: { in: vids } },
          select: { pid: true },
        })
      : [];
    const linked = vids.length
      ? await ctx.prisma.productConnection.findMany({
          where: { shopDomain: shop, svcVid: { in: vids }, svcProductId: { not: null } },
          select: { svcProductId: true },
        })
      : [];
    const all = [
      ...new Set([...pids, ...known.map((k) => k.pid), ...linked.map((l) => l.svcProductId!)]),
    ];
    // Only products this shop sells.
    const mine = [
      ...new Set(
        [
          ...(await ctx.prisma.productConnection.findMany({
            where: { shopDomain: shop, svcProductId: { in: all } },
            select: { svcProductId: true },
            distinct: ["svcProductId"],
          })),
          ...(await ctx.prisma.backupSupplier.findMany({
            where: { shopDomain: shop, svcProductId: { in: all } },
            select: { svcProductId: true },
            distinct: ["svcProductId"],
          })),
        ].map((r) => r.svcProductId!),
      ),
    ];
    if (mine.length === 0) return { skipped: "no connected product named", pids: all.length };
    // Read again unless another shop of the account did since this event arrived.
    return refreshThenSync(getDeps, ctx, shop, [mine], { freshSince: event.receivedAt }, mine);
  };

/**
 * Reads the catalog products again (batch by batch) unless fresh, then brings the shop's
 * variants of `pids` (all when null) in step.
 */
const refreshThenSync = async (
  getDeps: GetDeps,
  ctx: JobContext,
  shop: string,
  batches: Iterable<string[]> | AsyncIterable<string[]>,
  freshness: { freshSince?: Date; maxAgeMs?: number },
  pids: string[] | null,
) => {
  const account = await accountOf(ctx.prisma, shop);
  if (!account) return { skipped: "no service account" };
  const deps = await getDeps(ctx);
  const client = await deps.svcFor(account.id);
  const facts = { products: 0, variants: 0, removedProducts: 0, fresh: 0 };
  for await (const batch of batches) {
    const r = await refreshFacts(ctx.prisma, client, batch, {
      ...freshness,
      now: () => deps.clock.now(),
      signal: ctx.signal,
    });
    for (const k of Object.keys(facts) as (keyof typeof facts)[]) facts[k] += r[k];
  }
  const result = await syncShop({
    db: ctx.prisma,
    shop,
    gateway: await deps.shopFor(shop),
    pids,
    now: () => deps.clock.now(),
    signal: ctx.signal,
    fxRatesUrl: deps.options?.fxRatesUrl,
  });
  return { facts, ...result };
};

/** Every 6 hours: one full pass per shop with connections. */
const fullSyncJob: JobHandler = async (ctx) => {
  const shops = await ctx.prisma.productConnection.findMany({
    select: { shopDomain: true },
    distinct: ["shopDomain"],
  });
  const slot = Math.floor(Date.now() / FULL_SYNC_EVERY_MS);
  await ctx.commit(async (tx) => {
    for (const s of shops) {
      await enqueue(tx, {
        kind: CATALOG_JOB.syncShop,
        payload: { shop: s.shopDomain },
        idempotencyKey: `catalog-sync:${s.shopDomain}:${slot}`,
        concurrencyKey: `${CATALOG_JOB.syncShop}:${s.shopDomain}`,
        shopDomain: s.shopDomain,
        maxAttempts: 5,
      });
    }
  });
  return { shops: shops.length };
};

const syncShopJob =
  (getDeps: GetDeps): JobHandler =>
  async (ctx) => {
    const shop = (ctx.payload as { shop?: unknown } | null)?.shop;
    if (typeof shop !== "string") throw new PermanentJobError("Job payload has no shop");
    return refreshThenSync(
      getDeps,
      ctx,
      shop,
      connectedPids(ctx.prisma, shop),
      { maxAgeMs: FACTS_FRESH_MS },
      null,
    );
  };

export function catalogHandlers(getDeps: GetDeps): Record<string, JobHandler> {
  return {
    [CATALOG_JOB.import]: importJob(getDeps),
    [CATALOG_JOB.fullSync]: fullSyncJob,
    [CATALOG_JOB.syncShop]: syncShopJob(getDeps),
  };
}

/** Starts a full pass for one shop now (the Products page's button). */
export async function startShopSync(db: PrismaClient, shop: string) {
  return startForShop(db, {
    kind: CATALOG_JOB.syncShop,
    payload: { shop },
    shopDomain: shop,
    maxAttempts: 5,
  });
}

export const catalogRecurringJobs: RecurringJob[] = [
  { kind: CATALOG_JOB.fullSync, everyMs: FULL_SYNC_EVERY_MS },
];
