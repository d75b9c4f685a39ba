/**
 * What the worker records for each way a handler can end: done, failed (back-off), waiting
 * (RetryLater or an error that carries `waitMs`), permanently failed, or overtaken by another
 * worker. Delays are read back from the stored timestamps as durations of the same statement.
 */
import { hostname } from "node:os";
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { claim } from "../../app/jobs/queue.server";
import { enqueue } from "../../app/jobs/enqueue.server";
import { type JobContext, PermanentJobError, RetryLater } from "../../app/jobs/handler";
import { scheduleRecurring, Worker } from "../../app/worker/worker.server";
import { jobFailures, jobRuns } from "../../app/metrics/registry.server";
import { createEffectsTable, effectCounts, recordEffect } from "../helpers/effects";

beforeEach(async () => {
  await prisma.job.deleteMany();
  await createEffectsTable(prisma);
  await prisma.$executeRawUnsafe("DELETE FROM test_effects");
});

const row = (id: bigint) => prisma.job.findUniqueOrThrow({ where: { id } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Milliseconds between the statement's `now()` ("updatedAt") and the job's next run. */
const waitOf = (job: { runAt: Date; updatedAt: Date }) =>
  job.runAt.getTime() - job.updatedAt.getTime();

async function until(check: () => Promise<boolean>, what: string, limitMs = 20_000) {
  const end = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

function workerWith(handler: (ctx: JobContext) => Promise<unknown>, opts = {}) {
  return new Worker({
    prisma,
    workerId: "w-test",
    handlers: { k: handler as never },
    ...opts,
  });
}

describe("a handler's outcome", () => {
  it("a returned value is the job's result; the handler sees its payload and worker", async () => {
    const { id } = await enqueue(prisma, { kind: "k", payload: { order: 41 } });
    let seen: unknown;
    const worker = workerWith(async (ctx) => {
      seen = { payload: ctx.payload, workerId: ctx.workerId, id: ctx.job.id };
      return { placed: 41 };
    });
    expect(await worker.drain()).toBe(1);
    expect(seen).toEqual({ payload: { order: 41 }, workerId: "w-test", id });
    expect(await row(id)).toMatchObject({ state: "completed", result: { placed: 41 } });
  });

  it("commit records the effect with the completion and its result, once", async () => {
    const { id } = await enqueue(prisma, { kind: "k" });
    let returned: unknown;
    const worker = workerWith(async (ctx) => {
      returned = await ctx.commit(
        async (tx) => {
          await recordEffect(tx, ctx.job.id, ctx.workerId);
          return "inner value";
        },
        { paid: "5.00" },
      );
    });
    await worker.drain();
    expect(returned).toBe("inner value");
    expect(await row(id)).toMatchObject({ state: "completed", result: { paid: "5.00" } });
    expect((await effectCounts(prisma)).get(String(id))).toBe(1);
  });

  it("a failure counts the attempt and backs off 0.5 to 1 s, then 1 to 2 s", async () => {
    const { id } = await enqueue(prisma, { kind: "k", maxAttempts: 5 });
    const worker = workerWith(async () => {
      throw new Error("service unavailable");
    });
    await worker.drain();
    let job = await row(id);
    expect(job).toMatchObject({ state: "available", attempts: 1, lockedBy: null });
    expect(job.lastError).toBe("Error: service unavailable");
    expect(waitOf(job)).toBeGreaterThanOrEqual(498);
    expect(waitOf(job)).toBeLessThanOrEqual(1_002);

    await prisma.job.update({ where: { id }, data: { runAt: new Date(0) } });
    await worker.drain();
    job = await row(id);
    expect(job.attempts).toBe(2);
    expect(waitOf(job)).toBeGreaterThanOrEqual(998);
    expect(waitOf(job)).toBeLessThanOrEqual(2_002);
  });

  it("RetryLater waits exactly its delay and gives the attempt back", async () => {
    const { id } = await enqueue(prisma, { kind: "k", maxAttempts: 1 });
    const worker = workerWith(async () => {
      throw new RetryLater(45_000, "balance is short");
    });
    await worker.drain();
    const job = await row(id);
    expect(job).toMatchObject({ state: "available", attempts: 0, lastError: "balance is short" });
    expect(Math.abs(waitOf(job) - 45_000)).toBeLessThanOrEqual(2);
  });

  it("an error carrying waitMs waits that long, not failing", async () => {
    const { id } = await enqueue(prisma, { kind: "k", maxAttempts: 1 });
    class ReauthRequired extends Error {
      override name = "ReauthRequired";
      readonly waitMs = 6 * 3_600_000;
    }
    const worker = workerWith(async () => {
      throw new ReauthRequired("the merchant must reconnect");
    });
    await worker.drain();
    const job = await row(id);
    expect(job).toMatchObject({
      state: "available",
      attempts: 0,
      lastError: "ReauthRequired: the merchant must reconnect",
    });
    expect(Math.abs(waitOf(job) - 6 * 3_600_000)).toBeLessThanOrEqual(2);
  });

  it("a waitMs that is not a positive number is an ordinary failure", async () => {
    const zero = await enqueue(prisma, { kind: "k", maxAttempts: 1 });
    const text = await enqueue(prisma, { kind: "k", maxAttempts: 1 });
    const worker = workerWith(async (ctx) => {
      const err = new Error("odd") as Error & { waitMs: unknown };
      err.waitMs = ctx.job.id === zero.id ? 0 : "60000";
      throw err;
    });
    await worker.drain();
    expect(await row(zero.id)).toMatchObject({ state: "dead", attempts: 1 });
    expect(await row(text.id)).toMatchObject({ state: "dead", attempts: 1 });
  });

  it("a thrown non-error is recorded as what was thrown", async () => {
    const { id } = await enqueue(prisma, { kind: "k", maxAttempts: 1 });
    const worker = workerWith(async () => {
      throw null;
    });
    await worker.drain();
    expect(await row(id)).toMatchObject({ state: "dead", lastError: "Non-error thrown: null" });
  });

  it("a PermanentJobError is dead on its first attempt", async () => {
    const { id } = await enqueue(prisma, { kind: "k", maxAttempts: 10 });
    const worker = workerWith(async () => {
      throw new PermanentJobError("the order no longer exists");
    });
    await worker.drain();
    const job = await row(id);
    expect(job).toMatchObject({
      state: "dead",
      attempts: 1,
      lastError: "PermanentJobError: the order no longer exists",
    });
    expect(job.finishedAt).toBeInstanceOf(Date);
  });

  it("a worker whose lease was taken over records neither its effect nor its outcome", async () => {
    const { id } = await enqueue(prisma, { kind: "k" });
    const worker = workerWith(async (ctx) => {
      // Meanwhile the lease lapsed and another worker claimed the job.
      await prisma.$executeRaw`
        UPDATE "Job" SET "lockedUntil" = now() - interval '1 second' WHERE "id" = ${ctx.job.id}`;
      expect(await claim(prisma, "w-other", { limit: 1, leaseMs: 60_000 })).toHaveLength(1);
      await ctx.commit((tx) => recordEffect(tx, ctx.job.id, ctx.workerId));
    });
    await worker.drain();
    expect(await row(id)).toMatchObject({ state: "running", lockedBy: "w-other", attempts: 2 });
    expect((await effectCounts(prisma)).get(String(id))).toBeUndefined();

    const failing = workerWith(async (ctx) => {
      await prisma.$executeRaw`
        UPDATE "Job" SET "lockedUntil" = now() - interval '1 second' WHERE "id" = ${ctx.job.id}`;
      await claim(prisma, "w-other", { limit: 1, leaseMs: 60_000 });
      throw new Error("too late anyway");
    });
    const second = await enqueue(prisma, { kind: "k" });
    await failing.drain();
    expect(await row(second.id)).toMatchObject({
      state: "running",
      lockedBy: "w-other",
      lastError: null,
    });
  });
});

describe("the worker's job metrics", () => {
  const count = async (outcome: string) =>
    (await jobRuns.get()).values.find((v) => v.labels.kind === "m" && v.labels.outcome === outcome)
      ?.value ?? 0;
  const failures = async () =>
    (await jobFailures.get()).values.find((v) => v.labels.kind === "m")?.value ?? 0;

  it("count each run under its outcome, and failures (retried, dead) apart", async () => {
    const outcomes = ["completed", "retried", "dead", "rescheduled", "lease_lost", "unknown"];
    const before = await Promise.all(outcomes.map(count));
    const failuresBefore = await failures();
    const jobs = {
      ok: await enqueue(prisma, { kind: "m", payload: { do: "ok" } }),
      retry: await enqueue(prisma, { kind: "m", payload: { do: "retry" }, maxAttempts: 2 }),
      dead: await enqueue(prisma, { kind: "m", payload: { do: "dead" }, maxAttempts: 1 }),
      wait: await enqueue(prisma, { kind: "m", payload: { do: "wait" } }),
      lost: await enqueue(prisma, { kind: "m", payload: { do: "lost" } }),
      commit: await enqueue(prisma, { kind: "m", payload: { do: "commit" } }),
      later: await enqueue(prisma, { kind: "m", payload: { do: "later" } }),
    };
    const logged: { level: string; msg: string; data?: object }[] = [];
    const worker = new Worker({
      prisma,
      concurrency: 7,
      log: (level, msg, data) => logged.push({ level, msg, data }),
      handlers: {
        m: async (ctx) => {
          const what = (ctx.payload as { do: string }).do;
          if (what === "ok") return;
          if (what === "commit") return void (await ctx.commit(async () => {}));
          if (what === "later") throw Object.assign(new Error("reconnect"), { waitMs: 5_000 });
          if (what === "wait") throw new RetryLater(1_000, "later");
          if (what === "lost") {
            await prisma.job.update({ where: { id: ctx.job.id }, data: { lockedBy: "w-other" } });
            return;
          }
          throw new Error(what);
        },
      },
    });
    expect(await worker.drain(1)).toBe(7);
    const after = await Promise.all(outcomes.map(count));
    expect(Object.fromEntries(outcomes.map((o, i) => [o, after[i]! - before[i]!]))).toEqual({
      completed: 2,
      retried: 1,
      dead: 1,
      rescheduled: 2,
      lease_lost: 1,
      unknown: 0,
    });
    expect((await failures()) - failuresBefore).toBe(2);
    expect(await row(jobs.lost.id)).toMatchObject({ state: "running", lockedBy: "w-other" });
    expect((await row(jobs.ok.id)).state).toBe("completed");
    expect((await row(jobs.commit.id)).state).toBe("completed");
    // A dead job is an error in the log, a retry or a wait a warning; a completion is silent.
    const by = (id: bigint) =>
      logged.filter((l) => (l.data as { jobId?: string })?.jobId === String(id));
    expect(by(jobs.ok.id)).toEqual([]);
    expect(by(jobs.commit.id)).toEqual([]);
    expect(by(jobs.dead.id)).toEqual([
      {
        level: "error",
        msg: "job failed",
        data: {
          jobId: String(jobs.dead.id),
          kind: "m",
          attempt: 1,
          outcome: "dead",
          err: "Error: dead",
        },
      },
    ]);
    expect(by(jobs.retry.id)).toEqual([
      {
        level: "warn",
        msg: "job failed",
        data: {
          jobId: String(jobs.retry.id),
          kind: "m",
          attempt: 1,
          outcome: "retry",
          err: "Error: retry",
        },
      },
    ]);
    expect(by(jobs.later.id)).toEqual([
      {
        level: "warn",
        msg: "job waits",
        data: { jobId: String(jobs.later.id), kind: "m", waitMs: 5_000 },
      },
    ]);
    expect(by(jobs.lost.id)).toEqual([
      {
        level: "warn",
        msg: "lease lost; another worker runs the job",
        data: { jobId: String(jobs.lost.id) },
      },
    ]);
  });
});

describe("a failure the database refuses to record", () => {
  it("is logged and counted unknown; the job is left held until its lease runs out", async () => {
    // PostgreSQL text cannot hold a NUL byte: recording this error's message fails.
    const { id } = await enqueue(prisma, { kind: "n", maxAttempts: 3 });
    const unknown = async () =>
      (await jobRuns.get()).values.find(
        (v) => v.labels.kind === "n" && v.labels.outcome === "unknown",
      )?.value ?? 0;
    const before = await unknown();
    const logged: { level: string; msg: string }[] = [];
    const worker = new Worker({
      prisma,
      workerId: "w-n",
      log: (level, msg) => logged.push({ level, msg }),
      handlers: {
        n: async () => {
          throw new Error("binary \u0000 body");
        },
      },
    });
    expect(await worker.drain(1)).toBe(1);
    expect((await unknown()) - before).toBe(1);
    expect(logged.map((l) => `${l.level} ${l.msg}`)).toEqual([
      "error could not record a job failure",
      "warn job failed",
    ]);
    expect(await row(id)).toMatchObject({ state: "running", lockedBy: "w-n", attempts: 1 });
  });
});

describe("leases of a running worker", () => {
  it("keeps extending the lease of a long job, so no other worker takes it", async () => {
    const { id } = await enqueue(prisma, { kind: "k" });
    let finish!: () => void;
    const worker = workerWith(() => new Promise<void>((resolve) => (finish = resolve)), {
      leaseMs: 600,
      pollMs: 20,
    });
    worker.start();
    try {
      await until(async () => (await row(id)).state === "running", "the claim");
      const first = (await row(id)).lockedUntil!.getTime();
      // Renewed (every third of the lease) past the first lease's end: the job stays ours.
      await until(async () => (await row(id)).lockedUntil!.getTime() > first + 300, "a renewal");
      const job = await row(id);
      expect(job.lockedBy).toBe("w-test");
      expect(
        Math.abs(job.lockedUntil!.getTime() - job.updatedAt.getTime() - 600),
      ).toBeLessThanOrEqual(2);
    } finally {
      finish();
      await worker.stop(5_000);
    }
    expect(await row(id)).toMatchObject({ state: "completed", attempts: 1 });
  });

  it("aborts a handler whose job another worker holds now", async () => {
    const { id } = await enqueue(prisma, { kind: "k" });
    let aborted = false;
    const worker = workerWith(
      (ctx) =>
        new Promise((_, reject) =>
          ctx.signal.addEventListener("abort", () => {
            aborted = true;
            reject(new Error("aborted"));
          }),
        ),
      { leaseMs: 600, pollMs: 20 },
    );
    worker.start();
    try {
      await until(async () => (await row(id)).state === "running", "the claim");
      await prisma.job.update({ where: { id }, data: { lockedBy: "w-other" } });
      await until(async () => aborted, "the abort");
    } finally {
      await worker.stop(5_000);
    }
    expect(await row(id)).toMatchObject({ state: "running", lockedBy: "w-other", lastError: null });
  });
});

describe("a worker's defaults", () => {
  it("two workers in one process never share an id (a shared id would share leases)", () => {
    const a = new Worker({ prisma, handlers: {} });
    const b = new Worker({ prisma, handlers: {} });
    expect(a.id).toMatch(new RegExp(`^${hostname()}:${process.pid}:[0-9a-f]{6}$`));
    expect(b.id).not.toBe(a.id);
  });

  it("leases for 30 s and runs two jobs at a time", async () => {
    for (let i = 0; i < 3; i++) await enqueue(prisma, { kind: "k" });
    const leases: number[] = [];
    const worker = workerWith(async (ctx) => {
      const job = await row(ctx.job.id);
      leases.push(job.lockedUntil!.getTime() - job.updatedAt.getTime());
    });
    expect(await worker.drain(1)).toBe(2);
    expect(leases).toEqual([30_000, 30_000]);
    expect(await prisma.job.count({ where: { state: "available" } })).toBe(1);
  });
});

describe("a started worker's housekeeping", () => {
  it("buries a job whose holder died on its last attempt, and schedules recurring jobs", async () => {
    const orphan = await enqueue(prisma, { kind: "k", maxAttempts: 1 });
    await claim(prisma, "w-died", { limit: 1, leaseMs: 60_000 });
    await prisma.$executeRaw`
      UPDATE "Job" SET "lockedUntil" = now() - interval '1 second' WHERE "id" = ${orphan.id}`;
    const ticks: bigint[] = [];
    const worker = new Worker({
      prisma,
      pollMs: 20,
      handlers: {
        tick: async (ctx) => {
          ticks.push(ctx.job.id);
        },
      },
      recurring: [{ kind: "tick", everyMs: 3_600_000 }],
    });
    worker.start();
    worker.start(); // a second start is a no-op
    try {
      await until(async () => ticks.length > 0, "the recurring job");
      await until(async () => (await row(orphan.id)).state === "dead", "the burial");
    } finally {
      await worker.stop(5_000);
    }
    expect(ticks).toHaveLength(1);
    expect(await row(orphan.id)).toMatchObject({ state: "dead", lockedBy: null, attempts: 1 });
    expect(await prisma.job.count({ where: { kind: "tick", state: "completed" } })).toBe(1);
  });
});

describe("recurring jobs", () => {
  it("enqueue the current slot, due at its start, with three attempts", async () => {
    const hour = 3_600_000;
    const now = Date.UTC(2026, 10, 22, 10, 30);
    await scheduleRecurring(
      prisma,
      [{ kind: "tick", everyMs: hour, payload: { full: true } }],
      now,
    );
    const [job] = await prisma.job.findMany({ where: { kind: "tick" } });
    expect(job).toMatchObject({
      runAt: new Date(Date.UTC(2026, 10, 22, 10, 0)),
      maxAttempts: 3,
      payload: { full: true },
      idempotencyKey: `recurring:tick:${Math.floor(now / hour)}`,
    });
  });
});
