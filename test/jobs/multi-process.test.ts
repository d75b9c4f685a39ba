import { describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { runMultiWorker } from "../helpers/multi-worker";

// Several worker processes need a PostgreSQL server: the embedded PGlite serves one process
// (its socket server is safe with two connections at most). CI runs this with TEST_DATABASE_URL.
describe.skipIf(!process.env.TEST_DATABASE_URL)("4 worker processes on PostgreSQL", () => {
  it("run every job exactly once", async () => {
    const result = await runMultiWorker(prisma, {
      url: process.env.DATABASE_URL!,
      workers: 4,
      jobs: 1000,
      concurrency: 2,
    });
    expect(result.completed).toBe(1000);
    expect(result.runTwice).toBe(0);
    expect(result.neverRun).toBe(0);
    console.log(`4 workers, 1000 jobs: ${result.jobsPerSecond} jobs/s`);
  }, 180_000);
});
