/**
 * The dispute sync on a schedule: every 10 minutes each connected account's last 90 days, once
 * a day its whole history (sync.server.ts says why both). One job per account at a time.
 */
import type { FulfilmentDeps } from "../orders/deps.server";
import { enqueue } from "../jobs/enqueue.server";
import type { JobContext, JobHandler, RecurringJob } from "../jobs/handler";
import { PermanentJobError, RetryLater } from "../jobs/handler";
import { SvcAuthError, SvcTokenCooldownError } from "../svc/errors";
import { CONNECTED } from "../svc-account/webhooks.server";
import { syncDisputes } from "./sync.server";

export const DISPUTE_JOB = {
  syncAll: "disputes.syncAll",
  fullSyncAll: "disputes.fullSyncAll",
  syncAccount: "disputes.syncAccount",
} as const;

const RECENT_EVERY_MS = 10 * 60_000;
const FULL_EVERY_MS = 24 * 3600_000;

type Mode = "recent" | "full";

function fanOut(mode: Mode, everyMs: number): JobHandler {
  return async (ctx) => {
    const accounts = await ctx.prisma.svcAccount.findMany({
      where: { shopDomain: { not: null }, ...CONNECTED },
      select: { id: true, shopDomain: true },
    });
    const slot = Math.floor(Date.now() / everyMs);
    await ctx.commit(async (tx) => {
      for (const a of accounts) {
        await enqueue(tx, {
          kind: DISPUTE_JOB.syncAccount,
          payload: { accountId: a.id, mode },
          idempotencyKey: `disputes:${mode}:${a.id}:${slot}`,
          concurrencyKey: `${DISPUTE_JOB.syncAccount}:${a.id}`,
          shopDomain: a.shopDomain ?? undefined,
          maxAttempts: 4,
        });
      }
    });
    return { accounts: accounts.length, mode };
  };
}

export function disputeHandlers(
  getDeps: (ctx: JobContext) => FulfilmentDeps | Promise<FulfilmentDeps>,
): Record<string, JobHandler> {
  return {
    [DISPUTE_JOB.syncAll]: fanOut("recent", RECENT_EVERY_MS),
    [DISPUTE_JOB.fullSyncAll]: fanOut("full", FULL_EVERY_MS),
    [DISPUTE_JOB.syncAccount]: async (ctx) => {
      const p = ctx.payload as { accountId?: unknown; mode?: unknown } | null;
      if (typeof p?.accountId !== "string") throw new PermanentJobError("no accountId");
      const mode: Mode = p.mode === "full" ? "full" : "recent";
      const account = await ctx.prisma.svcAccount.findFirst({
        where: { id: p.accountId, shopDomain: { not: null }, ...CONNECTED },
        select: { id: true, shopDomain: true },
      });
      if (!account?.shopDomain) return { skipped: "account not connected" };
      const deps = await getDeps(ctx);
      try {
        const client = await deps.svcFor(account.id);
        return await syncDisputes(
          ctx.prisma,
          client,
          { id: account.id, shopDomain: account.shopDomain },
          { mode, now: deps.clock.now(), signal: ctx.signal },
        );
      } catch (error) {
        if (error instanceof SvcTokenCooldownError)
          throw new RetryLater(Math.max(1000, error.retryAfterMs), "waiting for a token");
        if (error instanceof SvcAuthError)
          throw new PermanentJobError(`${error.name}: ${error.message}`);
        throw error;
      }
    },
  };
}

export const disputeRecurringJobs: RecurringJob[] = [
  { kind: DISPUTE_JOB.syncAll, everyMs: RECENT_EVERY_MS },
  { kind: DISPUTE_JOB.fullSyncAll, everyMs: FULL_EVERY_MS },
];
