import type { PrismaClient } from "@prisma/client";
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { enqueue } from "../../app/jobs/enqueue.server";
import { exited, spawnTs, waitForLine } from "./child";
import { createEffectsTable, effectCounts } from "./effects";

export interface MultiWorkerResult {
  jobs: number;
  workers: number;
  concurrencyPerWorker: number;
  effect: "commit" | "plain" | "memory";
  seconds: number;
  jobsPerSecond: number;
  completed: number;
  runTwice: number;
  neverRun: number;
}

/**
 * Enqueues `jobs` effect jobs, runs `workers` worker processes on them until all are done, and
 * counts the effects: each job must have exactly one.
 */
export async function runMultiWorker(
  db: PrismaClient,
  opts: {
    url: string;
    workers: number;
    jobs: number;
    concurrency: number;
    timeoutMs?: number;
    effect?: "commit" | "plain" | "memory";
  },
): Promise<MultiWorkerResult> {
  await createEffectsTable(db);
  const ids: bigint[] = [];
  for (let i = 0; i < opts.jobs; i += 500) {
    const batch = Math.min(500, opts.jobs - i);
    const created = await db.$transaction(async (tx) => {
      const out: bigint[] = [];
      for (let k = 0; k < batch; k++) out.push((await enqueue(tx, { kind: "test.effect" })).id);
      return out;
    });
    ids.push(...created);
  }
  const ranFiles = Array.from({ length: opts.workers }, (_, i) =>
    join(tmpdir(), `jobs-ran-${process.pid}-${Date.now()}-${i}.txt`),
  );
  const children = ranFiles.map((ranFile) =>
    spawnTs("test/jobs/fixtures/worker-child.ts", {
      CHILD_RAN_FILE: ranFile,
      CHILD_ANNOUNCE: opts.effect === "commit" || !opts.effect ? "1" : "0",
      DATABASE_URL: opts.url,
      DATABASE_POOL_MAX: String(Math.min(opts.concurrency + 1, 10)),
      CHILD_CONCURRENCY: String(opts.concurrency),
      CHILD_EFFECT: opts.effect ?? "commit",
      LOG_LEVEL: "warn",
    }),
  );
  await Promise.all(children.map((c) => waitForLine(c, /^ready$/)));
  const started = performance.now();
  const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
  let completed = 0;
  while (Date.now() < deadline) {
    completed = await db.job.count({ where: { kind: "test.effect", state: "completed" } });
    if (completed >= opts.jobs) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const seconds = (performance.now() - started) / 1000;
  for (const c of children) c.kill("SIGTERM");
  await Promise.all(children.map(exited));
  const counts = opts.effect === "memory" ? ranCounts(ranFiles) : await effectCounts(db);
  return {
    jobs: opts.jobs,
    workers: opts.workers,
    concurrencyPerWorker: opts.concurrency,
    effect: opts.effect ?? "commit",
    seconds: Number(seconds.toFixed(2)),
    jobsPerSecond: Math.round(completed / seconds),
    completed,
    runTwice: ids.filter((id) => (counts.get(String(id)) ?? 0) > 1).length,
    neverRun: ids.filter((id) => !counts.has(String(id))).length,
  };
}

/** The ids the workers say they ran (effect "memory"), counted; the files are removed. */
function ranCounts(files: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const file of files) {
    for (const id of readFileSync(file, "utf8").split("\n").filter(Boolean))
      counts.set(id, (counts.get(id) ?? 0) + 1);
    rmSync(file);
  }
  return counts;
}
