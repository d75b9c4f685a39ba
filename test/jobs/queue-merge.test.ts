/**
 * The queue's two questions that capabilities used to ask in raw SQL (issue 31): "merge into
 * the job with key K that still waits" (enqueueOrMerge) and "how many jobs of kind K for shop S
 * are running or due" (pendingCount). Against the real database.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { claim, complete, fail } from "../../app/jobs/queue.server";
import { enqueue, enqueueOrMerge, pendingCount } from "../../app/jobs/enqueue.server";

beforeEach(async () => {
  await prisma.job.deleteMany();
});

const payloadOf = async (id: bigint) =>
  (await prisma.job.findUniqueOrThrow({ where: { id } })).payload as Record<string, unknown>;
const later = (ms: number) => new Date(Date.now() + ms);

describe("enqueueOrMerge", () => {
  it("merges into the waiting job: the new payload, gathered arrays, the earlier time", async () => {
    const first = await enqueueOrMerge(prisma, {
      kind: "track",
      concurrencyKey: "order:1",
      idempotencyKey: "a",
      payload: { orderId: "1", hints: ["x", "y"], records: [1], note: "old" },
      runAt: later(60_000),
      gather: ["hints", "orders"],
    });
    expect(first.created).toBe(true);

    const second = await enqueueOrMerge(prisma, {
      kind: "track",
      concurrencyKey: "order:1",
      idempotencyKey: "b",
      payload: { orderId: "1", hints: ["y", "z"], orders: ["7"] },
      runAt: later(5_000),
      gather: ["hints", "orders"],
    });
    expect(second).toEqual({ id: first.id, created: false });
    expect(await prisma.job.count()).toBe(1);
    // Not gathered: replaced (records and note are gone); gathered: the union, once each.
    expect(await payloadOf(first.id)).toEqual({
      orderId: "1",
      hints: ["x", "y", "z"],
      orders: ["7"],
    });
    const job = await prisma.job.findUniqueOrThrow({ where: { id: first.id } });
    expect(job.runAt.getTime()).toBeLessThan(later(10_000).getTime());

    // A later time never delays it.
    await enqueueOrMerge(prisma, {
      kind: "track",
      concurrencyKey: "order:1",
      payload: { orderId: "1" },
      runAt: later(3_600_000),
      gather: ["hints"],
    });
    const after = await prisma.job.findUniqueOrThrow({ where: { id: first.id } });
    expect(after.runAt).toEqual(job.runAt);
    // Nothing new to gather: the gathered field keeps what it had.
    expect(await payloadOf(first.id)).toEqual({ orderId: "1", hints: ["x", "y", "z"] });
  });

  it("a request for now makes a job that waits for later due now", async () => {
    const a = await enqueueOrMerge(prisma, {
      kind: "k",
      concurrencyKey: "c",
      runAt: later(3_600_000),
    });
    const before = Date.now();
    await enqueueOrMerge(prisma, { kind: "k", concurrencyKey: "c" });
    const job = await prisma.job.findUniqueOrThrow({ where: { id: a.id } });
    expect(job.runAt.getTime()).toBeLessThanOrEqual(Date.now());
    expect(job.runAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it("leaves a field out when neither side has anything to gather", async () => {
    const a = await enqueueOrMerge(prisma, {
      kind: "k",
      concurrencyKey: "c",
      payload: { id: 1 },
      gather: ["hints"],
    });
    await enqueueOrMerge(prisma, {
      kind: "k",
      concurrencyKey: "c",
      payload: { id: 2 },
      gather: ["hints"],
    });
    expect(await payloadOf(a.id)).toEqual({ id: 2 });
  });

  it("never merges into another kind, another key, a claimed job or one that ran once", async () => {
    const base = { kind: "track", concurrencyKey: "order:1", payload: { n: 1 }, gather: ["n"] };
    const waiting = await enqueueOrMerge(prisma, base);
    const otherKind = await enqueueOrMerge(prisma, { ...base, kind: "place" });
    const otherKey = await enqueueOrMerge(prisma, { ...base, concurrencyKey: "order:2" });
    expect(otherKind.created).toBe(true);
    expect(otherKey.created).toBe(true);
    expect(new Set([waiting.id, otherKind.id, otherKey.id]).size).toBe(3);

    // Claimed by a worker: running, not merged into.
    const [claimed] = await claim(prisma, "w1", { limit: 10, leaseMs: 60_000, kinds: ["track"] });
    expect(claimed!.id).toBe(waiting.id);
    const afterClaim = await enqueueOrMerge(prisma, base);
    expect(afterClaim.created).toBe(true);

    // Ran once and failed (waiting for its backoff, attempts 1): not merged into either.
    await complete(prisma, claimed!, "w1");
    const [again] = await claim(prisma, "w2", { limit: 10, leaseMs: 60_000, kinds: ["track"] });
    expect(again!.id).toBe(afterClaim.id);
    await fail(prisma, again!, "w2", new Error("boom"));
    await prisma.job.update({ where: { id: afterClaim.id }, data: { runAt: new Date() } });
    const afterFail = await enqueueOrMerge(prisma, base);
    expect(afterFail.created).toBe(true);
    expect(afterFail.id).not.toBe(afterClaim.id);
    // The waiting one (done), order:2, the one that failed, and this new one.
    expect(await prisma.job.count({ where: { kind: "track" } })).toBe(4);
  });

  it("with the key of a job already enqueued and none waiting, adds nothing twice", async () => {
    const a = await enqueueOrMerge(prisma, {
      kind: "k",
      concurrencyKey: "c",
      idempotencyKey: "same",
    });
    await prisma.job.update({ where: { id: a.id }, data: { state: "completed" } });
    const b = await enqueueOrMerge(prisma, {
      kind: "k",
      concurrencyKey: "c",
      idempotencyKey: "same",
    });
    expect(b).toEqual({ id: a.id, created: false });
    expect(await prisma.job.count()).toBe(1);
  });
});

describe("pendingCount", () => {
  it("counts the shop's running and due jobs of the kinds, not later, other or finished ones", async () => {
    const job = (o: Partial<{ kind: string; shopDomain: string; runAt: Date }>) =>
      enqueue(prisma, { kind: "place", shopDomain: "a.myshopify.com", ...o });
    await job({});
    await job({});
    await job({ runAt: later(60_000) });
    await job({ kind: "pay" });
    await job({ shopDomain: "b.myshopify.com" });
    const done = await job({});
    await prisma.job.update({ where: { id: done.id }, data: { state: "completed" } });
    const dead = await job({});
    await prisma.job.update({ where: { id: dead.id }, data: { state: "dead" } });
    expect(await pendingCount(prisma, { kinds: ["place"], shopDomain: "a.myshopify.com" })).toBe(2);

    const [running] = await claim(prisma, "w", { limit: 1, leaseMs: 60_000, kinds: ["place"] });
    expect(running).toBeDefined();
    // Running counts as well as due: still 2.
    expect(await pendingCount(prisma, { kinds: ["place"], shopDomain: "a.myshopify.com" })).toBe(2);
    expect(await pendingCount(prisma, { kinds: ["place"], shopDomain: "b.myshopify.com" })).toBe(1);
    expect(await pendingCount(prisma, { kinds: ["place"], shopDomain: "c.myshopify.com" })).toBe(0);
    expect(await pendingCount(prisma, { kinds: ["place"], shopDomain: null })).toBe(0);
    // Several kinds together: the due pay job joins the two place jobs; no kind, nothing.
    const a = "a.myshopify.com";
    expect(await pendingCount(prisma, { kinds: ["place", "pay"], shopDomain: a })).toBe(3);
    expect(await pendingCount(prisma, { kinds: ["pay"], shopDomain: a })).toBe(1);
    expect(await pendingCount(prisma, { kinds: [], shopDomain: a })).toBe(0);
  });
});
