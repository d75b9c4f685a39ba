/**
 * The archive's jobs: copying due files (`archive.run`), finding missing ones (`archive.scan`)
 * and deleting dispute uploads past their hour (`archive.pruneUploads`).
 */
import type { FulfilmentDeps } from "../orders/deps.server";
import { enqueue } from "../jobs/enqueue.server";
import { logger } from "../logger.server";
import type { JobContext, JobHandler, RecurringJob } from "../jobs/handler";
import { CONNECTED } from "../svc-account/webhooks.server";
import { ARCHIVE_JOB, askAndQueue, ordersMissing, runArchive } from "./archive.server";
import { pruneUploads } from "./files.server";

const SCAN_EVERY_MS = 30 * 60_000;

export function archiveHandlers(
  getDeps: (ctx: JobContext) => FulfilmentDeps | Promise<FulfilmentDeps>,
  opts: { fetchImpl?: typeof fetch } = {},
): Record<string, JobHandler> {
  return {
    [ARCHIVE_JOB.run]: async (ctx) => {
      const deps = await getDeps(ctx);
      const hosts = async (shopDomain: string) => {
        const a = await ctx.prisma.svcAccount.findUnique({
          where: { shopDomain },
          select: { baseUrl: true },
        });
        return a?.baseUrl ? new URL(a.baseUrl).host : undefined;
      };
      const total = { kept: 0, retrying: 0, gaveUp: 0 };
      // A few batches a run; what is left is picked up by the next run.
      for (let i = 0; i < 5; i++) {
        const r = await runArchive(ctx.prisma, {
          now: deps.clock.now(),
          trustedHostOf: hosts,
          fetchImpl: opts.fetchImpl,
          signal: ctx.signal,
        });
        total.kept += r.kept;
        total.retrying += r.retrying;
        total.gaveUp += r.gaveUp;
        if (!r.more) break;
      }
      // A retry waits for its time: the next copy due wakes a run then (the half-hourly run
      // catches anything later).
      const next = await ctx.prisma.archiveTask.findFirst({
        where: { doneAt: null },
        orderBy: { nextAt: "asc" },
        select: { nextAt: true },
      });
      if (next) {
        const at = Math.max(next.nextAt.getTime(), Date.now() + 1000);
        await enqueue(ctx.prisma, {
          kind: ARCHIVE_JOB.run,
          payload: {},
          runAt: new Date(at),
          idempotencyKey: `archive:run:${Math.floor(at / 60_000)}`,
          maxAttempts: 3,
        });
      }
      return total;
    },

    [ARCHIVE_JOB.pruneUploads]: async (ctx) => {
      const deps = await getDeps(ctx);
      return { ...(await pruneUploads(ctx.prisma, deps.clock.now())) };
    },

    [ARCHIVE_JOB.scan]: async (ctx) => {
      const deps = await getDeps(ctx);
      const accounts = await ctx.prisma.svcAccount.findMany({
        where: { shopDomain: { not: null }, ...CONNECTED },
        select: { id: true, shopDomain: true },
      });
      let queued = 0;
      for (const a of accounts) {
        const client = await deps.svcFor(a.id);
        for (const purpose of ["proof_of_delivery", "warehouse_photo"] as const) {
          const missing = await ordersMissing(ctx.prisma, a.id, purpose, deps.clock.now());
          if (missing.length === 0) continue;
          try {
            queued += await askAndQueue(ctx.prisma, client, a.shopDomain!, purpose, missing);
          } catch (error) {
            // One account's outage does not stop the others; the next scan asks again.
            logger.warn(
              {
                account: a.id,
                purpose,
                err: error instanceof Error ? error.message : String(error),
              },
              "archive scan: the service did not answer",
            );
          }
        }
      }
      return { accounts: accounts.length, queued };
    },
  };
}

export const archiveRecurringJobs: RecurringJob[] = [
  { kind: ARCHIVE_JOB.scan, everyMs: SCAN_EVERY_MS },
  { kind: ARCHIVE_JOB.run, everyMs: SCAN_EVERY_MS },
  { kind: ARCHIVE_JOB.pruneUploads, everyMs: 3600_000 },
];
