/**
 * Adding work to the durable queue (app/jobs/queue.server.ts runs it): a job is enqueued in the
 * same transaction as whatever caused it, so an event is never stored without its job, nor a
 * job without its event. `idempotencyKey` makes enqueueing idempotent; a job waiting under a
 * concurrency key takes later requests of its kind into itself (`enqueueOrMerge`).
 *
 * Each write is one statement (one round trip, no BEGIN/COMMIT of its own), in plain SQL that
 * PostgreSQL and PGlite both run.
 */
import { Prisma } from "@prisma/client";
import type { Db } from "../db/types";

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
  // One round trip: the new job's id, or the one that holds the key.
  const rows = await db.$queryRaw<{ id: bigint; created: boolean }[]>`
    WITH inserted AS (${insertJob(opts, Prisma.empty)})
    SELECT "id", true AS "created" FROM inserted
    UNION ALL
    ${heldKey(opts, Prisma.sql`NOT EXISTS (SELECT 1 FROM inserted)`)}`;
  return enqueued(db, opts, rows);
}

/** The insert of a new job (nothing when `unless` finds a row), returning its id. */
function insertJob(opts: EnqueueOptions, unless: Prisma.Sql): Prisma.Sql {
  const where = unless === Prisma.empty ? Prisma.empty : Prisma.sql`WHERE NOT EXISTS (${unless})`;
  return Prisma.sql`
    INSERT INTO "Job" ("kind", "payload", "runAt", "idempotencyKey", "concurrencyKey",
                       "maxAttempts", "shopDomain", "updatedAt")
    SELECT ${opts.kind}, ${JSON.stringify(opts.payload ?? {})}::jsonb, ${opts.runAt ?? new Date()},
           ${opts.idempotencyKey ?? null}, ${opts.concurrencyKey ?? null}, ${opts.maxAttempts ?? 10},
           ${opts.shopDomain ?? null}, now()
    ${where}
    ON CONFLICT ("idempotencyKey") DO NOTHING
    RETURNING "id"`;
}

/** The job that already holds the idempotency key, when the insert added none. */
function heldKey(opts: EnqueueOptions, when: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`SELECT "id", false AS "created" FROM "Job"
     WHERE "idempotencyKey" = ${opts.idempotencyKey ?? null} AND ${when}`;
}

async function enqueued(
  db: Db,
  opts: EnqueueOptions,
  rows: { id: bigint; created: boolean }[],
): Promise<{ id: bigint; created: boolean }> {
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
  // One round trip: the merge, else the insert, else the job that holds the idempotency key.
  const rows = await db.$queryRaw<{ id: bigint; created: boolean }[]>`
    WITH merged AS (
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
      RETURNING "id"
    ), inserted AS (${insertJob(opts, Prisma.sql`SELECT 1 FROM merged`)})
    SELECT "id", false AS "created" FROM merged
    UNION ALL
    SELECT "id", true AS "created" FROM inserted
    UNION ALL
    ${heldKey(
      opts,
      Prisma.sql`NOT EXISTS (SELECT 1 FROM merged) AND NOT EXISTS (SELECT 1 FROM inserted)`,
    )}`;
  return enqueued(db, opts, rows);
}

/**
 * How many jobs of the kinds for the shop are running or due now (a job waiting for a later
 * time is not counted); none for no shop (NULL equals nothing).
 */
export async function pendingCount(
  db: Db,
  opts: { kinds: readonly string[]; shopDomain: string | null },
): Promise<number> {
  const rows = await db.$queryRaw<{ n: number }[]>`SELECT (${pendingSql(opts)}) AS n`;
  return Number(rows[0]!.n);
}

/** pendingCount's query, to be read with others in one statement. */
export function pendingSql(opts: {
  kinds: readonly string[];
  shopDomain: string | null;
}): Prisma.Sql {
  return Prisma.sql`SELECT count(*)::int FROM "Job"
    WHERE "kind" = ANY(${[...opts.kinds]}::text[]) AND "shopDomain" = ${opts.shopDomain}
      AND ("state" = 'running' OR ("state" = 'available' AND "runAt" <= now()))`;
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
