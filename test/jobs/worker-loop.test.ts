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
import { claim, enqueue } from "../../app/jobs/queue.server";
import { type JobContext, RetryLater, Worker } from "../../app/jobs/worker.server";
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
  /** Statements of this kind sent so far, with when each was sent. */
  sent(kind: Kind): number[];
  /** Holds statements of `kind` (before they reach the database) until the returned release. */
  hold(kind: Kind): { reached: Promise<void>; release: () => void };
}

/** The real client, counting (and on request holding) the raw statements sent through it. */
function spied(failing?: (kind: Kind | undefined) => Error | undefined): Spied {
  const log: { kind: Kind | undefined; at: number }[] = [];
  const holds = new Map<Kind, { reached: () => void; gate: Promise<void> }>();
  const kindOf = (sql: string) =>
    (Object.keys(KINDS) as Kind[]).find((k) => sql.includes(KINDS[k]));
  const db = new Proxy(prisma, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== "function") return value;
      if (prop !== "$queryRaw" && prop !== "$executeRaw") return value.bind(target);
      return async (strings: TemplateStringsArray, ...values: unknown[]) => {
        const kind = kindOf(strings.join(""));
        log.push({ kind, at: Date.now() });
        const held = kind && holds.get(kind);
        if (held) {
          holds.delete(kind);
          held.reached();
          await held.gate;
        }
        const error = failing?.(kind);
        if (error) throw error;
        return (value as (...a: unknown[]) => unknown).call(target, strings, ...values);
      };
    },
  });
  return {
    db,
    sent: (kind) => log.filter((l) => l.kind === kind).map((l) => l.at),
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
function gated() {
  const started: bigint[] = [];
  const gates = new Map<bigint, () => void>();
  const handler = (ctx: JobContext) =>
    new Promise<void>((resolve) => {
      started.push(ctx.job.id);
      gates.set(ctx.job.id, resolve);
    });
  const finish = (id: bigint) => gates.get(id)!();
  return { started, handler, finish };
}

const workers: Worker[] = [];
function worker(db: PrismaClient, handlers: Worker extends never ? never : object, opts = {}) {
  const w = new Worker({
    prisma: db,
    workerId: "w-loop",
    handlers: handlers as never,
    ...opts,
  });
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
    const logged: { level: string; msg: string; data?: object }[] = [];
    const w = worker(
      prisma,
      {
        // PostgreSQL text cannot hold a NUL byte: recording these reasons fails.
        nul: async (ctx: JobContext) => {
          if ((ctx.payload as { later: boolean }).later)
            throw new RetryLater(1_000, "balance \u0000 short");
          throw Object.assign(new Error("reconnect \u0000"), { waitMs: 5_000 });
        },
      },
      {
        concurrency: 1,
        log: (level: string, msg: string, data?: object) => logged.push({ level, msg, data }),
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
