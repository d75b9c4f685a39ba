/**
 * The pipeline's jobs. Work on one order is serialized by the concurrency key `order:<id>`;
 * payments of one account by `pay:<accountId>` (one batch per account at a time).
 */
import { randomBytes } from "node:crypto";
import type { Prisma } from "@prisma/client";
import { enqueue, type Db } from "../jobs/queue.server";

export const JOB = {
  place: "fulfilment.place",
  pay: "fulfilment.pay",
  track: "fulfilment.track",
  reconcile: "fulfilment.reconcile",
  reconcileAccount: "fulfilment.reconcileAccount",
} as const;

export async function schedulePlace(
  db: Db,
  o: { orderId: string; shopDomain: string; delayMs?: number; key: string },
) {
  return enqueue(db, {
    kind: JOB.place,
    payload: { orderId: o.orderId },
    runAt: o.delayMs && o.delayMs > 0 ? new Date(Date.now() + o.delayMs) : undefined,
    idempotencyKey: `place:${o.orderId}:${o.key}`,
    concurrencyKey: `order:${o.orderId}`,
    shopDomain: o.shopDomain,
  });
}

/**
 * A payment run for the account at the end of the current batch window (orders created within
 * one window share it); `now: true` runs at once (a full batch, a top-up, a resume);
 * `delayMs` runs after that long. `nowMs` (the pipeline's clock) only names the window; the
 * job's time is the database's (the queue compares runAt with the database's now()).
 */
export async function schedulePay(
  db: Db,
  o: {
    accountId: string;
    shopDomain?: string | null;
    nowMs: number;
    windowSeconds: number;
    now?: boolean;
    delayMs?: number;
    key?: string;
  },
) {
  const windowMs = Math.max(0, o.windowSeconds) * 1000;
  let delay = 0;
  let key: string;
  if (o.delayMs !== undefined || o.now || windowMs === 0) {
    delay = o.delayMs ?? 0;
    // A run that is already waiting (and due no later) will see this order too.
    const waiting = await db.job.findFirst({
      where: {
        kind: JOB.pay,
        state: "available",
        concurrencyKey: `pay:${o.accountId}`,
        runAt: { lte: new Date(Date.now() + delay) },
      },
      select: { id: true },
    });
    if (waiting) return { id: waiting.id, created: false };
    key = `pay:${o.accountId}:${o.key ?? "run"}:${Date.now()}:${randomBytes(4).toString("hex")}`;
  } else {
    const slot = Math.ceil(o.nowMs / windowMs);
    delay = slot * windowMs - o.nowMs;
    key = `pay:${o.accountId}:w${windowMs}:${slot}`;
  }
  return enqueue(db, {
    kind: JOB.pay,
    payload: { accountId: o.accountId },
    runAt: delay > 0 ? new Date(Date.now() + delay) : undefined,
    idempotencyKey: key,
    concurrencyKey: `pay:${o.accountId}`,
    shopDomain: o.shopDomain ?? undefined,
  });
}

export async function scheduleTrack(
  db: Db,
  o: {
    orderId: string;
    shopDomain: string;
    key: string;
    hintIds?: string[];
    records?: Prisma.InputJsonValue;
    runAt?: Date;
  },
) {
  return enqueue(db, {
    kind: JOB.track,
    payload: {
      orderId: o.orderId,
      ...(o.hintIds?.length ? { hintIds: o.hintIds } : {}),
      ...(o.records ? { records: o.records } : {}),
    },
    runAt: o.runAt,
    idempotencyKey: `track:${o.orderId}:${o.key}`,
    concurrencyKey: `order:${o.orderId}`,
    shopDomain: o.shopDomain,
  });
}
