/**
 * Jobs of the service-account hygiene: registering an account's webhooks (after the
 * authorization-code flow, on the schedule, after a run of delivery gaps), and the schedule's
 * fan-out.
 */
import { z } from "zod";
import type { JobHandler, RecurringJob } from "../jobs/handler";
import { PermanentJobError, RetryLater } from "../jobs/handler";
import { SvcAuthError, SvcTokenCooldownError } from "../svc/errors";
import { REREGISTER_EVERY_MS, SVC_ACCOUNT_JOB } from "./kinds";
import {
  enqueueReregistrations,
  registerAccountWebhooks,
  type SvcAccountDeps,
} from "./webhooks.server";

const registerPayload = z.object({ accountId: z.string().min(1), reason: z.string().optional() });

export function svcAccountHandlers(deps: SvcAccountDeps = {}): Record<string, JobHandler> {
  return {
    [SVC_ACCOUNT_JOB.registerWebhooks]: async (ctx) => {
      const p = registerPayload.safeParse(ctx.payload);
      if (!p.success) throw new PermanentJobError("Job payload has no accountId");
      const account = await ctx.prisma.svcAccount.findUnique({
        where: { id: p.data.accountId },
        select: { shopDomain: true },
      });
      // Disconnected or uninstalled meanwhile: nothing to keep alive.
      if (!account?.shopDomain) return { skipped: "account not connected" };
      try {
        const r = await registerAccountWebhooks(ctx.prisma, p.data.accountId, deps);
        return { registered: true, reason: p.data.reason ?? null, sharedWith: r.shared };
      } catch (error) {
        // A token request of another process is in flight: try once it may have landed.
        if (error instanceof SvcTokenCooldownError) {
          throw new RetryLater(Math.max(1000, error.retryAfterMs), "waiting for a token");
        }
        // Without a usable credential retrying cannot help; the merchant must connect again.
        if (error instanceof SvcAuthError) {
          throw new PermanentJobError(`${error.name}: ${error.message}`);
        }
        throw error;
      }
    },

    [SVC_ACCOUNT_JOB.reregisterAll]: async (ctx) =>
      ctx.commit(async (tx) => ({ accounts: await enqueueReregistrations(tx, Date.now()) })),
  };
}

export const svcAccountRecurringJobs: RecurringJob[] = [
  { kind: SVC_ACCOUNT_JOB.reregisterAll, everyMs: REREGISTER_EVERY_MS },
];
