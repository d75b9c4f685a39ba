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

  it("slows the account down after a 1600200 until slowUntil", async () => {
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
    });
    await l.reserve("default");
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
