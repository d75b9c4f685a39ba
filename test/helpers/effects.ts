import type { Db } from "../../app/db/types";

/**
 * A table the tests' job handlers write their effects to, one row per run, with no unique
 * constraint: a job run twice shows up as two rows.
 */
export async function createEffectsTable(db: Db): Promise<void> {
  await db.$executeRawUnsafe(
    `CREATE TABLE IF NOT EXISTS test_effects (job_id bigint NOT NULL, worker text NOT NULL,
       at timestamptz NOT NULL DEFAULT now())`,
  );
}

export async function recordEffect(db: Db, jobId: bigint, worker: string): Promise<void> {
  await db.$executeRaw`INSERT INTO test_effects (job_id, worker) VALUES (${jobId}, ${worker})`;
}

export async function effectCounts(db: Db): Promise<Map<string, number>> {
  const rows = await db.$queryRaw<{ job_id: bigint; n: bigint }[]>`
    SELECT job_id, count(*) AS n FROM test_effects GROUP BY job_id`;
  return new Map(rows.map((r) => [String(r.job_id), Number(r.n)]));
}
