import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedDatabase, prisma } from "../../app/db.server";
import { enqueue } from "../../app/jobs/enqueue.server";
import { Worker } from "../../app/worker/worker.server";
import { exited, spawnTs, waitForLine } from "../helpers/child";
import { createEffectsTable, effectCounts, recordEffect } from "../helpers/effects";

/** The URL another process uses to reach this test file's database. */
async function sharedUrl(): Promise<{ url: string; poolMax: string }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, poolMax: "2" };
  // The embedded PGlite accepts two connections: this process's pool of one, and the child's.
  return { url: (await embeddedDatabase()).url, poolMax: "1" };
}

beforeAll(() => createEffectsTable(prisma));
afterAll(() => prisma.$executeRawUnsafe("DROP TABLE IF EXISTS test_effects"));

describe("a worker killed in the middle of a job", () => {
  it("the job runs again after its lease and its effect happens once", async () => {
    const { id } = await enqueue(prisma, { kind: "test.effect", payload: { sleepMs: 60_000 } });
    const { url, poolMax } = await sharedUrl();
    const child = spawnTs("test/jobs/fixtures/worker-child.ts", {
      DATABASE_URL: url,
      DATABASE_POOL_MAX: poolMax,
      CHILD_LEASE_MS: "1500",
    });
    await waitForLine(child, new RegExp(`^started ${id}$`));
    child.kill("SIGKILL");
    await exited(child);

    const held = await prisma.job.findUniqueOrThrow({ where: { id } });
    expect(held.state).toBe("running");
    expect(held.attempts).toBe(1);
    expect((await effectCounts(prisma)).get(String(id))).toBeUndefined();

    // Another worker picks it up once the dead worker's lease has run out.
    const rescuer = new Worker({
      prisma,
      pollMs: 50,
      leaseMs: 10_000,
      handlers: {
        "test.effect": (ctx) => ctx.commit((tx) => recordEffect(tx, ctx.job.id, ctx.workerId)),
      },
    });
    expect(await rescuer.drain()).toBe(0); // still leased to the dead worker
    await new Promise((r) => setTimeout(r, 1600));
    expect(await rescuer.drain()).toBe(1);

    const job = await prisma.job.findUniqueOrThrow({ where: { id } });
    expect(job).toMatchObject({ state: "completed", attempts: 2 });
    expect((await effectCounts(prisma)).get(String(id))).toBe(1);
  });
});
