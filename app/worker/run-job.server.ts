/**
 * One claimed job, run: its handler called with the job's context, then its outcome recorded
 * (completed, rescheduled, retried or dead), with the job's id, kind and shop on every log line
 * it writes, and timed. The worker's loop (app/worker/worker.server.ts) claims and spawns.
 */
import type { PrismaClient } from "@prisma/client";
import { type JobContext, type JobHandler, PermanentJobError, RetryLater } from "../jobs/handler";
import {
  complete,
  errorMessage,
  fail,
  type JobRow,
  LeaseLostError,
  reschedule,
} from "../jobs/queue.server";
import type { CompletionBatcher } from "../jobs/completions.server";
import { withLogContext } from "../log-context.server";
import { type JobOutcome, startJobTimer } from "../metrics/registry.server";

/** What a worker lends each job it runs. */
export interface JobRunner {
  prisma: PrismaClient;
  workerId: string;
  handlers: Record<string, JobHandler>;
  /** Completions of jobs that finish together share one statement. */
  completions: CompletionBatcher;
  log: (level: "info" | "warn" | "error", msg: string, data?: object) => void;
}

/** Runs a job with its id, kind and shop on every log line it writes, and times it. */
export function executeJob(
  runner: JobRunner,
  job: JobRow,
  controller = new AbortController(),
): Promise<void> {
  const context = { jobId: String(job.id), jobKind: job.kind, shop: job.shopDomain ?? undefined };
  return withLogContext(context, async () => {
    const timer = startJobTimer(job);
    timer.done(await runJob(runner, job, controller));
  });
}

/**
 * An error that says "not now" rather than "failed": it carries `waitMs` (e.g. a shop whose
 * access Shopify revoked: ShopReauthRequiredError waits for the merchant to reconnect, and the
 * reconnection makes such jobs due at once, app/shops/shops.server.ts).
 */
function waitOf(error: unknown): number | null {
  const ms = (error as { waitMs?: unknown } | null)?.waitMs;
  return typeof ms === "number" && ms > 0 ? ms : null;
}

async function runJob(
  runner: JobRunner,
  job: JobRow,
  controller: AbortController,
): Promise<JobOutcome> {
  const { prisma, workerId, log } = runner;
  // Claims ask only for the kinds in `handlers`: every claimed job has its handler.
  const handler = runner.handlers[job.kind]!;
  let committed = false;
  const ctx: JobContext = {
    job,
    payload: job.payload,
    prisma,
    workerId,
    signal: controller.signal,
    commit: async (fn, result) => {
      const out = await prisma.$transaction(async (tx) => {
        const value = await fn(tx);
        await complete(tx, job, workerId, result ?? null);
        return value;
      });
      committed = true;
      return out;
    },
  };
  try {
    const result = await handler(ctx);
    // One UPDATE is atomic on its own: no transaction (and its round trips) needed, and the
    // jobs that finish together share it.
    if (!committed) await runner.completions.complete(job.id, result ?? null);
    return "completed";
  } catch (error) {
    if (error instanceof LeaseLostError) {
      log("warn", "lease lost; another worker runs the job", { jobId: String(job.id) });
      return "lease_lost";
    }
    if (error instanceof RetryLater) {
      const written = await recorded(
        runner,
        reschedule(prisma, job, workerId, error.delayMs, error.message),
      );
      return written === "unknown" ? "unknown" : "rescheduled";
    }
    const waitMs = waitOf(error);
    if (waitMs !== null) {
      // Not a failure: the job waits (attempt given back) with the reason in lastError.
      const written = await recorded(
        runner,
        reschedule(prisma, job, workerId, waitMs, errorMessage(error)),
      );
      log("warn", "job waits", { jobId: String(job.id), kind: job.kind, waitMs });
      return written === "unknown" ? "unknown" : "rescheduled";
    }
    const outcome = await recorded(
      runner,
      fail(prisma, job, workerId, error, { dead: error instanceof PermanentJobError }),
    );
    log(outcome === "dead" ? "error" : "warn", "job failed", {
      jobId: String(job.id),
      kind: job.kind,
      attempt: job.attempts,
      outcome,
      err: errorMessage(error),
    });
    return outcome === "dead" ? "dead" : outcome === "retry" ? "retried" : "unknown";
  }
}

/**
 * The write that records a failed or waiting job's outcome. One the database refuses (it is
 * down, or the error text holds what it cannot store) is logged, not thrown: the job stays
 * held until its lease runs out and then runs again, and the worker goes on.
 */
async function recorded<T>(runner: JobRunner, write: Promise<T>): Promise<T | "unknown"> {
  try {
    return await write;
  } catch (e) {
    runner.log("error", "could not record a job failure", { err: errorMessage(e) });
    return "unknown";
  }
}
