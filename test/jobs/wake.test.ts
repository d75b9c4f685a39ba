/**
 * Workers woken by new jobs instead of polling for them (app/jobs/wake.server.ts and the Job
 * table's trigger): on a PostgreSQL server an idle worker whose poll is a minute long runs a
 * new job at once, also one enqueued while its wake-up connection was lost (it wakes when the
 * connection is back); a claimed or finished job notifies no one. The embedded database has
 * no such connection (its worker polls), so these run on PostgreSQL only (TEST_DATABASE_URL).
 */
import type { PrismaClient } from "@prisma/client";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { splitSchema } from "../../app/db/migrations.server";
import { claim } from "../../app/jobs/queue.server";
import { enqueue } from "../../app/jobs/enqueue.server";
import { type JobWake, listenForJobs } from "../../app/jobs/wake.server";
import { Worker } from "../../app/worker/worker.server";

const url = process.env.DATABASE_URL ?? "";
const MINUTE = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let worker: Worker | undefined;
let wake: JobWake | undefined;
afterEach(async () => {
  await wake?.close();
  await worker?.stop(1000);
  wake = undefined;
  worker = undefined;
});

/** The app's client, counting the worker's claims and its looks for the next due job. */
function counted() {
  const sent = { claim: 0, lookup: 0 };
  const db = new Proxy(prisma, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== "function") return value;
      if (prop !== "$queryRaw") return value.bind(target);
      return (strings: TemplateStringsArray, ...values: unknown[]) => {
        const sql = strings.join("");
        if (sql.includes("FOR UPDATE SKIP LOCKED")) sent.claim++;
        if (sql.includes('min("runAt")')) sent.lookup++;
        return (value as (...a: unknown[]) => unknown).call(target, strings, ...values);
      };
    },
  }) as PrismaClient;
  return { db, sent };
}

/**
 * An idle worker woken by the notifications; `ran` lists its jobs. It looks every `pollMs`
 * without the wake-up connection, and once a minute with it.
 */
async function idleWorker(kind: string, pollMs = MINUTE) {
  const ran: string[] = [];
  const { db, sent } = counted();
  worker = new Worker({
    prisma: db,
    handlers: {
      [kind]: async (ctx) => void ran.push(String((ctx.payload as { n: number }).n)),
    },
    pollMs,
    listeningPollMs: MINUTE,
  });
  const w = worker;
  const log: string[] = [];
  wake = listenForJobs(url, {
    onWake: (dueAt) => w.nudge(dueAt),
    onListening: (up) => w.setListening(up),
    log: (_, msg) => log.push(msg),
  });
  worker.start();
  await expect.poll(() => wake!.listening, { timeout: 20_000 }).toBe(true);
  // Its first rounds found nothing: asleep now, for a minute.
  await sleep(300);
  return { ran, log, sent };
}

/** Ends the wake-up connection from the server's side, as a restart or a network cut would. */
async function cutWakeUp() {
  const { schema } = splitSchema(url);
  const killed = await prisma.$queryRaw<{ n: number }[]>`
    SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
    WHERE query = ${`LISTEN "job_available:${schema}"`} AND pid <> pg_backend_pid()`;
  expect(killed[0]!.n).toBe(1);
  await expect.poll(() => wake!.listening, { timeout: 20_000 }).toBe(false);
}

describe.skipIf(!process.env.TEST_DATABASE_URL)("a worker woken by new jobs", () => {
  it("runs a new job at once, long before its one-minute poll", async () => {
    const { ran } = await idleWorker("wake.now");
    await enqueue(prisma, { kind: "wake.now", payload: { n: 1 } });
    await expect.poll(() => ran, { timeout: 20_000 }).toEqual(["1"]);
    // A second one, enqueued inside a transaction: woken at its commit.
    await prisma.$transaction(async (tx) => {
      await enqueue(tx, { kind: "wake.now", payload: { n: 2 } });
      await enqueue(tx, { kind: "wake.now", payload: { n: 3 } });
    });
    await expect.poll(() => [...ran].sort(), { timeout: 20_000 }).toEqual(["1", "2", "3"]);
  });

  it("a job due in a second wakes the idle worker when it is due", async () => {
    const { ran } = await idleWorker("wake.later");
    const runAt = new Date(Date.now() + 1000);
    await enqueue(prisma, { kind: "wake.later", payload: { n: 1 }, runAt });
    // Not before it is due (the claim's own rule), and long before the one-minute poll.
    await expect.poll(() => ran, { timeout: 20_000 }).toEqual(["1"]);
    expect(Date.now()).toBeGreaterThanOrEqual(runAt.getTime());
  });

  it("listening, an idle worker sends nothing until a job comes; without, it polls again", async () => {
    const { ran, sent } = await idleWorker("wake.idle", 100);
    // A second with nothing to do: no claim and no look (its 100 ms poll is off while it listens).
    const before = { ...sent };
    await sleep(1000);
    expect(sent).toEqual(before);
    // Three jobs one after the other: each claimed when it comes, none looked for.
    for (const n of [1, 2, 3]) {
      await enqueue(prisma, { kind: "wake.idle", payload: { n } });
      await expect.poll(() => ran.length, { timeout: 20_000 }).toBe(n);
    }
    expect(sent.lookup).toBe(before.lookup);
    // The connection lost: it polls every 100 ms until it is back.
    const cut = { ...sent };
    await cutWakeUp();
    await expect.poll(() => sent.claim - cut.claim, { timeout: 20_000 }).toBeGreaterThanOrEqual(3);
  });

  it("a job due after the connection came back, enqueued while it was lost, runs when due", async () => {
    const { ran } = await idleWorker("wake.missed", 100);
    await cutWakeUp();
    const runAt = new Date(Date.now() + 4000);
    await enqueue(prisma, { kind: "wake.missed", payload: { n: 1 }, runAt });
    await expect.poll(() => wake!.listening, { timeout: 20_000 }).toBe(true);
    // Back: the worker asks the database once what may wait, and sleeps until it is due. A
    // notification meanwhile (a job of a kind it does not run) wakes it: it still knows.
    await sleep(300);
    await enqueue(prisma, { kind: "wake.not-mine", payload: {} });
    await expect.poll(() => ran, { timeout: 20_000 }).toEqual(["1"]);
    expect(Date.now()).toBeGreaterThanOrEqual(runAt.getTime());
  });

  it("a lost wake-up connection is opened again, and the job enqueued meanwhile runs", async () => {
    const { ran, log } = await idleWorker("wake.lost");
    await cutWakeUp();
    // The worker took one look on losing it (nothing to claim) and sleeps again.
    await sleep(300);
    await enqueue(prisma, { kind: "wake.lost", payload: { n: 1 } });
    await expect.poll(() => ran, { timeout: 30_000 }).toEqual(["1"]);
    await expect.poll(() => wake!.listening, { timeout: 30_000 }).toBe(true);
    expect(log).toContain("job wake-up connection lost; polling until it is back");
  });

  it("listening, a finished job calls for no claim, unless one of its concurrency key waits", async () => {
    const { ran, sent } = await idleWorker("wake.done");
    const before = sent.claim;
    await enqueue(prisma, { kind: "wake.done", payload: { n: 1 } });
    await expect.poll(() => ran, { timeout: 20_000 }).toEqual(["1"]);
    await sleep(500);
    // The notification's claim only: none after the job finished.
    expect(sent.claim - before).toBe(1);
    // Two of one key: the claim takes the first only; its end lets the second start at once
    // (long before the one-minute poll).
    await prisma.$transaction(async (tx) => {
      for (const n of [2, 3])
        await enqueue(tx, { kind: "wake.done", payload: { n }, concurrencyKey: "wake-key" });
    });
    await expect.poll(() => ran, { timeout: 20_000 }).toEqual(["1", "2", "3"]);
  });

  it("notifies when a job becomes available, not when one is claimed", async () => {
    const { connectionString, schema } = splitSchema(url);
    const listener = new pg.Client({ connectionString });
    await listener.connect();
    try {
      const heard: string[] = [];
      listener.on("notification", (n) => heard.push(n.channel));
      await listener.query(`LISTEN "job_available:${schema}"`);
      await enqueue(prisma, { kind: "wake.quiet", payload: { n: 1 } });
      await expect.poll(() => heard, { timeout: 20_000 }).toEqual([`job_available:${schema}`]);
      const [job] = await claim(prisma, "w-quiet", {
        limit: 1,
        leaseMs: MINUTE,
        kinds: ["wake.quiet"],
      });
      expect(job).toBeDefined();
      // A later job's notification comes after the claim's would have: the claim made none.
      await enqueue(prisma, { kind: "wake.other", payload: { n: 2 } });
      // Notifications come in commit order: had the claim made one, it would be here first.
      await expect.poll(() => heard.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
      expect(heard).toHaveLength(2);
    } finally {
      await listener.end();
    }
  });
});
