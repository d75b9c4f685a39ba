/**
 * The queue's contract, row by row: what each operation writes, and the durations it computes
 * (leases, back-off, waits) read back from the timestamps it stores. Durations are compared with
 * the database's own clock of the same statement ("updatedAt" is `now()` there too), never with
 * the wall clock of a loaded machine.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { PrismaClient } from "@prisma/client";
import { pgAdapterFor, prisma } from "../../app/db.server";
import { CompletionBatcher } from "../../app/jobs/completions.server";
import {
  backoffMs,
  buryExpired,
  claim,
  complete,
  completeMany,
  errorMessage,
  fail,
  heartbeat,
  LeaseLostError,
  release,
  reschedule,
} from "../../app/jobs/queue.server";
import { enqueue, startForShop } from "../../app/jobs/enqueue.server";

beforeEach(async () => {
  await prisma.job.deleteMany();
});

const row = (id: bigint) => prisma.job.findUniqueOrThrow({ where: { id } });
/** Job ids as sorted strings (a batch claim returns its rows in no set order). */
const ids = (jobs: { id: bigint }[]) => jobs.map((j) => String(j.id)).sort();
/** A client of a database that is not there (port 1): every statement it sends fails. */
const unreachable = new PrismaClient({
  adapter: pgAdapterFor("postgresql://postgres@127.0.0.1:1/none", 1),
});

/** Milliseconds from the statement's `now()` ("updatedAt") to `at`. */
function msAfterUpdate(job: { updatedAt: Date }, at: Date | null): number {
  if (!at) throw new Error("no timestamp");
  return at.getTime() - job.updatedAt.getTime();
}

/** Makes a job's lease lapse now, as if its worker had died. */
async function expireLease(id: bigint) {
  await prisma.$executeRaw`
    UPDATE "Job" SET "lockedUntil" = now() - interval '1 second' WHERE "id" = ${id}`;
}

async function claimOne(workerId: string, leaseMs = 30_000) {
  const [job] = await claim(prisma, workerId, { limit: 1, leaseMs });
  if (!job) throw new Error("nothing claimed");
  return job;
}

describe("enqueue", () => {
  it("stores every option it is given", async () => {
    const runAt = new Date(Date.now() + 3_600_000);
    const { id, created } = await enqueue(prisma, {
      kind: "pay.batch",
      payload: { batchId: "b-1", amount: "12.50" },
      runAt,
      idempotencyKey: "pay:b-1",
      concurrencyKey: "account:7",
      maxAttempts: 4,
      shopDomain: "one.myshopify.com",
    });
    expect(created).toBe(true);
    expect(await row(id)).toMatchObject({
      kind: "pay.batch",
      payload: { batchId: "b-1", amount: "12.50" },
      state: "available",
      runAt,
      attempts: 0,
      maxAttempts: 4,
      idempotencyKey: "pay:b-1",
      concurrencyKey: "account:7",
      shopDomain: "one.myshopify.com",
      lockedBy: null,
      lockedUntil: null,
    });
  });

  it("defaults: empty payload, ten attempts, due at once, no keys", async () => {
    const { id } = await enqueue(prisma, { kind: "k" });
    expect(await row(id)).toMatchObject({
      payload: {},
      maxAttempts: 10,
      idempotencyKey: null,
      concurrencyKey: null,
      shopDomain: null,
    });
    expect((await claimOne("w1")).id).toBe(id);
  });

  it("a second enqueue with a used key returns the first job and changes nothing", async () => {
    const first = await enqueue(prisma, { kind: "k", idempotencyKey: "key", payload: { n: 1 } });
    const other = await enqueue(prisma, { kind: "k", idempotencyKey: "other" });
    const again = await enqueue(prisma, { kind: "k", idempotencyKey: "key", payload: { n: 2 } });
    expect(again).toEqual({ id: first.id, created: false });
    expect(other.id).not.toBe(first.id);
    expect((await row(first.id)).payload).toEqual({ n: 1 });
    expect(await prisma.job.count()).toBe(2);
  });

  it("jobs without an idempotency key never collide", async () => {
    const a = await enqueue(prisma, { kind: "k" });
    const b = await enqueue(prisma, { kind: "k" });
    expect(a.created && b.created).toBe(true);
    expect(a.id).not.toBe(b.id);
  });
});

describe("claim", () => {
  it("leases for exactly leaseMs, counts the attempt and names the worker", async () => {
    const { id } = await enqueue(prisma, { kind: "k" });
    const claimed = await claimOne("w1", 45_000);
    expect(claimed).toMatchObject({ id, state: "running", attempts: 1, lockedBy: "w1" });
    const job = await row(id);
    expect(Math.abs(msAfterUpdate(job, job.lockedUntil) - 45_000)).toBeLessThanOrEqual(2);
  });

  it("a short lease is short: 1.5 s, not 1.5 s times a thousand", async () => {
    const { id } = await enqueue(prisma, { kind: "k" });
    await claimOne("w1", 1_500);
    const job = await row(id);
    expect(Math.abs(msAfterUpdate(job, job.lockedUntil) - 1_500)).toBeLessThanOrEqual(2);
  });

  it("claims at most `limit` jobs, the earliest due first", async () => {
    const now = Date.now();
    const late = await enqueue(prisma, { kind: "k", runAt: new Date(now - 1_000) });
    const early = await enqueue(prisma, { kind: "k", runAt: new Date(now - 3_000) });
    const middle = await enqueue(prisma, { kind: "k", runAt: new Date(now - 2_000) });
    const jobs = await claim(prisma, "w1", { limit: 2, leaseMs: 10_000 });
    expect(ids(jobs)).toEqual(ids([early, middle]));
    expect((await row(late.id)).state).toBe("available");
    expect(await claim(prisma, "w1", { limit: 5, leaseMs: 10_000 })).toHaveLength(1);
    expect(await claim(prisma, "w1", { limit: 5, leaseMs: 10_000 })).toEqual([]);
  });

  it("claims only the kinds asked for, and every kind when none are named", async () => {
    const a = await enqueue(prisma, { kind: "a" });
    const b = await enqueue(prisma, { kind: "b" });
    const onlyA = await claim(prisma, "w1", { limit: 5, leaseMs: 10_000, kinds: ["a"] });
    expect(onlyA.map((j) => j.id)).toEqual([a.id]);
    expect((await row(b.id)).state).toBe("available");
    const any = await claim(prisma, "w2", { limit: 5, leaseMs: 10_000 });
    expect(any.map((j) => j.id)).toEqual([b.id]);
  });

  it("two workers never hold one job", async () => {
    for (let i = 0; i < 6; i++) await enqueue(prisma, { kind: "k" });
    const [a, b] = await Promise.all([
      claim(prisma, "w1", { limit: 6, leaseMs: 10_000 }),
      claim(prisma, "w2", { limit: 6, leaseMs: 10_000 }),
    ]);
    const ids = [...a, ...b].map((j) => String(j.id));
    expect(ids).toHaveLength(6);
    expect(new Set(ids).size).toBe(6);
    expect(await prisma.job.count({ where: { attempts: 1, state: "running" } })).toBe(6);
  });

  it("a lapsed lease lets another worker take the job, with a fresh lease and attempt", async () => {
    const { id } = await enqueue(prisma, { kind: "k" });
    await claimOne("w1", 60_000);
    expect(await claim(prisma, "w2", { limit: 1, leaseMs: 10_000 })).toEqual([]);
    await expireLease(id);
    const taken = await claimOne("w2", 20_000);
    expect(taken).toMatchObject({ id, attempts: 2, lockedBy: "w2" });
    const job = await row(id);
    expect(Math.abs(msAfterUpdate(job, job.lockedUntil) - 20_000)).toBeLessThanOrEqual(2);
    // The first worker's lease is gone: it can neither extend nor complete the job.
    expect(await heartbeat(prisma, "w1", [id], 60_000)).toEqual([]);
    await expect(complete(prisma, { id }, "w1")).rejects.toBeInstanceOf(LeaseLostError);
  });

  it("a lapsed lease on the last attempt is not claimed again", async () => {
    const { id } = await enqueue(prisma, { kind: "k", maxAttempts: 2 });
    await claimOne("w1");
    await expireLease(id);
    await claimOne("w2");
    await expireLease(id);
    expect(await claim(prisma, "w3", { limit: 1, leaseMs: 10_000 })).toEqual([]);
  });

  it("a job waits for the running job of its concurrency key, and runs once that is done", async () => {
    const first = await enqueue(prisma, { kind: "k", concurrencyKey: "account-1" });
    const second = await enqueue(prisma, { kind: "k", concurrencyKey: "account-1" });
    expect((await claimOne("w1")).id).toBe(first.id);
    expect(await claim(prisma, "w2", { limit: 5, leaseMs: 10_000 })).toEqual([]);
    await complete(prisma, first, "w1");
    expect((await claimOne("w2")).id).toBe(second.id);
  });

  it("takes a batch in one claim: one job per concurrency key, the earliest, and lapsed ones too", async () => {
    const now = Date.now();
    const at = (ms: number) => new Date(now - ms);
    const a1 = await enqueue(prisma, { kind: "k", concurrencyKey: "a", runAt: at(5_000) });
    await enqueue(prisma, { kind: "k", concurrencyKey: "a", runAt: at(4_000) });
    const free = await enqueue(prisma, { kind: "k", runAt: at(3_000) });
    const lapsed = await enqueue(prisma, { kind: "k", concurrencyKey: "b", runAt: at(6_000) });
    const busy = await enqueue(prisma, { kind: "k", concurrencyKey: "c", runAt: at(7_000) });
    await enqueue(prisma, { kind: "k", concurrencyKey: "c", runAt: at(2_000) });
    await claimOne("w0", 60_000); // takes `busy` (the earliest): key "c" now runs
    expect((await row(busy.id)).lockedBy).toBe("w0");
    await prisma.$executeRaw`
      UPDATE "Job" SET "state" = 'running', "lockedBy" = 'w-dead', "attempts" = 1,
             "lockedUntil" = now() - interval '1 second' WHERE "id" = ${lapsed.id}`;
    const jobs = await claim(prisma, "w1", { limit: 10, leaseMs: 10_000 });
    // The second "a" waits for the first; "c" waits for the running one.
    expect(ids(jobs)).toEqual(ids([lapsed, a1, free]));
    const by = new Map(jobs.map((j) => [j.id, [j.lockedBy, j.attempts]]));
    expect([by.get(lapsed.id), by.get(a1.id), by.get(free.id)]).toEqual([
      ["w1", 2],
      ["w1", 1],
      ["w1", 1],
    ]);
    expect(await claim(prisma, "w2", { limit: 10, leaseMs: 10_000 })).toEqual([]);
  });

  it("asks for nothing with no free slot: not even a round trip", async () => {
    await enqueue(prisma, { kind: "k" });
    expect(await claim(prisma, "w1", { limit: 0, leaseMs: 10_000 })).toEqual([]);
    expect(await prisma.job.count({ where: { state: "available" } })).toBe(1);
    // A client whose database cannot be reached: any statement would fail.
    expect(await claim(unreachable, "w1", { limit: 0, leaseMs: 10_000 })).toEqual([]);
    await expect(claim(unreachable, "w1", { limit: 1, leaseMs: 10_000 })).rejects.toThrow();
  });

  it("reports a database error instead of returning nothing", async () => {
    await enqueue(prisma, { kind: "k" });
    await expect(
      claim(prisma, "w1", { limit: 1, leaseMs: 10_000, kinds: ["bad\u0000kind"] }),
    ).rejects.toThrow();
  });
});

describe("heartbeat", () => {
  it("extends the lease by leaseMs from now, for the jobs this worker still holds", async () => {
    const mine = await enqueue(prisma, { kind: "k" });
    const theirs = await enqueue(prisma, { kind: "k" });
    const done = await enqueue(prisma, { kind: "k" });
    await claimOne("w1", 1_000);
    await claimOne("w2", 1_000);
    await claimOne("w1", 1_000);
    await complete(prisma, done, "w1");
    const theirsBefore = await row(theirs.id);

    const kept = await heartbeat(prisma, "w1", [mine.id, theirs.id, done.id], 90_000);
    expect(kept).toEqual([mine.id]);
    const job = await row(mine.id);
    expect(Math.abs(msAfterUpdate(job, job.lockedUntil) - 90_000)).toBeLessThanOrEqual(2);
    expect((await row(theirs.id)).lockedUntil).toEqual(theirsBefore.lockedUntil);
    expect((await row(done.id)).state).toBe("completed");
    expect(await heartbeat(prisma, "w1", [], 90_000)).toEqual([]);
  });
});

describe("complete", () => {
  it("records the result and frees the job", async () => {
    const { id } = await enqueue(prisma, { kind: "k" });
    await claimOne("w1");
    await complete(prisma, { id }, "w1", { paid: "10.00" });
    const job = await row(id);
    expect(job).toMatchObject({
      state: "completed",
      result: { paid: "10.00" },
      lockedBy: null,
      lockedUntil: null,
      lastError: null,
    });
    expect(job.finishedAt).toEqual(job.updatedAt);
  });

  it("without a result stores none, and clears an earlier attempt's error", async () => {
    const { id } = await enqueue(prisma, { kind: "k" });
    const first = await claimOne("w1");
    await fail(prisma, first, "w1", new Error("first try"));
    await prisma.job.update({ where: { id }, data: { runAt: new Date(0) } });
    await claimOne("w1");
    await complete(prisma, { id }, "w1");
    expect(await row(id)).toMatchObject({ state: "completed", result: null, lastError: null });
    // No result is SQL NULL, not a stored JSON null.
    const [stored] = await prisma.$queryRaw<{ none: boolean }[]>`
      SELECT "result" IS NULL AS none FROM "Job" WHERE "id" = ${id}`;
    expect(stored?.none).toBe(true);
  });

  it("refuses a worker that does not hold the job, and twice", async () => {
    const { id } = await enqueue(prisma, { kind: "k" });
    await claimOne("w1");
    const err = await complete(prisma, { id }, "w2").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LeaseLostError);
    expect((err as Error).name).toBe("LeaseLostError");
    expect((await row(id)).state).toBe("running");
    await complete(prisma, { id }, "w1");
    await expect(complete(prisma, { id }, "w1")).rejects.toBeInstanceOf(LeaseLostError);
  });
});

describe("completeMany", () => {
  it("completes, in one statement, only the jobs this worker still holds, with their results", async () => {
    const mine = await enqueue(prisma, { kind: "k", runAt: new Date(Date.now() - 2_000) });
    const alsoMine = await enqueue(prisma, { kind: "k", runAt: new Date(Date.now() - 1_000) });
    const theirs = await enqueue(prisma, { kind: "k" });
    await claim(prisma, "w1", { limit: 2, leaseMs: 10_000 });
    await claimOne("w2");
    const done = await completeMany(prisma, "w1", [
      { id: mine.id, result: { placed: "SO-1" } },
      { id: alsoMine.id, result: null },
      { id: theirs.id, result: { stolen: true } },
    ]);
    expect(ids([...done].map((id) => ({ id })))).toEqual(ids([mine, alsoMine]));
    expect(await row(mine.id)).toMatchObject({
      state: "completed",
      result: { placed: "SO-1" },
      lockedBy: null,
      lockedUntil: null,
    });
    expect((await row(mine.id)).finishedAt).not.toBeNull();
    expect(await row(alsoMine.id)).toMatchObject({ state: "completed", result: null });
    // No result is SQL NULL, not a stored JSON null.
    const [stored] = await prisma.$queryRaw<{ none: boolean }[]>`
      SELECT "result" IS NULL AS none FROM "Job" WHERE "id" = ${alsoMine.id}`;
    expect(stored?.none).toBe(true);
    expect(await row(theirs.id)).toMatchObject({ state: "running", lockedBy: "w2", result: null });
    // Done is done: a second completion finds nothing to complete.
    expect((await completeMany(prisma, "w1", [{ id: mine.id, result: null }])).size).toBe(0);
    expect((await completeMany(prisma, "w1", [])).size).toBe(0);
    expect((await completeMany(unreachable, "w1", [])).size).toBe(0); // no round trip
  });
});

describe("startForShop", () => {
  it("gives the shop's waiting or running job of that kind, else enqueues one under its key", async () => {
    const shop = "one.myshopify.com";
    const first = await startForShop(prisma, { kind: "sync", shopDomain: shop });
    expect(await row(first)).toMatchObject({
      kind: "sync",
      shopDomain: shop,
      state: "available",
      concurrencyKey: "sync:one.myshopify.com",
    });
    // Waiting, then running: the same job.
    expect(await startForShop(prisma, { kind: "sync", shopDomain: shop })).toBe(first);
    await claimOne("w1");
    expect(await startForShop(prisma, { kind: "sync", shopDomain: shop })).toBe(first);
    // Another kind or another shop: a job of its own.
    const other = await startForShop(prisma, { kind: "import", shopDomain: shop });
    const elsewhere = await startForShop(prisma, { kind: "sync", shopDomain: "two.myshopify.com" });
    expect(new Set([first, other, elsewhere]).size).toBe(3);
    // Done: the next start is a new job.
    await complete(prisma, { id: first }, "w1");
    const next = await startForShop(prisma, { kind: "sync", shopDomain: shop, payload: { n: 2 } });
    expect(next).not.toBe(first);
    expect(await row(next)).toMatchObject({ state: "available", payload: { n: 2 } });
  });
});

describe("fail", () => {
  it("a failed first attempt waits 0.5 to 1 s, measured on the stored timestamps", async () => {
    const { id } = await enqueue(prisma, { kind: "k", maxAttempts: 5 });
    const job = await claimOne("w1");
    expect(await fail(prisma, job, "w1", new Error("service said no"))).toBe("retry");
    const after = await row(id);
    expect(after).toMatchObject({
      state: "available",
      attempts: 1,
      lockedBy: null,
      lockedUntil: null,
      finishedAt: null,
      lastError: "Error: service said no",
    });
    const delay = msAfterUpdate(after, after.runAt);
    expect(delay).toBeGreaterThanOrEqual(500 - 2);
    expect(delay).toBeLessThanOrEqual(1_000 + 2);
  });

  it("the back-off grows with the attempts: the third failure waits 2 to 4 s", async () => {
    const { id } = await enqueue(prisma, { kind: "k", maxAttempts: 5 });
    for (let attempt = 1; attempt <= 3; attempt++) {
      await prisma.job.update({ where: { id }, data: { runAt: new Date(0) } });
      const job = await claimOne("w1");
      expect(job.attempts).toBe(attempt);
      expect(await fail(prisma, job, "w1", new Error(`try ${attempt}`))).toBe("retry");
    }
    const after = await row(id);
    const delay = msAfterUpdate(after, after.runAt);
    expect(delay).toBeGreaterThanOrEqual(2_000 - 2);
    expect(delay).toBeLessThanOrEqual(4_000 + 2);
    expect(after.lastError).toBe("Error: try 3");
  });

  it("the last attempt's failure makes the job dead, with its error and an end time", async () => {
    const { id } = await enqueue(prisma, { kind: "k", maxAttempts: 1 });
    const job = await claimOne("w1");
    expect(await fail(prisma, job, "w1", new TypeError("bad payload"))).toBe("dead");
    const after = await row(id);
    expect(after).toMatchObject({
      state: "dead",
      lastError: "TypeError: bad payload",
      lockedBy: null,
    });
    expect(after.finishedAt).toBeInstanceOf(Date);
    expect(await claim(prisma, "w2", { limit: 1, leaseMs: 10_000 })).toEqual([]);
  });

  it("a permanent failure is dead on its first attempt", async () => {
    const { id } = await enqueue(prisma, { kind: "k", maxAttempts: 10 });
    const job = await claimOne("w1");
    expect(await fail(prisma, job, "w1", new Error("no handler"), { dead: true })).toBe("dead");
    expect(await row(id)).toMatchObject({ state: "dead", attempts: 1 });
  });

  it("a worker that lost the job records nothing", async () => {
    const { id } = await enqueue(prisma, { kind: "k" });
    const job = await claimOne("w1");
    await fail(prisma, job, "w2", new Error("not mine"));
    expect(await row(id)).toMatchObject({ state: "running", lockedBy: "w1", lastError: null });
  });
});

describe("reschedule and release", () => {
  it("reschedule waits exactly delayMs, gives the attempt back and keeps the reason", async () => {
    const { id } = await enqueue(prisma, { kind: "k", maxAttempts: 1 });
    await claimOne("w1");
    await reschedule(prisma, { id }, "w1", 90_000, "balance is short");
    const after = await row(id);
    expect(after).toMatchObject({
      state: "available",
      attempts: 0,
      lockedBy: null,
      lockedUntil: null,
      lastError: "balance is short",
    });
    expect(Math.abs(msAfterUpdate(after, after.runAt) - 90_000)).toBeLessThanOrEqual(2);
  });

  it("reschedule bounds the reason and ignores a worker that lost the job", async () => {
    const { id } = await enqueue(prisma, { kind: "k" });
    await claimOne("w1");
    await reschedule(prisma, { id }, "w2", 1_000, "not mine");
    expect(await row(id)).toMatchObject({ state: "running", lockedBy: "w1", attempts: 1 });
    await reschedule(prisma, { id }, "w1", 1_000, "x".repeat(5_000));
    expect((await row(id)).lastError).toBe("x".repeat(2_000));
  });

  it("release gives back only this worker's running jobs, attempt not counted", async () => {
    const mine = await enqueue(prisma, { kind: "k" });
    const theirs = await enqueue(prisma, { kind: "k" });
    await claimOne("w1");
    await claimOne("w2");
    expect(await release(prisma, [mine.id, theirs.id], "w1")).toBe(1);
    expect(await row(mine.id)).toMatchObject({
      state: "available",
      attempts: 0,
      lockedBy: null,
      lockedUntil: null,
    });
    expect(await row(theirs.id)).toMatchObject({ state: "running", lockedBy: "w2", attempts: 1 });
    expect(await release(prisma, [], "w1")).toBe(0);
    expect((await claimOne("w3")).id).toBe(mine.id);
  });
});

describe("buryExpired", () => {
  it("buries only lapsed jobs on their last attempt, keeping an earlier error", async () => {
    const lastTry = await enqueue(prisma, { kind: "k", maxAttempts: 1 });
    const withError = await enqueue(prisma, { kind: "k", maxAttempts: 1 });
    const triesLeft = await enqueue(prisma, { kind: "k", maxAttempts: 3 });
    const alive = await enqueue(prisma, { kind: "k", maxAttempts: 1 });
    for (const w of ["w1", "w2", "w3", "w4"]) await claimOne(w);
    await prisma.job.update({ where: { id: withError.id }, data: { lastError: "timeout" } });
    for (const j of [lastTry, withError, triesLeft]) await expireLease(j.id);

    expect(await buryExpired(prisma)).toBe(2);
    const buried = await row(lastTry.id);
    expect(buried).toMatchObject({ state: "dead", lockedBy: null, lockedUntil: null });
    expect(buried.lastError).toMatch(/lease expired/);
    expect(buried.finishedAt).toEqual(buried.updatedAt);
    expect(await row(withError.id)).toMatchObject({ state: "dead", lastError: "timeout" });
    expect((await row(triesLeft.id)).state).toBe("running");
    expect((await row(alive.id)).state).toBe("running");
  });
});

describe("backoffMs and errorMessage", () => {
  it("back-off: 1 s doubling per attempt, 10 minutes at most by default", () => {
    const top = () => 1;
    expect([1, 2, 3, 4].map((a) => backoffMs(a, undefined, top))).toEqual([1000, 2000, 4000, 8000]);
    expect(backoffMs(10, undefined, top)).toBe(512_000);
    expect(backoffMs(11, undefined, top)).toBe(600_000);
    expect(backoffMs(50, undefined, top)).toBe(600_000);
    expect(backoffMs(50, undefined, () => 0)).toBe(300_000);
    expect(backoffMs(3, undefined, () => 0.5)).toBe(3_000);
    const sampled = backoffMs(3);
    expect(sampled).toBeGreaterThanOrEqual(2_000);
    expect(sampled).toBeLessThanOrEqual(4_000);
  });

  it("error text: name and message, or what was thrown, at most 2000 characters", () => {
    expect(errorMessage(new RangeError("out of range"))).toBe("RangeError: out of range");
    expect(errorMessage("plain text")).toBe("Non-error thrown: plain text");
    expect(errorMessage(null)).toBe("Non-error thrown: null");
    expect(errorMessage(new Error("y".repeat(3_000)))).toBe(`Error: ${"y".repeat(1_993)}`);
  });
});

// Two transactions racing for one concurrency key need two real sessions: PostgreSQL only
// (the embedded PGlite is one session). CI runs this with TEST_DATABASE_URL.
describe.skipIf(!process.env.TEST_DATABASE_URL)("claim racing on a concurrency key", () => {
  it("loses the race quietly: no error, no job, the other job untouched", async () => {
    const pg = (await import("pg")).default;
    const url = new URL(process.env.DATABASE_URL!);
    const schema = url.searchParams.get("schema")!;
    url.searchParams.delete("schema");
    const other = new pg.Client({
      connectionString: url.toString(),
      options: `-c search_path="${schema}"`,
    });
    await other.connect();
    try {
      const first = await enqueue(prisma, { kind: "k", concurrencyKey: "account-1" });
      const second = await enqueue(prisma, { kind: "k", concurrencyKey: "account-1" });
      // Another worker's claim of the first job, not yet committed: this claim cannot see it,
      // picks the second job and waits on the key's unique index until the other commits.
      await other.query("BEGIN");
      await other.query(
        `UPDATE "Job" SET "state" = 'running', "lockedBy" = 'w1', "attempts" = 1,
                "lockedUntil" = now() + interval '1 minute' WHERE "id" = $1`,
        [first.id],
      );
      const racing = claim(prisma, "w2", { limit: 2, leaseMs: 10_000 });
      const waiting = async () => {
        const { rows } = await other.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE pg_blocking_pids(pid) @> ARRAY[pg_backend_pid()]`,
        );
        return rows[0].n > 0;
      };
      for (let i = 0; i < 500 && !(await waiting()); i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(await waiting()).toBe(true);
      await other.query("COMMIT");
      expect(await racing).toEqual([]);
      expect(await row(second.id)).toMatchObject({
        state: "available",
        attempts: 0,
        lockedBy: null,
      });
      expect(await row(first.id)).toMatchObject({ state: "running", lockedBy: "w1" });
    } finally {
      await other.end();
    }
  });
});

describe("CompletionBatcher", () => {
  it("completes the jobs that finish together in one statement, and tells each its outcome", async () => {
    let statements = 0;
    const counted = prisma.$extends({
      query: {
        $queryRaw: ({ args, query }) => {
          statements++;
          return query(args);
        },
      },
    }) as unknown as typeof prisma;
    for (let i = 0; i < 5; i++) await enqueue(prisma, { kind: "k" });
    const jobs = await claim(prisma, "w1", { limit: 5, leaseMs: 10_000 });
    const lost = jobs[4]!;
    await prisma.job.update({ where: { id: lost.id }, data: { lockedBy: "w-other" } });
    const batcher = new CompletionBatcher(counted, "w1");
    const outcomes = await Promise.allSettled(
      jobs.map((j, i) => batcher.complete(j.id, i === 0 ? { n: 1 } : null)),
    );
    expect(statements).toBe(1);
    expect(outcomes.slice(0, 4).map((o) => o.status)).toEqual(Array(4).fill("fulfilled"));
    expect(outcomes[4]).toMatchObject({ status: "rejected" });
    expect((outcomes[4] as PromiseRejectedResult).reason).toBeInstanceOf(LeaseLostError);
    expect(await row(jobs[0]!.id)).toMatchObject({ state: "completed", result: { n: 1 } });
    expect(await prisma.job.count({ where: { state: "completed" } })).toBe(4);
    // Later ones go in a statement of their own.
    const late = await enqueue(prisma, { kind: "k" });
    await claimOne("w1");
    await batcher.complete(late.id, null);
    expect(statements).toBe(2);
  });

  it("a statement the database refuses fails every job of its batch with that error", async () => {
    const batcher = new CompletionBatcher(unreachable, "w1");
    const outcomes = await Promise.allSettled([
      batcher.complete(1n, null),
      batcher.complete(2n, null),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
    const [a, b] = outcomes as PromiseRejectedResult[];
    expect(a!.reason).toBe(b!.reason);
    expect(a!.reason).not.toBeInstanceOf(LeaseLostError);
  });
});
