/**
 * The started worker's loop, watched through the statements it sends: it claims no more than
 * its concurrency, sleeps (an idle worker with a long poll makes no query until something is
 * due), wakes at once for a finished job, a follow-up job or a stop, renews leases every third
 * of the lease and only while it holds jobs, does its housekeeping every 5 s, and outlives a
 * database error. The database is the real one; the client the worker receives only counts
 * (and, where a test needs a race made certain, holds) its statements.
 */
import type { PrismaClient } from "@prisma/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { currentLogContext } from "../../app/log-context.server";
import { enqueue } from "../../app/jobs/enqueue.server";
import { type JobContext, RetryLater } from "../../app/jobs/handler";
import { Worker } from "../../app/worker/worker.server";
import { jobRuns } from "../../app/metrics/registry.server";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const row = (id: bigint) => prisma.job.findUniqueOrThrow({ where: { id } });
const MINUTE = 60_000;

async function until(check: () => boolean | Promise<boolean>, what: string, limitMs = 20_000) {
  const end = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** The statements a worker sends, told apart by what only each one says. */
const KINDS = {
  claim: "FOR UPDATE SKIP LOCKED",
  lookup: 'min("runAt")',
  heartbeat: 'SET "lockedUntil" = now()',
  bury: "the worker stopped while running it",
} as const;
type Kind = keyof typeof KINDS;

interface Spied {
  db: PrismaClient;
  /** When each statement of this kind was sent, so far. */
  sent(kind: Kind): number[];
  /** Holds the answer of the next statement of `kind` (which has run) until `release`. */
  hold(kind: Kind): { reached: Promise<void>; release: () => void };
}

/**
 * The real client, noting the raw statements sent through it; `failing` may make one fail
 * before it reaches the database.
 */
function spied(failing?: (kind: Kind | undefined, n: number) => Error | undefined): Spied {
  const log: { kind: Kind | undefined; at: number }[] = [];
  const holds = new Map<Kind, { reached: () => void; gate: Promise<void> }>();
  const kindOf = (sql: string) =>
    (Object.keys(KINDS) as Kind[]).find((k) => sql.includes(KINDS[k]));
  const sent = (kind: Kind) => log.filter((l) => l.kind === kind).map((l) => l.at);
  const db = new Proxy(prisma, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== "function") return value;
      if (prop !== "$queryRaw" && prop !== "$executeRaw") return value.bind(target);
      return async (strings: TemplateStringsArray, ...values: unknown[]) => {
        const kind = kindOf(strings.join(""));
        log.push({ kind, at: Date.now() });
        const error = failing?.(kind, kind ? sent(kind).length : 0);
        if (error) throw error;
        const answer: unknown = await (value as (...a: unknown[]) => unknown).call(
          target,
          strings,
          ...values,
        );
        const held = kind && holds.get(kind);
        if (held) {
          holds.delete(kind);
          held.reached();
          await held.gate;
        }
        return answer;
      };
    },
  });
  return {
    db,
    sent,
    hold(kind) {
      let reached!: () => void;
      let release!: () => void;
      const promise = new Promise<void>((r) => (reached = r));
      holds.set(kind, { reached, gate: new Promise<void>((r) => (release = r)) });
      return { reached: promise, release: () => release() };
    },
  };
}

/** A handler that waits until the test lets it finish; `started` lists the jobs it began. */
function gated(onStart?: (ctx: JobContext) => void) {
  const started: bigint[] = [];
  const gates = new Map<bigint, () => void>();
  const handler = (ctx: JobContext) =>
    new Promise<void>((resolve) => {
      started.push(ctx.job.id);
      gates.set(ctx.job.id, resolve);
      onStart?.(ctx);
    });
  const finish = (id: bigint) => gates.get(id)!();
  return { started, handler, finish };
}

type Logged = { level: string; msg: string; data?: object }[];
const workers: Worker[] = [];
function worker(
  db: PrismaClient,
  handlers: Record<string, (ctx: JobContext) => Promise<unknown>>,
  opts: Partial<ConstructorParameters<typeof Worker>[0]> = {},
) {
  const w = new Worker({ prisma: db, workerId: "w-loop", handlers: handlers as never, ...opts });
  workers.push(w);
  return w;
}

beforeEach(async () => {
  await prisma.job.deleteMany();
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop(1_000)));
});

describe("a database that refuses to record a wait", () => {
  it("is logged and counted unknown; the worker goes on and the job waits for its lease", async () => {
    const outcomes = async () =>
      Object.fromEntries(
        (await jobRuns.get()).values
          .filter((v) => v.labels.kind === "nul")
          .map((v) => [v.labels.outcome, v.value]),
      );
    const before = await outcomes();
    const later = await enqueue(prisma, { kind: "nul", payload: { later: true } });
    const waits = await enqueue(prisma, { kind: "nul", payload: { later: false } });
    const logged: Logged = [];
    const w = worker(
      prisma,
      {
        // PostgreSQL text cannot hold a NUL byte: recording these reasons fails.
        nul: async (ctx) => {
          if ((ctx.payload as { later: boolean }).later)
            throw new RetryLater(1_000, "balance \u0000 short");
          throw Object.assign(new Error("reconnect \u0000"), { waitMs: 5_000 });
        },
      },
      {
        concurrency: 1,
        log: (level, msg, data) => logged.push({ level, msg, data }),
      },
    );
    expect(await w.drain(2)).toBe(2);
    const after = await outcomes();
    expect((after.unknown ?? 0) - (before.unknown ?? 0)).toBe(2);
    expect(after.rescheduled ?? 0).toBe(before.rescheduled ?? 0);
    const refused = { level: "error", msg: "could not record a job failure" };
    expect(logged).toEqual([
      { ...refused, data: { err: expect.stringContaining("0x00") } },
      { ...refused, data: { err: expect.stringContaining("0x00") } },
      {
        level: "warn",
        msg: "job waits",
        data: { jobId: String(waits.id), kind: "nul", waitMs: 5_000 },
      },
    ]);
    for (const { id } of [later, waits]) {
      expect(await row(id)).toMatchObject({ state: "running", lockedBy: "w-loop", attempts: 1 });
    }
  });
});

describe("an idle worker", () => {
  it("with nothing to do and a long poll, sends nothing more after its first round; stops at once", async () => {
    const spy = spied();
    const w = worker(spy.db, { k: async () => {} }, { pollMs: 10 * MINUTE });
    w.start();
    w.start(); // a second start is a no-op: one loop
    await until(() => spy.sent("lookup").length > 0, "the first round");
    await sleep(1_200);
    expect(spy.sent("claim")).toHaveLength(1);
    expect(spy.sent("lookup")).toHaveLength(1);
    expect(spy.sent("heartbeat")).toHaveLength(0); // no job held: no lease to renew
    expect(spy.sent("bury")).toHaveLength(1);
    await w.stop(); // wakes the sleeping loop: no 10-minute wait
  });

  it("with a job due later, looks up its time once and claims it on waking, not before", async () => {
    const spy = spied();
    const due = Date.now() + 800;
    await enqueue(prisma, { kind: "k", runAt: new Date(due) });
    let lookups = -1;
    let ranAt = 0;
    const w = worker(
      spy.db,
      {
        k: async () => {
          ranAt = Date.now();
          lookups = spy.sent("lookup").length;
        },
      },
      { pollMs: 10 * MINUTE },
    );
    w.start();
    await until(() => ranAt > 0, "the job");
    expect(ranAt).toBeGreaterThanOrEqual(due);
    expect(lookups).toBe(1);
  });

  it("with a poll of 50 ms or less sleeps the poll, with no look-up", async () => {
    const spy = spied();
    const w = worker(spy.db, { k: async () => {} }, { pollMs: 50 });
    w.start();
    await until(() => spy.sent("claim").length >= 5, "five rounds");
    expect(spy.sent("lookup")).toHaveLength(0);
  });
});

describe("a worker running its jobs", () => {
  it("holds at most `concurrency` at once and starts the next as soon as one finishes", async () => {
    const spy = spied();
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push((await enqueue(prisma, { kind: "k" })).id);
    const [a, b, c, d] = ids as [bigint, bigint, bigint, bigint];
    let runningWhenCStarted = -1;
    const { started, handler, finish } = gated((ctx) => {
      if (ctx.job.id === c) {
        void prisma.job.count({ where: { state: "running" } }).then((n) => {
          runningWhenCStarted = n;
        });
      }
    });
    const w = worker(spy.db, { k: handler }, { pollMs: 10 * MINUTE, concurrency: 2 });
    w.start();
    await until(() => started.length === 2, "two jobs");
    expect(started).toEqual([a, b]);
    // Full: it sleeps until a job ends, with no look-up and no claim meanwhile.
    const claims = spy.sent("claim").length;
    await sleep(300);
    expect(spy.sent("claim")).toHaveLength(claims);
    expect(spy.sent("lookup")).toHaveLength(0);

    finish(a);
    await until(() => started.length === 3 && runningWhenCStarted >= 0, "the third job");
    expect(started[2]).toBe(c);
    expect(runningWhenCStarted).toBe(2); // b and c: d waits for a free slot
    expect((await row(d)).state).toBe("available");
    finish(b);
    await until(() => started.length === 4, "the fourth job");
    finish(c);
    finish(d);
    await until(
      async () => (await prisma.job.count({ where: { state: "completed" } })) === 4,
      "all four completed",
    );
  });

  it("a lost wake-up connection makes it look at once; one that comes back does not", async () => {
    const spy = spied();
    const w = worker(
      spy.db,
      { k: async () => {} },
      { pollMs: 10 * MINUTE, listeningPollMs: 10 * MINUTE },
    );
    w.setListening(true);
    w.start();
    await until(() => spy.sent("claim").length === 1, "the first claim");
    await sleep(200);
    const claims = spy.sent("claim").length;
    w.setListening(true);
    await sleep(300);
    expect(spy.sent("claim")).toHaveLength(claims);
    w.setListening(false);
    await until(() => spy.sent("claim").length > claims, "a claim once the connection is lost");
  });

  it("listening and full, a job that came meanwhile starts as soon as a slot frees", async () => {
    const spy = spied();
    const a = await enqueue(prisma, { kind: "k" });
    const { started, handler, finish } = gated();
    const w = worker(
      spy.db,
      { k: handler },
      { pollMs: 10 * MINUTE, listeningPollMs: 10 * MINUTE, concurrency: 1 },
    );
    w.setListening(true);
    w.start();
    await until(() => started.length === 1, "the first job");
    // The notification of the second job comes while the worker is full: it can take none.
    const b = await enqueue(prisma, { kind: "k" });
    w.nudge();
    await sleep(200);
    expect(started).toEqual([a.id]);
    // No notification tells that a slot is free: the finished job itself calls for a claim.
    finish(a.id);
    await until(() => started.length === 2, "the second job, long before a poll");
    expect(started[1]).toBe(b.id);
    finish(b.id);
  });

  it("a follow-up job that a finishing job enqueues starts at once, not a poll later", async () => {
    const spy = spied();
    const first = await enqueue(prisma, { kind: "k", payload: { step: 1 } });
    let followUp: bigint | undefined;
    let letFirstFinish!: () => void;
    const firstMayFinish = new Promise<void>((r) => (letFirstFinish = r));
    const w = worker(
      spy.db,
      {
        k: async (ctx) => {
          if ((ctx.payload as { step: number }).step === 2) return void (followUp = ctx.job.id);
          await firstMayFinish;
          await enqueue(prisma, { kind: "k", payload: { step: 2 } });
        },
      },
      { pollMs: 10 * MINUTE, concurrency: 2 },
    );
    // The loop has looked for the next due time (none: the follow-up does not exist yet) and
    // the first job finishes before the loop goes to sleep on that answer.
    const lookup = spy.hold("lookup");
    w.start();
    await lookup.reached;
    letFirstFinish();
    await until(async () => (await row(first.id)).state === "completed", "the first job");
    await sleep(50);
    lookup.release();
    await until(() => followUp !== undefined, "the follow-up job");
  });

  it("renews the leases it holds every third of the lease, and does housekeeping every 5 s", async () => {
    const spy = spied();
    const { started, handler, finish } = gated();
    let signal: AbortSignal | undefined;
    const w = worker(
      spy.db,
      {
        k: (ctx) => {
          signal = ctx.signal;
          return handler(ctx);
        },
      },
      { pollMs: 50, leaseMs: 1_500 },
    );
    w.start();
    await until(() => spy.sent("claim").length >= 3, "idle rounds");
    expect(spy.sent("heartbeat")).toHaveLength(0);
    const { id } = await enqueue(prisma, { kind: "k" });
    await until(() => started.length === 1, "the job");
    const firstLease = (await row(id)).lockedUntil!.getTime();
    await until(() => spy.sent("heartbeat").length >= 3, "three renewals");
    const beats = spy.sent("heartbeat");
    expect(beats[0]!).toBeLessThan(firstLease);
    for (let i = 1; i < beats.length; i++) {
      expect(beats[i]! - beats[i - 1]!).toBeGreaterThanOrEqual(490);
    }
    const buries = spy.sent("bury");
    for (let i = 1; i < buries.length; i++) {
      expect(buries[i]! - buries[i - 1]!).toBeGreaterThanOrEqual(4_990);
    }
    expect(signal?.aborted).toBe(false);
    expect(await row(id)).toMatchObject({ state: "running", lockedBy: "w-loop" });
    finish(id);
    await until(async () => (await row(id)).state === "completed", "the completion");
  });

  it("runs each job with its id, kind and shop as the log context", async () => {
    const shop = await enqueue(prisma, { kind: "k", shopDomain: "ctx.myshopify.com" });
    const none = await enqueue(prisma, { kind: "k" });
    const seen = new Map<bigint, object>();
    const w = worker(prisma, {
      k: async (ctx) => {
        seen.set(ctx.job.id, currentLogContext());
      },
    });
    expect(await w.drain()).toBe(2);
    expect(seen.get(shop.id)).toEqual({
      jobId: String(shop.id),
      jobKind: "k",
      shop: "ctx.myshopify.com",
    });
    expect(seen.get(none.id)).toEqual({ jobId: String(none.id), jobKind: "k" });
  });
});

describe("a database error in the loop", () => {
  it("is logged, the loop waits at least a second before trying again, then runs the job", async () => {
    const spy = spied((kind, n) =>
      kind === "claim" && n === 1 ? new Error("connection lost") : undefined,
    );
    const { id } = await enqueue(prisma, { kind: "k" });
    const logged: Logged = [];
    const w = worker(
      spy.db,
      { k: async () => {} },
      { pollMs: 20, log: (level, msg, data) => logged.push({ level, msg, data }) },
    );
    w.start();
    await until(async () => (await row(id)).state === "completed", "the job");
    expect(logged).toEqual([
      { level: "error", msg: "worker loop error", data: { err: "Error: connection lost" } },
    ]);
    const [failed, retried] = spy.sent("claim");
    expect(retried! - failed!).toBeGreaterThanOrEqual(990);
  });
});

describe("stopping", () => {
  it("after its jobs finished releases nothing and logs nothing", async () => {
    const { id } = await enqueue(prisma, { kind: "k" });
    const logged: Logged = [];
    const w = worker(
      prisma,
      { k: async () => {} },
      { pollMs: 20, log: (level, msg, data) => logged.push({ level, msg, data }) },
    );
    w.start();
    await until(async () => (await row(id)).state === "completed", "the job");
    await w.stop(5_000);
    expect(logged).toEqual([]);
  });

  it("past its grace period releases what it holds, aborts the handler and says so", async () => {
    const { id } = await enqueue(prisma, { kind: "k" });
    const logged: Logged = [];
    let aborted = false;
    const w = worker(
      prisma,
      {
        k: (ctx) =>
          new Promise((resolve) =>
            ctx.signal.addEventListener("abort", () => {
              aborted = true;
              resolve(undefined);
            }),
          ),
      },
      { pollMs: 20, log: (level, msg, data) => logged.push({ level, msg, data }) },
    );
    w.start();
    await until(async () => (await row(id)).state === "running", "the claim");
    await w.stop(100);
    await until(() => aborted, "the abort");
    expect(logged).toEqual([
      { level: "warn", msg: "released unfinished jobs at shutdown", data: { released: 1 } },
    ]);
    expect(await row(id)).toMatchObject({ state: "available", lockedBy: null, attempts: 0 });
  });
});
