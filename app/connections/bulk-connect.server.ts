/**
 * The job that connects a shop's variants to the catalog by SKU, for any number of variants.
 * Its progress is written to the Job row's `result` as it goes, so the Products page shows a
 * progress bar that survives a reload (and a rerun after a crash skips what is connected).
 */
import type { Prisma, PrismaClient } from "@prisma/client";
import { autoMatchBySku, type MatchProgress } from "./connections.server";
import { shopGatewayFor } from "../shop/index.server";
import { svcClientForAccount } from "../svc/index.server";
import { startForShop } from "../jobs/enqueue.server";
import { type JobHandler, PermanentJobError } from "../jobs/handler";

export const BULK_CONNECT_JOB = "products.autoMatch";

export const bulkConnectHandler: JobHandler = async (ctx) => {
  const shop = ctx.job.shopDomain;
  if (!shop) throw new PermanentJobError("bulk connect without a shop");
  const account = await ctx.prisma.svcAccount.findUnique({ where: { shopDomain: shop } });
  if (!account) throw new PermanentJobError("the shop has no service account");
  const client = await svcClientForAccount(account.id, { prisma: ctx.prisma });
  const gateway = await shopGatewayFor(shop);
  const result = await autoMatchBySku({
    db: ctx.prisma,
    shop,
    gateway,
    client,
    signal: ctx.signal,
    report: (p) => writeProgress(ctx.prisma, ctx.job.id, p),
  });
  return result as unknown as Prisma.InputJsonValue;
};

async function writeProgress(db: PrismaClient, id: bigint, p: MatchProgress) {
  await db.job.updateMany({
    where: { id, state: "running" },
    data: { result: p as unknown as Prisma.InputJsonValue },
  });
}

/** Starts a run unless one is waiting or running for the shop; returns the job's id. */
export async function startBulkConnect(db: PrismaClient, shop: string): Promise<bigint> {
  return startForShop(db, { kind: BULK_CONNECT_JOB, shopDomain: shop, maxAttempts: 3 });
}

export interface BulkConnectStatus {
  id: string;
  state: string;
  progress: MatchProgress | null;
  lastError: string | null;
  finishedAt: string | null;
}

/** The latest run for the shop, for the progress bar. */
export async function bulkConnectStatus(
  db: PrismaClient,
  shop: string,
): Promise<BulkConnectStatus | null> {
  const job = await db.job.findFirst({
    where: { kind: BULK_CONNECT_JOB, shopDomain: shop },
    orderBy: { id: "desc" },
  });
  if (!job) return null;
  return {
    id: String(job.id),
    state: job.state,
    progress: (job.result as MatchProgress | null) ?? null,
    lastError: job.lastError,
    finishedAt: job.finishedAt?.toISOString() ?? null,
  };
}
