/**
 * The pipeline's jobs. Work on one order is serialized by the concurrency key `order:<id>`;
 * payments of one account by `pay:<accountId>` (one batch per account at a time).
 */
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
  o: { orderId: string; shopDomain: string; runAt?: Date; key: string },
) {
  return enqueue(db, {
    kind: JOB.place,
    payload: { orderId: o.orderId },
    runAt: o.runAt,
    idempotencyKey: `place:${o.orderId}:${o.key}`,
    concurrencyKey: `order:${o.orderId}`,
    shopDomain: o.shopDomain,
  });
}

/**
 * A payment run for the account at the end of the current batch window (orders created within
 * one window share it); `now: true` runs at once (a full batch, a top-up, a resume).
 */
export async function schedulePay(
  db: Db,
  o: {
    accountId: string;
    shopDomain?: string | null;
    nowMs: number;
    windowSeconds: number;
    now?: boolean;
    key?: string;
  },
) {
  const windowMs = Math.max(0, o.windowSeconds) * 1000;
  let runAt: Date;
  let key: string;
  if (o.now || windowMs === 0) {
    runAt = new Date(o.nowMs);
    key = `pay:${o.accountId}:now:${o.key ?? Math.floor(o.nowMs / 1000)}`;
  } else {
    const slot = Math.ceil(o.nowMs / windowMs);
    runAt = new Date(slot * windowMs);
    key = `pay:${o.accountId}:w${windowMs}:${slot}`;
  }
  return enqueue(db, {
    kind: JOB.pay,
    payload: { accountId: o.accountId },
    runAt,
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
