import { describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { DbRateLimiter } from "../../app/svc/limiter.server";
import type { Clock } from "../../app/svc/clock";

function fakeClock(start = Date.UTC(2026, 0, 1)): Clock & { t: number } {
  const c = {
    t: start,
    now: () => c.t,
    sleep: async (ms: number) => {
      c.t += 0; // waiting does not move this clock; tests read the reserved slots
      void ms;
    },
  };
  return c;
}

async function account() {
  return prisma.svcAccount.create({ data: { baseUrl: "http://sim", authMethod: "apiKey" } });
}

describe("shared rate limiter (RateBucket)", () => {
  it("spaces slots by the interval across limiter instances (processes), per bucket", async () => {
    const a = await account();
    const clock = fakeClock();
    const opts = { accountId: a.id, callsPerSecond: 1, queryCallsPerSecond: 2, clock, marginMs: 0 };
    const limiters = [
      new DbRateLimiter(prisma, opts),
      new DbRateLimiter(prisma, opts),
      new DbRateLimiter(prisma, opts),
    ];
    const slots = await Promise.all(
      limiters.flatMap((l) => [l.reserve("default"), l.reserve("default")]),
    );
    const rel = slots.map((s) => s - clock.t).sort((x, y) => x - y);
    expect(rel).toEqual([0, 1000, 2000, 3000, 4000, 5000]);
    const q = await Promise.all([
      limiters[0]!.reserve("query"),
      limiters[1]!.reserve("query"),
      limiters[2]!.reserve("query"),
    ]);
    expect(q.map((s) => s - clock.t).sort((x, y) => x - y)).toEqual([0, 500, 1000]);
  });

  it("lets an idle bucket start now, and honours per-account rates", async () => {
    const a = await account();
    const clock = fakeClock();
    const l = new DbRateLimiter(prisma, {
      accountId: a.id,
      callsPerSecond: 4,
      queryCallsPerSecond: 2,
      clock,
      marginMs: 10,
    });
    expect((await l.reserve("default")) - clock.t).toBe(0);
    expect((await l.reserve("default")) - clock.t).toBe(253);
    clock.t += 10_000;
    expect((await l.reserve("default")) - clock.t).toBe(0);
  });

  it("counts each operation in its own bucket, or all of them together with scope account", async () => {
    const a = await account();
    const clock = fakeClock();
    const base = { accountId: a.id, callsPerSecond: 1, queryCallsPerSecond: 2, clock, marginMs: 0 };
    const perOp = new DbRateLimiter(prisma, base);
    expect((await perOp.reserve("default", "createOrderV3")) - clock.t).toBe(0);
    expect((await perOp.reserve("default", "addCart")) - clock.t).toBe(0);
    expect((await perOp.reserve("default", "createOrderV3")) - clock.t).toBe(1000);
    // The two batch queries share one bucket whatever the scope.
    expect((await perOp.reserve("query", "getOrderDetailBatch")) - clock.t).toBe(0);
    expect((await perOp.reserve("query", "getProofOfDelivery")) - clock.t).toBe(500);

    const b = await account();
    const shared = new DbRateLimiter(prisma, { ...base, accountId: b.id, scope: "account" });
    expect((await shared.reserve("default", "createOrderV3")) - clock.t).toBe(0);
    expect((await shared.reserve("default", "addCart")) - clock.t).toBe(1000);
    expect((await shared.reserve("default", "getBalance")) - clock.t).toBe(2000);
    const keys = await prisma.rateBucket.findMany({
      where: { accountId: { in: [a.id, b.id] } },
      orderBy: [{ accountId: "asc" }, { bucket: "asc" }],
    });
    expect(keys.filter((k) => k.accountId === a.id).map((k) => k.bucket)).toEqual([
      "op:addCart",
      "op:createOrderV3",
      "query",
    ]);
    expect(keys.filter((k) => k.accountId === b.id).map((k) => k.bucket)).toEqual(["default"]);
  });

  it("a 1600200 pauses only its bucket for a window; a second one soon after slows it for a while", async () => {
    const a = await account();
    const clock = fakeClock();
    const l = new DbRateLimiter(prisma, {
      accountId: a.id,
      callsPerSecond: 10,
      queryCallsPerSecond: 2,
      clock,
      marginMs: 0,
    });
    expect((await l.reserve("default", "createOrderV3")) - clock.t).toBe(0);
    await l.onRateLimited("default", "createOrderV3");
    // A stray reply: the window empties (1 s), then the usual 100 ms apart.
    expect((await l.reserve("default", "createOrderV3")) - clock.t).toBe(1000);
    expect((await l.reserve("default", "createOrderV3")) - clock.t).toBe(1100);
    clock.t += 5_000;
    await l.onRateLimited("default", "createOrderV3");
    // A second within 15 s: paused, then 1.5 × 100 ms apart until 15 s have passed.
    expect((await l.reserve("default", "createOrderV3")) - clock.t).toBe(1000);
    expect((await l.reserve("default", "createOrderV3")) - clock.t).toBe(1150);
    // Other operations are neither paused nor slowed.
    expect((await l.reserve("default", "addCart")) - clock.t).toBe(0);
    expect((await l.reserve("default", "addCart")) - clock.t).toBe(100);
    clock.t += 16_000;
    expect((await l.reserve("default", "createOrderV3")) - clock.t).toBe(0);
    expect((await l.reserve("default", "createOrderV3")) - clock.t).toBe(100);
    // One more, long after the last: a pause again, no slowing.
    await l.onRateLimited("default", "createOrderV3");
    expect((await l.reserve("default", "createOrderV3")) - clock.t).toBe(1000);
    expect((await l.reserve("default", "createOrderV3")) - clock.t).toBe(1100);
  });

  it("slows the account down after two 1600200 replies until slowUntil", async () => {
    const a = await account();
    const clock = fakeClock();
    const l = new DbRateLimiter(prisma, {
      accountId: a.id,
      callsPerSecond: 1,
      queryCallsPerSecond: 2,
      clock,
      marginMs: 0,
      slowFactor: 3,
      slowForMs: 60_000,
      pauseMs: 0,
      scope: "account",
    });
    await l.reserve("default");
    await l.onRateLimited("default");
    await l.onRateLimited("default");
    const row = await prisma.rateBucket.findUniqueOrThrow({
      where: { accountId_bucket: { accountId: a.id, bucket: "default" } },
    });
    expect(row.slowUntil?.getTime()).toBe(clock.t + 60_000);
    // Slot at +1000 (reserved before), the next one 3000 later.
    expect((await l.reserve("default")) - clock.t).toBe(1000);
    expect((await l.reserve("default")) - clock.t).toBe(4000);
    clock.t += 120_000;
    expect((await l.reserve("default")) - clock.t).toBe(0);
    expect((await l.reserve("default")) - clock.t).toBe(1000);
  });

  it("waits in real time for its slot", async () => {
    const a = await account();
    const l = new DbRateLimiter(prisma, {
      accountId: a.id,
      callsPerSecond: 5,
      queryCallsPerSecond: 2,
      marginMs: 0,
    });
    const t0 = Date.now();
    await l.acquire("default");
    await l.acquire("default");
    await l.acquire("default");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(390);
  });
});
