/**
 * `npm run bench:jobs`: N worker processes on PostgreSQL run M jobs; prints one JSON object
 * with the throughput and the exactly-once check. Uses a fresh schema on BENCH_DATABASE_URL
 * (default: the local server's `test` database) and drops it afterwards.
 *
 *   npm run bench:jobs -- --jobs 20000 --workers 4 --concurrency 32 --effect memory
 *
 * `--effect` is what a job does (test/jobs/fixtures/worker-child.ts): `memory` nothing but note
 * its id (the queue's own cost: claim, run, complete), `plain` one INSERT of its own, `commit`
 * one INSERT in the transaction that completes it. Each job's runs are counted afterwards.
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { PrismaClient } from "@prisma/client";
import { pgAdapterFor } from "../app/db.server";
import { runMultiWorker } from "../test/helpers/multi-worker";
import { freshSchema } from "../test/helpers/pg";

const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "20000" },
    workers: { type: "string", default: "4" },
    concurrency: { type: "string", default: "32" },
    effect: { type: "string", default: "memory" },
  },
});
const server = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const fresh = await freshSchema(server, `bench_${randomBytes(4).toString("hex")}`);
const db = new PrismaClient({ adapter: pgAdapterFor(fresh.url, 4) });
try {
  const result = await runMultiWorker(db, {
    url: fresh.url,
    jobs: Number(values.jobs),
    workers: Number(values.workers),
    concurrency: Number(values.concurrency),
    timeoutMs: 600_000,
    effect: values.effect === "plain" || values.effect === "memory" ? values.effect : "commit",
  });
  console.log(JSON.stringify({ bench: "jobs", database: "postgresql", ...result }));
  if (result.runTwice || result.neverRun || result.completed !== result.jobs) process.exitCode = 1;
} finally {
  await db.$disconnect();
  await fresh.drop();
}
