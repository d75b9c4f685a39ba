/**
 * The queue's own housekeeping, run as recurring jobs: jobs of a kind no handler knows are
 * cancelled, and the tables are pruned. `known` is the registry's list of kinds.
 */
import type { JobHandler, RecurringJob } from "../jobs/handler";
import { DIGEST_MAX_ATTEMPTS } from "../notify/digest.server";

export function maintenanceHandlers(known: () => string[]): Record<string, JobHandler> {
  return {
    /**
     * Jobs no handler knows (an event type nothing handles, from before the intake stored those
     * without a job, or a kind this version dropped) would wait forever and slow every claim:
     * they are cancelled, and their events marked ignored. An hour's grace covers a rolling
     * deploy, where a newer process may enqueue a kind this one does not know yet.
     */
    "jobs.cancelUnknown": async (ctx) => {
      const kinds = known();
      return ctx.commit(async (tx) => {
        const cancelled = await tx.$queryRaw<{ id: bigint }[]>`
          UPDATE "Job" SET "state" = 'cancelled', "finishedAt" = now(), "updatedAt" = now(),
                 "lastError" = 'no handler for this job kind'
          WHERE "state" = 'available' AND NOT ("kind" = ANY(${kinds}::text[]))
            AND "runAt" < now() - interval '1 hour'
          RETURNING "id"`;
        const ids = cancelled.map((c) => c.id);
        const events =
          ids.length === 0
            ? 0
            : await tx.$executeRaw`
                UPDATE "WebhookEvent" SET "ignoredReason" = 'no handler for this event type'
                WHERE "jobId" = ANY(${ids}::bigint[]) AND "ignoredReason" IS NULL`;
        return { cancelled: ids.length, eventsIgnored: events };
      });
    },

    /**
     * Keeps the tables small: finished jobs go after 7 days, webhook events after 30, what the
     * notification emails told (and the digests that told it) and the catalog sync's changes
     * after 90.
     */
    "jobs.prune": async (ctx) => {
      const week = new Date(Date.now() - 7 * 86400_000);
      const month = new Date(Date.now() - 30 * 86400_000);
      const quarter = new Date(Date.now() - 90 * 86400_000);
      // Deleting is idempotent: a plain transaction, its counts the job's result.
      return ctx.prisma.$transaction(async (tx) => ({
        jobs: (
          await tx.job.deleteMany({
            where: { state: { in: ["completed", "cancelled"] }, finishedAt: { lt: week } },
          })
        ).count,
        events: (await tx.webhookEvent.deleteMany({ where: { receivedAt: { lt: month } } })).count,
        // A notice still waiting for its digest stays, whatever its age.
        notices: (
          await tx.notice.deleteMany({
            where: { createdAt: { lt: quarter }, digestId: { not: null } },
          })
        ).count,
        syncChanges: (await tx.syncChange.deleteMany({ where: { at: { lt: quarter } } })).count,
        digests: (
          await tx.noticeDigest.deleteMany({
            where: {
              createdAt: { lt: quarter },
              OR: [{ sentAt: { not: null } }, { attempts: { gte: DIGEST_MAX_ATTEMPTS } }],
            },
          })
        ).count,
      }));
    },
  };
}

export const maintenanceRecurringJobs: RecurringJob[] = [
  { kind: "jobs.prune", everyMs: 24 * 3600_000 },
  { kind: "jobs.cancelUnknown", everyMs: 3600_000 },
];
