/**
 * A durable job queue in our own tables (the pattern of Oban, Solid Queue and good_job); this
 * module runs the jobs that app/jobs/enqueue.server.ts adds:
 *
 * - A job is a row of "Job". Workers claim with `FOR UPDATE SKIP LOCKED`, so any number of
 *   processes share the table without blocking each other; a claim is a lease (`lockedUntil`)
 *   that a live worker extends, and that another worker takes over once it expires (its holder
 *   died).
 * - Failures retry with capped, jittered exponential backoff; after `maxAttempts` the job is
 *   `dead` and keeps its last error. `concurrencyKey` allows one running job per key (a partial
 *   unique index guards races).
 *
 * Only plain SQL that PostgreSQL and PGlite both run, on one connection or many. Claims need no
 * LISTEN/NOTIFY; on a PostgreSQL server, app/jobs/wake.server.ts uses it to wake idle workers.
 * Each write is one statement (one round trip, no BEGIN/COMMIT of its own).
 */
import type { Prisma, PrismaClient } from "@prisma/client";
import type { Db } from "../db/types";

export type JobState = "available" | "running" | "completed" | "dead" | "cancelled";

export interface JobRow {
  id: bigint;
  kind: string;
  payload: unknown;
  state: JobState;
  runAt: Date;
  attempts: number;
  maxAttempts: number;
  idempotencyKey: string | null;
  concurrencyKey: string | null;
  lockedBy: string | null;
  lockedUntil: Date | null;
  lastError: string | null;
  shopDomain: string | null;
}

/**
 * Claims up to `limit` jobs that are due for `workerId`, leasing them for `leaseMs`, in one
 * statement (the batched claim of graphile-worker and Oban: one round trip for a batch, not one
 * per job). A job whose lease expired counts as due (its worker died); its new attempt is
 * counted. Of several due jobs sharing a concurrency key, only the earliest is taken, and none
 * while one of that key runs.
 */
export async function claim(
  db: PrismaClient,
  workerId: string,
  opts: { limit: number; leaseMs: number; kinds?: string[] },
): Promise<JobRow[]> {
  // With no slot free, nothing is asked (no round trip).
  if (opts.limit <= 0) return [];
  const kinds = opts.kinds ?? null;
  try {
    return await claimBatch(db, workerId, opts.limit, opts.leaseMs, kinds);
  } catch (error) {
    // Another worker took a job of the same concurrency key at the same instant: the whole
    // statement is refused, and this round claims nothing (the next one comes at once).
    if (isUniqueViolation(error)) return [];
    throw error;
  }
}

/** The batch claim's statement (the order of the rows it returns is not specified). */
function claimBatch(
  db: PrismaClient,
  workerId: string,
  limit: number,
  leaseMs: number,
  kinds: string[] | null,
): Promise<JobRow[]> {
  // Each branch reads its own index range (available by runAt; running by state); candidates
  // are locked (SKIP LOCKED: rows another claim holds are passed over), then one per key kept.
  return db.$queryRaw<JobRow[]>`
    WITH available AS (
      SELECT j."id", j."runAt", j."concurrencyKey" FROM "Job" j
       WHERE j."state" = 'available' AND j."runAt" <= now()
         AND (${kinds}::text[] IS NULL OR j."kind" = ANY(${kinds}::text[]))
         AND (j."concurrencyKey" IS NULL OR NOT EXISTS (
               SELECT 1 FROM "Job" r
               WHERE r."concurrencyKey" = j."concurrencyKey" AND r."state" = 'running'))
       ORDER BY j."runAt", j."id"
       LIMIT ${limit}
       FOR UPDATE SKIP LOCKED
    ), lapsed AS (
      SELECT j."id", j."runAt", j."concurrencyKey" FROM "Job" j
       WHERE j."state" = 'running' AND j."lockedUntil" < now() AND j."attempts" < j."maxAttempts"
         AND (${kinds}::text[] IS NULL OR j."kind" = ANY(${kinds}::text[]))
         AND (j."concurrencyKey" IS NULL OR NOT EXISTS (
               SELECT 1 FROM "Job" r
               WHERE r."concurrencyKey" = j."concurrencyKey" AND r."state" = 'running'
                 AND r."id" <> j."id"))
       ORDER BY j."runAt", j."id"
       LIMIT ${limit}
       FOR UPDATE SKIP LOCKED
    ), due AS (
      SELECT * FROM available UNION ALL SELECT * FROM lapsed
    ), picked AS (
      SELECT "id" FROM (
        SELECT d."id", d."runAt",
               row_number() OVER (PARTITION BY COALESCE(d."concurrencyKey", d."id"::text)
                                  ORDER BY d."runAt", d."id") AS nth
        FROM due d) ranked
      WHERE nth = 1
      ORDER BY "runAt", "id"
      LIMIT ${limit}
    )
    UPDATE "Job" SET "state" = 'running', "lockedBy" = ${workerId},
           "lockedUntil" = now() + make_interval(secs => ${leaseMs / 1000}),
           "attempts" = "Job"."attempts" + 1, "updatedAt" = now()
    FROM picked WHERE "Job"."id" = picked."id"
    RETURNING "Job".*`;
}

/** A unique violation's message (23505) names its index: this is the only one a claim can meet. */
function isUniqueViolation(error: unknown): boolean {
  return String(error).includes("Job_running_concurrencyKey_key");
}

/** Extends the lease of jobs this worker still holds. Returns the ids it still owns. */
export async function heartbeat(
  db: PrismaClient,
  workerId: string,
  ids: bigint[],
  leaseMs: number,
): Promise<bigint[]> {
  const rows = await db.$queryRaw<{ id: bigint }[]>`
    UPDATE "Job" SET "lockedUntil" = now() + make_interval(secs => ${leaseMs / 1000}),
                     "updatedAt" = now()
    WHERE "id" = ANY(${ids}::bigint[]) AND "lockedBy" = ${workerId} AND "state" = 'running'
    RETURNING "id"`;
  return rows.map((r) => r.id);
}

export class LeaseLostError extends Error {
  constructor(jobId: bigint) {
    // Stryker disable next-line StringLiteral: message
    super(`Job ${jobId} is no longer held by this worker (its lease expired)`);
    this.name = "LeaseLostError";
  }
}

/**
 * Marks a job completed, inside `tx`, only if this worker still holds it. Throws
 * LeaseLostError otherwise, which rolls back whatever else the transaction did: an effect
 * recorded with its completion happens once.
 */
export async function complete(
  tx: Db,
  job: Pick<JobRow, "id">,
  workerId: string,
  result: Prisma.InputJsonValue | null = null,
): Promise<void> {
  const n = await tx.$executeRaw`
    UPDATE "Job" SET "state" = 'completed', "result" = ${result === null ? null : JSON.stringify(result)}::jsonb,
           "lockedBy" = NULL, "lockedUntil" = NULL, "finishedAt" = now(), "updatedAt" = now(),
           "lastError" = NULL
    WHERE "id" = ${job.id} AND "lockedBy" = ${workerId} AND "state" = 'running'`;
  if (n !== 1) throw new LeaseLostError(job.id);
}

/**
 * Marks several jobs completed in one statement, each only if this worker still holds it.
 * Returns the ids it completed; a missing id's lease was lost (another worker runs it).
 */
export async function completeMany(
  db: Db,
  workerId: string,
  jobs: { id: bigint; result: Prisma.InputJsonValue | null }[],
): Promise<Set<bigint>> {
  // Nothing to complete: no round trip.
  if (jobs.length === 0) return new Set();
  const ids = jobs.map((j) => j.id);
  const results = jobs.map((j) => (j.result === null ? null : JSON.stringify(j.result)));
  const rows = await db.$queryRaw<{ id: bigint }[]>`
    UPDATE "Job" SET "state" = 'completed', "result" = done."result"::jsonb,
           "lockedBy" = NULL, "lockedUntil" = NULL, "finishedAt" = now(), "updatedAt" = now(),
           "lastError" = NULL
    FROM unnest(${ids}::bigint[], ${results}::text[]) AS done("id", "result")
    WHERE "Job"."id" = done."id" AND "Job"."lockedBy" = ${workerId} AND "Job"."state" = 'running'
    RETURNING "Job"."id"`;
  return new Set(rows.map((r) => r.id));
}

/** Delay before attempt n+1: exponential from 1 s, capped, with full jitter in [50%, 100%]. */
export function backoffMs(attempts: number, capMs = 10 * 60_000, random = Math.random): number {
  const exp = Math.min(capMs, 1000 * 2 ** Math.max(0, attempts - 1));
  return Math.round(exp / 2 + random() * (exp / 2));
}

/** Records a failed attempt: back to `available` later, or `dead` after the last attempt. */
export async function fail(
  db: PrismaClient,
  job: Pick<JobRow, "id" | "attempts" | "maxAttempts">,
  workerId: string,
  error: unknown,
  opts: { dead?: boolean } = {},
): Promise<"retry" | "dead"> {
  const message = errorMessage(error);
  const dead = opts.dead || job.attempts >= job.maxAttempts;
  const delay = backoffMs(job.attempts);
  await db.$executeRaw`
    UPDATE "Job" SET "state" = ${dead ? "dead" : "available"},
           "runAt" = now() + make_interval(secs => ${delay / 1000}),
           "lastError" = ${message}, "lockedBy" = NULL, "lockedUntil" = NULL,
           "finishedAt" = ${dead ? new Date() : null}, "updatedAt" = now()
    WHERE "id" = ${job.id} AND "lockedBy" = ${workerId}`;
  return dead ? "dead" : "retry";
}

/**
 * Puts a job back to wait (a handler said "not yet", e.g. the balance is short): it runs again
 * after `delayMs`; waiting is not failing, so the attempt is given back.
 */
export async function reschedule(
  db: PrismaClient,
  job: Pick<JobRow, "id">,
  workerId: string,
  delayMs: number,
  reason: string,
): Promise<void> {
  await db.$executeRaw`
    UPDATE "Job" SET "state" = 'available',
           "runAt" = now() + make_interval(secs => ${delayMs / 1000}),
           "lastError" = ${reason.slice(0, 2000)}, "lockedBy" = NULL, "lockedUntil" = NULL,
           "attempts" = GREATEST(0, "attempts" - 1), "updatedAt" = now()
    WHERE "id" = ${job.id} AND "lockedBy" = ${workerId}`;
}

/** Gives a job back untouched (shutdown): it runs again at once elsewhere, attempt not counted. */
export async function release(db: PrismaClient, ids: bigint[], workerId: string): Promise<number> {
  return db.$executeRaw`
    UPDATE "Job" SET "state" = 'available', "lockedBy" = NULL, "lockedUntil" = NULL,
           "attempts" = GREATEST(0, "attempts" - 1), "updatedAt" = now()
    WHERE "id" = ANY(${ids}::bigint[]) AND "lockedBy" = ${workerId} AND "state" = 'running'`;
}

/** Moves jobs whose holder died after their last attempt to `dead` (claim skips none of them). */
export async function buryExpired(db: PrismaClient): Promise<number> {
  return db.$executeRaw`
    UPDATE "Job" SET "state" = 'dead', "lockedBy" = NULL, "lockedUntil" = NULL,
           "lastError" = COALESCE("lastError", 'the worker stopped while running it (lease expired)'),
           "finishedAt" = now(), "updatedAt" = now()
    WHERE "state" = 'running' AND "lockedUntil" < now() AND "attempts" >= "maxAttempts"`;
}

/** An error as text for `lastError`: message only, bounded; never a request or its headers. */
export function errorMessage(error: unknown): string {
  const text =
    error instanceof Error
      ? `${error.name}: ${error.message}`
      : `Non-error thrown: ${String(error)}`;
  return text.slice(0, 2000);
}
