/**
 * A rate limiter per service account, shared by every process through the database
 * (`RateBucket`), GCRA-style: each bucket holds the next time a call may start. Taking a slot is
 * one atomic statement (INSERT … ON CONFLICT DO UPDATE … RETURNING), so it works the same on
 * PostgreSQL and on the embedded PGlite reached through one connection, and N processes together
 * stay inside the limit.
 *
 * Buckets: "query" (getOrderDetailBatch and getProofOfDelivery together; `queryCallsPerSecond`,
 * default 2) and, for everything else (`callsPerSecond`, default 1), either one bucket per
 * operation (scope "operation", the default: the contract states its rate per endpoint and
 * account, "QPS 1 … the same rate as other endpoints", and the simulator counts that way) or one
 * bucket for all of them (scope "account": the stricter reading, for a service that counts every
 * call of the account together).
 *
 * A 1600200 reply means the service's one-second window was full: the bucket pauses for a whole
 * window (`pauseMs`), so the window empties. A second 1600200 within `slowForMs` of the one
 * before also multiplies the bucket's intervals by `slowFactor` for `slowForMs` (each further
 * one extends that). One stray reply (a call delayed on its way, so that it arrived close behind
 * the next) costs a second; a service that counts stricter than we think keeps the bucket slowed.
 */
import type { PrismaClient } from "@prisma/client";
import type { Bucket, Limiter } from "./transport.server";
import { type Clock, systemClock } from "./clock";
import { limiterWait, rateLimited } from "../metrics/registry.server";

export type RateScope = "operation" | "account";

export interface RateLimiterOptions {
  accountId: string;
  /** One bucket per operation (default) or one for every ordinary operation of the account. */
  scope?: RateScope;
  callsPerSecond: number;
  queryCallsPerSecond: number;
  clock?: Clock;
  /** Jitter allowance (ms): the server counts arrivals in a one-second window, we space departures. */
  marginMs?: number;
  slowFactor?: number;
  slowForMs?: number;
  /** After a 1600200, the bucket's next slot is at least this far away (ms). */
  pauseMs?: number;
}

const DEFAULT_SLOW_FACTOR = 1.5;
const DEFAULT_SLOW_FOR_MS = 15_000;
const DEFAULT_PAUSE_MS = 1_000;

/** Reservations a late call may make before it goes anyway. */
const MAX_RESERVATIONS = 8;

/** The longest a call asks for its slot ahead of its reservation's round trip (ms). */
const MAX_LEAD_MS = 200;
/**
 * The reservation round trip (ms) as each clock measured it, smoothed: the process's own for the
 * system clock. A call asks for a slot no earlier than that far ahead: a slot starting "now" is
 * gone by the time the answer arrives, and a busy database (or event loop) would make every call
 * on an idle bucket late, give its slot up and wait a whole interval for the next one.
 */
const roundTrips = new WeakMap<Clock, number>();

export class DbRateLimiter implements Limiter {
  private readonly clock: Clock;
  constructor(
    private readonly prisma: PrismaClient,
    private readonly opts: RateLimiterOptions,
  ) {
    this.clock = opts.clock ?? systemClock;
  }

  /** The RateBucket row an operation's calls are counted in. */
  bucketKey(bucket: Bucket, operation?: string): string {
    if (bucket === "query") return "query";
    return (this.opts.scope ?? "operation") === "operation" && operation
      ? `op:${operation}`
      : "default";
  }

  intervalMs(bucket: Bucket): number {
    const cps = Math.max(
      bucket === "query" ? this.opts.queryCallsPerSecond : this.opts.callsPerSecond,
      0.001,
    );
    // N+1 calls spaced by this interval span 1000 ms + N × margin: the margin absorbs up to
    // `marginMs` of departure-to-arrival jitter against the server's one-second window.
    return Math.ceil(1000 / cps) + Math.ceil((this.opts.marginMs ?? 60) / cps);
  }

  /**
   * Reserves the next slot of the bucket, starting no earlier than `leadMs` from now; returns
   * when it starts (epoch ms).
   */
  async reserve(bucket: Bucket, operation?: string, leadMs = 0): Promise<number> {
    const now = this.clock.now() + leadMs;
    const key = this.bucketKey(bucket, operation);
    const interval = this.intervalMs(bucket);
    const slow = Math.ceil(interval * (this.opts.slowFactor ?? DEFAULT_SLOW_FACTOR));
    // The slot starts at max(nextAt, now); nextAt moves one interval (longer while slowed) past it.
    const rows = await this.prisma.$queryRaw<Array<{ next_ms: number; applied: number }>>`
      INSERT INTO "RateBucket" ("accountId", "bucket", "nextAt")
      VALUES (${this.opts.accountId}, ${key},
              to_timestamp((${now}::float8 + ${interval}::float8) / 1000) AT TIME ZONE 'UTC')
      ON CONFLICT ("accountId", "bucket") DO UPDATE SET "nextAt" =
        GREATEST("RateBucket"."nextAt", to_timestamp(${now}::float8 / 1000) AT TIME ZONE 'UTC')
        + (CASE WHEN "RateBucket"."slowUntil" > to_timestamp(${now}::float8 / 1000) AT TIME ZONE 'UTC'
                THEN ${slow}::float8 ELSE ${interval}::float8 END) * interval '1 millisecond'
      RETURNING (EXTRACT(EPOCH FROM "nextAt") * 1000)::float8 AS next_ms,
        (CASE WHEN "slowUntil" > to_timestamp(${now}::float8 / 1000) AT TIME ZONE 'UTC'
              THEN ${slow}::float8 ELSE ${interval}::float8 END) AS applied`;
    // INSERT … ON CONFLICT DO UPDATE … RETURNING returns its row in either case.
    const row = rows[0]!;
    return Number(row.next_ms) - Number(row.applied);
  }

  /**
   * Waits for a slot and returns when the call may leave. The slot is asked for a round trip
   * ahead (the reservation's own, as measured; at most MAX_LEAD_MS). A call that would leave
   * late all the same (a slower round trip, or a busy event loop, by more than half the margin)
   * gives its slot up and takes a new one: the next slot was reserved against ours, so leaving
   * late would bunch the two together at the server. Over a window of calls, departure spacing
   * then loses at most half the margin (the other half absorbs network jitter): never more than
   * the limit.
   */
  async acquire(bucket: Bucket, operation?: string): Promise<void> {
    const tolerance = (this.opts.marginMs ?? 60) / 2;
    const entered = this.clock.now();
    const waited = () =>
      limiterWait.observe(
        { bucket: this.bucketKey(bucket, operation) },
        Math.max(0, this.clock.now() - entered) / 1000,
      );
    for (let attempt = 0; attempt < MAX_RESERVATIONS; attempt++) {
      const asked = this.clock.now();
      const lead = roundTrips.get(this.clock) ?? 0;
      const start = await this.reserve(bucket, operation, Math.min(MAX_LEAD_MS, lead));
      roundTrips.set(this.clock, lead + (this.clock.now() - asked - lead) / 4);
      const wait = start - this.clock.now();
      if (wait > 0) await this.clock.sleep(wait);
      if (this.clock.now() - start <= tolerance) return waited();
    }
    // Persistently late (an overloaded process): go; a 1600200 reply slows the account down.
    waited();
  }

  async onRateLimited(bucket: Bucket, operation?: string): Promise<void> {
    const now = this.clock.now();
    const key = this.bucketKey(bucket, operation);
    rateLimited.inc({ bucket: key });
    const pauseUntil = now + (this.opts.pauseMs ?? DEFAULT_PAUSE_MS);
    const slowForMs = this.opts.slowForMs ?? DEFAULT_SLOW_FOR_MS;
    const slowUntil = now + slowForMs;
    const since = now - slowForMs;
    await this.prisma.$executeRaw`
      INSERT INTO "RateBucket" ("accountId", "bucket", "nextAt", "limitedAt")
      VALUES (${this.opts.accountId}, ${key},
              to_timestamp(${pauseUntil}::float8 / 1000) AT TIME ZONE 'UTC',
              to_timestamp(${now}::float8 / 1000) AT TIME ZONE 'UTC')
      ON CONFLICT ("accountId", "bucket") DO UPDATE SET
        "nextAt" = GREATEST("RateBucket"."nextAt", EXCLUDED."nextAt"),
        "limitedAt" = EXCLUDED."limitedAt",
        "slowUntil" = CASE
          WHEN "RateBucket"."limitedAt" > to_timestamp(${since}::float8 / 1000) AT TIME ZONE 'UTC'
          THEN GREATEST("RateBucket"."slowUntil",
                        to_timestamp(${slowUntil}::float8 / 1000) AT TIME ZONE 'UTC')
          ELSE "RateBucket"."slowUntil" END`;
  }
}
