import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import {
  backoffMs,
  buryExpired,
  claim,
  complete,
  LeaseLostError,
} from "../../app/jobs/queue.server";
import { enqueue } from "../../app/jobs/enqueue.server";
import { RetryLater } from "../../app/jobs/handler";
import { scheduleRecurring, Worker } from "../../app/worker/worker.server";
import { createEffectsTable, effectCounts, recordEffect } from "../helpers/effects";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeEach(async () => {
  await prisma.job.deleteMany();
  await createEffectsTable(prisma);
  await prisma.$executeRawUnsafe("DELETE FROM test_effects");
});

describe("job queue", () => {
  it("enqueues once per idempotency key", async () => {
    const a = await enqueue(prisma, { kind: "k", idempotencyKey: "same" });
    const b = await enqueue(prisma, { kind: "k", idempotencyKey: "same" });
    expect(a.created).toBe(true);
    expect(b).toEqual({ id: a.id, created: false });
    expect(await prisma.job.count()).toBe(1);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "a key taken by a transaction that commits while this enqueue waits gives that job",
    async () => {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let first: { id: bigint; created: boolean } | undefined;
      const a = prisma.$transaction(async (tx) => {
        first = await enqueue(tx, { kind: "k", idempotencyKey: "raced" });
        await held;
      });
      await expect.poll(() => first, { timeout: 10_000 }).toBeDefined();
      // This one waits for the first transaction; its statement began before that commit.
      const b = enqueue(prisma, { kind: "k", idempotencyKey: "raced" });
      await sleep(200);
      release();
      await a;
      expect(await b).toEqual({ id: first!.id, created: false });
      expect(await prisma.job.count({ where: { idempotencyKey: "raced" } })).toBe(1);
    },
  );

  it("commits a job with the transaction that caused it, or not at all", async () => {
    await expect(
      prisma.$transaction(async (tx) => {
        await enqueue(tx, { kind: "k", idempotencyKey: "tx" });
        throw new Error("the cause failed");
      }),
    ).rejects.toThrow("the cause failed");
    expect(await prisma.job.count()).toBe(0);
  });

  it("does not claim jobs scheduled for later", async () => {
    await enqueue(prisma, { kind: "k", runAt: new Date(Date.now() + 60_000) });
    expect(await claim(prisma, "w1", { limit: 5, leaseMs: 10_000 })).toEqual([]);
  });

  it("retries with backoff, then keeps the error in the dead state", async () => {
    const { id } = await enqueue(prisma, { kind: "boom", maxAttempts: 2 });
    const worker = new Worker({
      prisma,
      handlers: {
        boom: async () => {
          throw new Error("service said no");
        },
      },
    });
    expect(await worker.drain()).toBe(1);
    let job = await prisma.job.findUniqueOrThrow({ where: { id } });
    expect(job.state).toBe("available");
    expect(job.attempts).toBe(1);
    expect(job.runAt.getTime()).toBeGreaterThan(Date.now());
    expect(job.lastError).toContain("service said no");

    await prisma.job.update({ where: { id }, data: { runAt: new Date() } });
    await worker.drain();
    job = await prisma.job.findUniqueOrThrow({ where: { id } });
    expect(job.state).toBe("dead");
    expect(job.attempts).toBe(2);
    expect(job.lastError).toBe("Error: service said no");
  });

  it("backoff grows exponentially, is capped, and is jittered", () => {
    expect(backoffMs(1, 60_000, () => 1)).toBe(1000);
    expect(backoffMs(4, 60_000, () => 1)).toBe(8000);
    expect(backoffMs(30, 60_000, () => 1)).toBe(60_000);
    expect(backoffMs(4, 60_000, () => 0)).toBe(4000);
  });

  it("a handler that says 'not yet' waits without using up its attempts", async () => {
    const { id } = await enqueue(prisma, { kind: "wait", maxAttempts: 1 });
    const worker = new Worker({
      prisma,
      handlers: {
        wait: async () => {
          throw new RetryLater(30_000, "balance is short");
        },
      },
    });
    await worker.drain();
    const job = await prisma.job.findUniqueOrThrow({ where: { id } });
    expect(job).toMatchObject({ state: "available", attempts: 0, lastError: "balance is short" });
  });

  it("runs one job per concurrency key at a time", async () => {
    await enqueue(prisma, { kind: "pay", concurrencyKey: "account-1" });
    await enqueue(prisma, { kind: "pay", concurrencyKey: "account-1" });
    await enqueue(prisma, { kind: "pay", concurrencyKey: "account-2" });
    const [a, b] = await Promise.all([
      claim(prisma, "w1", { limit: 3, leaseMs: 10_000 }),
      claim(prisma, "w2", { limit: 3, leaseMs: 10_000 }),
    ]);
    const keys = [...(a ?? []), ...(b ?? [])].map((j) => j.concurrencyKey).sort();
    expect(keys).toEqual(["account-1", "account-2"]);
  });

  it("a job whose worker died runs again after its lease, and the dead worker cannot complete it", async () => {
    const { id } = await enqueue(prisma, { kind: "k" });
    const [first] = await claim(prisma, "dead-worker", { limit: 1, leaseMs: 300 });
    expect(first?.id).toBe(id);
    expect(await claim(prisma, "w2", { limit: 1, leaseMs: 10_000 })).toEqual([]);
    await sleep(400);
    const [again] = await claim(prisma, "w2", { limit: 1, leaseMs: 10_000 });
    expect(again).toMatchObject({ id, attempts: 2, lockedBy: "w2" });
    await expect(
      prisma.$transaction(async (tx) => {
        await recordEffect(tx, id, "dead-worker");
        await complete(tx, { id }, "dead-worker");
      }),
    ).rejects.toBeInstanceOf(LeaseLostError);
    expect((await effectCounts(prisma)).get(String(id))).toBeUndefined();
  });

  it("buries a job whose worker died on its last attempt", async () => {
    const { id } = await enqueue(prisma, { kind: "k", maxAttempts: 1 });
    await claim(prisma, "w1", { limit: 1, leaseMs: 100 });
    await sleep(200);
    expect(await claim(prisma, "w2", { limit: 1, leaseMs: 10_000 })).toEqual([]);
    expect(await buryExpired(prisma)).toBe(1);
    const job = await prisma.job.findUniqueOrThrow({ where: { id } });
    expect(job.state).toBe("dead");
    expect(job.lastError).toMatch(/lease expired/);
  });

  it("schedules each slot of a recurring job once, however many workers ask", async () => {
    const now = Date.UTC(2026, 10, 22, 10, 30);
    const jobs = [{ kind: "tick", everyMs: 3600_000 }];
    await Promise.all([1, 2, 3].map(() => scheduleRecurring(prisma, jobs, now)));
    await scheduleRecurring(prisma, jobs, now + 60_000);
    expect(await prisma.job.count({ where: { kind: "tick" } })).toBe(1);
    await scheduleRecurring(prisma, jobs, now + 3600_000);
    expect(await prisma.job.count({ where: { kind: "tick" } })).toBe(2);
  });

  it("writes a slot once per process when given the process's memory of its slots", async () => {
    const now = Date.UTC(2026, 10, 22, 11, 30);
    const jobs = [
      { kind: "tock", everyMs: 3600_000 },
      { kind: "tack", everyMs: 60_000 },
    ];
    const scheduled = new Map<string, number>();
    await scheduleRecurring(prisma, jobs, now, scheduled);
    // The slot's job is gone (pruned): this process does not write the same slot again.
    await prisma.job.deleteMany({ where: { kind: { in: ["tock", "tack"] } } });
    await scheduleRecurring(prisma, jobs, now + 30_000, scheduled);
    expect(await prisma.job.count({ where: { kind: { in: ["tock", "tack"] } } })).toBe(0);
    // A new slot of one kind is written; the other's slot has not changed.
    await scheduleRecurring(prisma, jobs, now + 60_000, scheduled);
    const kinds = await prisma.job.findMany({ where: { kind: { in: ["tock", "tack"] } } });
    expect(kinds.map((j) => j.kind)).toEqual(["tack"]);
    // Another process (no memory of these slots) writes what is missing.
    await scheduleRecurring(prisma, jobs, now + 60_000);
    expect(await prisma.job.count({ where: { kind: { in: ["tock", "tack"] } } })).toBe(2);
  });

  it("records a handler's effect with its completion, once", async () => {
    const ids = await Promise.all(
      Array.from({ length: 20 }, (_, i) => enqueue(prisma, { kind: "effect", payload: { i } })),
    );
    const worker = new Worker({
      prisma,
      concurrency: 2,
      handlers: { effect: (ctx) => ctx.commit((tx) => recordEffect(tx, ctx.job.id, ctx.workerId)) },
    });
    expect(await worker.drain()).toBe(20);
    const counts = await effectCounts(prisma);
    expect(ids.every(({ id }) => counts.get(String(id)) === 1)).toBe(true);
    expect(await prisma.job.count({ where: { state: "completed" } })).toBe(20);
  });

  it("an idle worker sleeps only until the next due job", async () => {
    let ranAt = 0;
    const due = Date.now() + 400;
    await enqueue(prisma, { kind: "soon", runAt: new Date(due) });
    const worker = new Worker({
      prisma,
      pollMs: 5_000,
      handlers: {
        soon: async () => {
          ranAt = Date.now();
        },
      },
    });
    worker.start();
    while (ranAt === 0 && Date.now() < due + 6_000) await sleep(20);
    await worker.stop(1_000);
    expect(ranAt).toBeGreaterThanOrEqual(due - 50);
    expect(ranAt - due).toBeLessThan(1_000);
  });

  it("on stop, finishes what it runs and claims nothing more", async () => {
    for (let i = 0; i < 5; i++) await enqueue(prisma, { kind: "slow" });
    let started = 0;
    const worker = new Worker({
      prisma,
      concurrency: 1,
      pollMs: 10,
      handlers: {
        slow: async () => {
          started++;
          await sleep(150);
        },
      },
    });
    worker.start();
    while (started === 0) await sleep(10);
    await worker.stop(5_000);
    expect(started).toBe(1);
    expect(await prisma.job.count({ where: { state: "completed" } })).toBe(1);
    expect(await prisma.job.count({ where: { state: "available" } })).toBe(4);
  });

  it("on stop past its grace period, releases what it holds for another worker", async () => {
    const { id } = await enqueue(prisma, { kind: "stuck" });
    const worker = new Worker({
      prisma,
      pollMs: 10,
      handlers: {
        stuck: (ctx) =>
          new Promise((_, reject) =>
            ctx.signal.addEventListener("abort", () => reject(new Error("aborted"))),
          ),
      },
    });
    worker.start();
    while ((await prisma.job.findUniqueOrThrow({ where: { id } })).state !== "running") {
      await sleep(10);
    }
    await worker.stop(100);
    const job = await prisma.job.findUniqueOrThrow({ where: { id } });
    expect(job).toMatchObject({ state: "available", lockedBy: null, attempts: 0 });
  });
});
