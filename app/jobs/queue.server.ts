/**
 * A durable job queue in our own tables (the pattern of Oban, Solid Queue and good_job):
 *
 * - A job is a row of "Job". It is enqueued in the same transaction as whatever caused it, so
 *   an event is never stored without its job, nor a job without its event.
 * - Workers claim with `FOR UPDATE SKIP LOCKED`, so any number of processes share the table
 *   without blocking each other; a claim is a lease (`lockedUntil`) that a live worker extends,
 *   and that another worker takes over once it expires (its holder died).
 * - Failures retry with capped, jittered exponential backoff; after `maxAttempts` the job is
 *   `dead` and keeps its last error. `idempotencyKey` makes enqueueing idempotent;
 *   `concurrencyKey` allows one running job per key (a partial unique index guards races).
 *
 * Only plain SQL that PostgreSQL and PGlite both run, on one connection or many: no LISTEN/NOTIFY.
 */
import type { Prisma, PrismaClient } from "@prisma/client";

/** Either the client or a transaction: enqueue inside the caller's transaction. */
export type Db = PrismaClient | Prisma.TransactionClient;

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

export interface EnqueueOptions {
  kind: string;
  payload?: Prisma.InputJsonValue;
  runAt?: Date;
  idempotencyKey?: string;
  concurrencyKey?: string;
  maxAttempts?: number;
  shopDomain?: string;
}

/**
 * Adds a job; with an idempotency key already used, adds nothing. Returns the job's id and
 * whether this call created it.
 */
export async function enqueue(
  db: Db,
  opts: EnqueueOptions,
): Promise<{ id: bigint; created: boolean }> {
  const payload = JSON.stringify(opts.payload ?? {});
  // One round trip: the new job's id, or the one that holds the key.
  const rows = await db.$queryRaw<{ id: bigint; created: boolean }[]>`
    WITH inserted AS (
      INSERT INTO "Job" ("kind", "payload", "runAt", "idempotencyKey", "concurrencyKey",
                         "maxAttempts", "shopDomain", "updatedAt")
      VALUES (${opts.kind}, ${payload}::jsonb, ${opts.runAt ?? new Date()}, ${opts.idempotencyKey ?? null},
              ${opts.concurrencyKey ?? null}, ${opts.maxAttempts ?? 10}, ${opts.shopDomain ?? null}, now())
      ON CONFLICT ("idempotencyKey") DO NOTHING
      RETURNING "id"
    )
    SELECT "id", true AS "created" FROM inserted
    UNION ALL
    SELECT "id", false AS "created" FROM "Job"
     WHERE "idempotencyKey" = ${opts.idempotencyKey ?? null} AND NOT EXISTS (SELECT 1 FROM inserted)`;
  const found = rows[0];
  if (found) return { id: found.id, created: found.created };
  // The job holding the key was committed after this statement began (it could not see it).
  const existing = await db.job.findUniqueOrThrow({
    where: { idempotencyKey: opts.idempotencyKey },
    select: { id: true },
  });
  return { id: existing.id, created: false };
}

/**
 * Enqueues a job, or merges it into the job of the same kind and concurrency key that still
 * waits for its first run (graphile-worker's job key, in "replace" mode, with arrays that
 * gather): that job's payload becomes this one, except that each field named in `gather` is the
 * union of both (distinct; left out when both have none), and it runs no later than this one
 * would. A job that ran once (failed, waiting for its backoff) or that a worker claimed meanwhile
 * is never changed: then a new job is enqueued. So one job per key waits at most, and a burst
 * of requests costs one run.
 */
export async function enqueueOrMerge(
  db: Db,
  opts: EnqueueOptions & { concurrencyKey: string; gather?: string[] },
): Promise<{ id: bigint; created: boolean }> {
  const payload = JSON.stringify(opts.payload ?? {});
  const gather = opts.gather ?? [];
  const merged = await db.$queryRaw<{ id: bigint }[]>`
    UPDATE "Job" SET "payload" = ${payload}::jsonb || COALESCE(
        (SELECT jsonb_object_agg(f, u) FROM (
           SELECT f, (SELECT jsonb_agg(DISTINCT e) FROM jsonb_array_elements(
                        COALESCE("Job"."payload"->f, '[]'::jsonb)
                        || COALESCE(${payload}::jsonb->f, '[]'::jsonb)) e) AS u
           FROM unnest(${gather}::text[]) AS f) gathered
         WHERE u IS NOT NULL), '{}'::jsonb),
      "runAt" = LEAST("runAt", ${opts.runAt ?? new Date()}),
      "updatedAt" = now()
    WHERE "id" = (SELECT "id" FROM "Job" WHERE "kind" = ${opts.kind}
                    AND "concurrencyKey" = ${opts.concurrencyKey} AND "state" = 'available'
                    AND "attempts" = 0
                  ORDER BY "id" LIMIT 1)
      AND "state" = 'available'
    RETURNING "id"`;
  if (merged[0]) return { id: merged[0].id, created: false };
  return enqueue(db, opts);
}

/**
 * How many jobs of `kind` for the shop are running or due now (a job waiting for a later time
 * is not counted); none for no shop (NULL equals nothing).
 */
export async function pendingCount(
  db: Db,
  opts: { kind: string; shopDomain: string | null },
): Promise<number> {
  const rows = await db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM "Job"
    WHERE "kind" = ${opts.kind} AND "shopDomain" = ${opts.shopDomain}
      AND ("state" = 'running' OR ("state" = 'available' AND "runAt" <= now()))`;
  return Number(rows[0]!.n);
}

/**
 * A shop's one job of a kind, started from a page: the job of that kind waiting or running for
 * the shop if there is one, else a new one (one at a time per shop: its concurrency key).
 * Returns the job's id.
 */
export async function startForShop(
  db: Db,
  opts: Omit<EnqueueOptions, "concurrencyKey" | "shopDomain"> & { shopDomain: string },
): Promise<bigint> {
  const current = await db.job.findFirst({
    where: {
      kind: opts.kind,
      shopDomain: opts.shopDomain,
      state: { in: ["available", "running"] },
    },
    select: { id: true },
  });
  if (current) return current.id;
  const { id } = await enqueue(db, {
    ...opts,
    concurrencyKey: `${opts.kind}:${opts.shopDomain}`,
  });
  return id;
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
