import { describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { DbRateLimiter, type RateLimiterOptions } from "../../app/svc/limiter.server";
import { limiterWait, rateLimited } from "../../app/metrics/registry.server";
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

/** A clock that moves only when the limiter sleeps, `lateMs` past the time asked for. */
function sleepingClock(lateMs = 0, start = Date.UTC(2026, 0, 1)) {
  const c = {
    t: start,
    sleeps: [] as number[],
    now: () => c.t,
    sleep: async (ms: number) => {
      c.sleeps.push(ms);
      c.t += ms + lateMs;
    },
  };
  return c;
}

/**
 * A limiter (1 call a second, default margin) on a sleeping clock whose database answers each
 * reservation `roundTripMs` later; `db.reservations` counts them.
 */
async function slowLimiter(roundTripMs: number) {
  const a = await account();
  const clock = sleepingClock();
  const db = {
    reservations: 0,
    $queryRaw: (...args: Parameters<typeof prisma.$queryRaw>) => {
      db.reservations++;
      clock.t += roundTripMs;
      return prisma.$queryRaw(...args);
    },
  };
  const l = new DbRateLimiter(db as unknown as typeof prisma, {
    accountId: a.id,
    callsPerSecond: 1,
    queryCallsPerSecond: 2,
    clock,
  });
  return { clock, l, db };
}

/** Count and sum (seconds) of the limiter's wait histogram for one bucket. */
async function waits(bucket: string) {
  const { values } = await limiterWait.get();
  const of = (name: string) =>
    values.find((v) => v.metricName === name && v.labels.bucket === bucket)?.value ?? 0;
  return {
    count: of("dropship_svc_limiter_wait_seconds_count"),
    sum: of("dropship_svc_limiter_wait_seconds_sum"),
  };
}

async function limitedCount(bucket: string) {
  const { values } = await rateLimited.get();
  return values.find((v) => v.labels.bucket === bucket)?.value ?? 0;
}

describe("the limiter's durations as values", () => {
  it("computes each bucket's interval from its rate and the jitter margin (60 ms by default)", async () => {
    const a = await account();
    const l = (o: Partial<RateLimiterOptions>) =>
      new DbRateLimiter(prisma, {
        accountId: a.id,
        callsPerSecond: 1,
        queryCallsPerSecond: 2,
        ...o,
      });
    expect(l({}).intervalMs("default")).toBe(1060);
    expect(l({}).intervalMs("query")).toBe(530);
    expect(l({ marginMs: 0 }).intervalMs("default")).toBe(1000);
    // Both parts round up: 1000/3 → 334, 60/3 → 20, 10/3 → 4.
    expect(l({ callsPerSecond: 3 }).intervalMs("default")).toBe(354);
    expect(l({ callsPerSecond: 3, marginMs: 10 }).intervalMs("default")).toBe(338);
    expect(l({ queryCallsPerSecond: 3, marginMs: 10 }).intervalMs("query")).toBe(338);
    expect(l({ callsPerSecond: 40, marginMs: 0 }).intervalMs("default")).toBe(25);
    // A rate of zero (or below) is one call per 1000 s, never a division by zero.
    expect(l({ callsPerSecond: 0 }).intervalMs("default")).toBe(1_060_000);
    expect(l({ callsPerSecond: -1, marginMs: 0 }).intervalMs("default")).toBe(1_000_000);
  });

  it("spaces reserved slots by exactly that interval, the default margin included", async () => {
    const a = await account();
    const clock = fakeClock();
    const l = new DbRateLimiter(prisma, {
      accountId: a.id,
      callsPerSecond: 3,
      queryCallsPerSecond: 0,
      clock,
    });
    expect((await l.reserve("default")) - clock.t).toBe(0);
    expect((await l.reserve("default")) - clock.t).toBe(354);
    expect((await l.reserve("default")) - clock.t).toBe(708);
    expect((await l.reserve("query")) - clock.t).toBe(0);
    expect((await l.reserve("query")) - clock.t).toBe(1_060_000);
  });

  it("names the bucket of each call: query, op:<operation>, or default", async () => {
    const a = await account();
    const base = { accountId: a.id, callsPerSecond: 1, queryCallsPerSecond: 2 };
    const perOp = new DbRateLimiter(prisma, base);
    const explicit = new DbRateLimiter(prisma, { ...base, scope: "operation" });
    const shared = new DbRateLimiter(prisma, { ...base, scope: "account" });
    for (const l of [perOp, explicit]) {
      expect(l.bucketKey("default", "addCart")).toBe("op:addCart");
      expect(l.bucketKey("default")).toBe("default");
      expect(l.bucketKey("default", "")).toBe("default");
      expect(l.bucketKey("query", "getOrderDetailBatch")).toBe("query");
    }
    expect(shared.bucketKey("default", "addCart")).toBe("default");
    expect(shared.bucketKey("query", "getProofOfDelivery")).toBe("query");
    // A call without an operation takes the "default" row.
    await perOp.reserve("default");
    const rows = await prisma.rateBucket.findMany({ where: { accountId: a.id } });
    expect(rows.map((r) => r.bucket)).toEqual(["default"]);
  });

  it("acquire sleeps exactly until its slot, not at all when the slot is now, and records the wait", async () => {
    const a = await account();
    const clock = sleepingClock();
    const t0 = clock.t;
    const l = new DbRateLimiter(prisma, {
      accountId: a.id,
      callsPerSecond: 1,
      queryCallsPerSecond: 2,
      clock,
    });
    const before = await waits("op:acquireExact");
    await l.acquire("default", "acquireExact");
    expect(clock.sleeps).toEqual([]);
    expect(clock.t).toBe(t0);
    await l.acquire("default", "acquireExact");
    await l.acquire("default", "acquireExact");
    expect(clock.sleeps).toEqual([1060, 1060]);
    expect(clock.t - t0).toBe(2120);
    const after = await waits("op:acquireExact");
    expect(after.count - before.count).toBe(3);
    expect(after.sum - before.sum).toBeCloseTo(0 + 1.06 + 1.06, 9);
    // The bucket's next slot is the fourth.
    expect((await l.reserve("default", "acquireExact")) - t0).toBe(3180);
  });

  it("asks for its slot a round trip ahead, so a slow database does not make each call late", async () => {
    // Each reservation comes back 40 ms later: more than half the default margin (30 ms).
    const { clock, l, db } = await slowLimiter(40);
    // The first calls learn the round trip (each on its own idle bucket).
    for (let i = 0; i < 6; i++) await l.acquire("default", `learn${i}`);
    db.reservations = 0;
    clock.sleeps.length = 0;
    const t0 = clock.t;
    for (let i = 0; i < 6; i++) await l.acquire("default", `idle${i}`);
    // One reservation each, none given up, no wait for a next slot: 40 ms of round trip each.
    expect(db.reservations).toBe(6);
    expect(clock.sleeps.filter((ms) => ms > 40)).toEqual([]);
    expect(clock.t - t0).toBeLessThanOrEqual(6 * 40 + 6 * 40);
  });

  it("asks at most 200 ms ahead, whatever the round trip", async () => {
    // A round trip of a second (a stalled database): asking a second ahead would hold every
    // call back by as much; past 200 ms the call is late and gives its slot up, as before.
    const { l, db } = await slowLimiter(1000);
    for (let i = 0; i < 3; i++) await l.acquire("default", `stalled${i}`);
    db.reservations = 0;
    await l.acquire("default", "stalledLast");
    expect(db.reservations).toBe(8);
  });

  it("acquire leaves up to half the margin late, and no later", async () => {
    const a = await account();
    const clock = sleepingClock(30); // woken 30 ms late: exactly half the default margin
    const t0 = clock.t;
    const l = new DbRateLimiter(prisma, {
      accountId: a.id,
      callsPerSecond: 1,
      queryCallsPerSecond: 2,
      clock,
    });
    await l.acquire("default", "lateByHalf");
    await l.acquire("default", "lateByHalf");
    expect(clock.sleeps).toEqual([1060]);
    expect(clock.t - t0).toBe(1090);
    expect((await l.reserve("default", "lateByHalf")) - t0).toBe(2120);
  });

  it("a call woken later than half the margin gives its slot up, at most 8 times, then goes", async () => {
    const a = await account();
    const clock = sleepingClock(31);
    const t0 = clock.t;
    const l = new DbRateLimiter(prisma, {
      accountId: a.id,
      callsPerSecond: 1,
      queryCallsPerSecond: 2,
      clock,
    });
    const before = await waits("op:tooLate");
    await l.acquire("default", "tooLate"); // the first slot is now: no sleep, not late
    expect(clock.sleeps).toEqual([]);
    await l.acquire("default", "tooLate");
    // Slot k+1 is at 1060 (k+1); woken at 1060 k + 31 for slot k, it sleeps 1029 to the next.
    expect(clock.sleeps).toEqual([1060, 1029, 1029, 1029, 1029, 1029, 1029, 1029]);
    expect(clock.t - t0).toBe(8 * 1060 + 31);
    // Eight reservations after the first call's: the bucket's next slot is the tenth.
    expect((await l.reserve("default", "tooLate")) - t0).toBe(9 * 1060);
    const after = await waits("op:tooLate");
    expect(after.count - before.count).toBe(2); // one observation per call, even giving up
    expect(after.sum - before.sum).toBeCloseTo((8 * 1060 + 31) / 1000, 9);
  });

  it("a 1600200 pauses the bucket for pauseMs and counts the refusal by bucket", async () => {
    const a = await account();
    const clock = fakeClock();
    const l = new DbRateLimiter(prisma, {
      accountId: a.id,
      callsPerSecond: 1,
      queryCallsPerSecond: 2,
      clock,
      marginMs: 0,
      pauseMs: 2500,
    });
    const before = await limitedCount("op:pausedOp");
    const beforeQuery = await limitedCount("query");
    // A refusal on a bucket never used before creates it, paused.
    await l.onRateLimited("default", "pausedOp");
    expect(await limitedCount("op:pausedOp")).toBe(before + 1);
    expect(await limitedCount("query")).toBe(beforeQuery);
    const row = await prisma.rateBucket.findUniqueOrThrow({
      where: { accountId_bucket: { accountId: a.id, bucket: "op:pausedOp" } },
    });
    expect(row.nextAt.getTime() - clock.t).toBe(2500);
    expect(row.limitedAt?.getTime()).toBe(clock.t);
    expect(row.slowUntil).toBeNull();
    expect((await l.reserve("default", "pausedOp")) - clock.t).toBe(2500);
    expect((await l.reserve("default", "pausedOp")) - clock.t).toBe(3500);
    // A pause never brings slots already reserved further out closer: six are taken, up to
    // +7500; a second refusal soon after then also slows the bucket (1.5 × 1000 ms).
    for (let i = 0; i < 4; i++) await l.reserve("default", "pausedOp");
    await l.onRateLimited("default", "pausedOp");
    expect((await l.reserve("default", "pausedOp")) - clock.t).toBe(8500);
    expect((await l.reserve("default", "pausedOp")) - clock.t).toBe(10_000);
    expect(await limitedCount("op:pausedOp")).toBe(before + 2);
    expect(await limitedCount("query")).toBe(beforeQuery);
  });

  it("with the defaults, a second 1600200 within 15 s slows the bucket by 1.5 for 15 s from it", async () => {
    const a = await account();
    const clock = fakeClock();
    const l = new DbRateLimiter(prisma, {
      accountId: a.id,
      callsPerSecond: 3,
      queryCallsPerSecond: 2,
      clock,
      scope: "account",
    });
    const key = { accountId_bucket: { accountId: a.id, bucket: "default" } };
    await l.onRateLimited("default", "addCart");
    clock.t += 14_999;
    await l.onRateLimited("default", "getBalance");
    const row = await prisma.rateBucket.findUniqueOrThrow({ where: key });
    expect(row.limitedAt?.getTime()).toBe(clock.t);
    expect(row.slowUntil?.getTime()).toBe(clock.t + 15_000);
    expect(row.nextAt.getTime()).toBe(clock.t + 1000);
    // Paused for the default second, then 1.5 × 354 = 531 ms apart.
    expect((await l.reserve("default", "createOrderV3")) - clock.t).toBe(1000);
    expect((await l.reserve("default", "createOrderV3")) - clock.t).toBe(1531);
    expect((await l.reserve("default", "createOrderV3")) - clock.t).toBe(2062);
  });

  it("a 1600200 15 s or more after the one before only pauses", async () => {
    const a = await account();
    const clock = fakeClock();
    const l = new DbRateLimiter(prisma, {
      accountId: a.id,
      callsPerSecond: 1,
      queryCallsPerSecond: 2,
      clock,
      marginMs: 0,
    });
    const key = { accountId_bucket: { accountId: a.id, bucket: "op:createOrderV3" } };
    await l.onRateLimited("default", "createOrderV3");
    clock.t += 15_000;
    await l.onRateLimited("default", "createOrderV3");
    const row = await prisma.rateBucket.findUniqueOrThrow({ where: key });
    expect(row.slowUntil).toBeNull();
    expect(row.limitedAt?.getTime()).toBe(clock.t);
    expect((await l.reserve("default", "createOrderV3")) - clock.t).toBe(1000);
    expect((await l.reserve("default", "createOrderV3")) - clock.t).toBe(2000);
  });
});
