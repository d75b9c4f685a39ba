/**
 * The pipeline's jobs. Work on one order is serialized by the concurrency key `order:<id>`;
 * payments of one account by `pay:<accountId>` (one batch per account at a time).
 */
import { randomBytes } from "node:crypto";
import type { Prisma } from "@prisma/client";
import { z } from "zod";
import { enqueue, enqueueOrMerge } from "../jobs/enqueue.server";
import type { Db } from "../db/types";
import { jobKindFor } from "../events/store.server";

export const JOB = {
  place: "fulfilment.place",
  pay: "fulfilment.pay",
  track: "fulfilment.track",
  trackHints: "fulfilment.trackHints",
  reconcile: "fulfilment.reconcile",
  reconcileAccount: "fulfilment.reconcileAccount",
  sandboxTrack: "fulfilment.sandboxTrack",
} as const;

const orderId = z.string().min(1);
const accountId = z.string().min(1);

/**
 * Each pipeline job's payload, declared once: enqueued below typed by it (`JobPayload`), and
 * parsed with it by the job's handler (app/fulfilment/handlers.server.ts).
 */
export const JOB_PAYLOADS = {
  [JOB.place]: z.object({ orderId }),
  [JOB.pay]: z.object({ accountId }),
  [JOB.track]: z.object({
    orderId,
    /** Service order ids the hints named (split children). */
    hintIds: z.array(z.string()).optional(),
    /** The records a hinted fetch already read (none: the job fetches for itself). */
    records: z.unknown().optional(),
  }),
  [JOB.trackHints]: z.object({
    accountId,
    /** Shop order ids. */
    orders: z.array(z.string()).default([]),
    /** "<orderId>:<service id>" pairs. */
    hints: z.array(z.string()).default([]),
  }),
  [JOB.reconcileAccount]: z.object({ accountId }),
  [JOB.sandboxTrack]: z.object({ orderId }),
} satisfies Partial<Record<(typeof JOB)[keyof typeof JOB], z.ZodType>>;

/** What a pipeline job of kind K carries, as it is enqueued. */
export type JobPayload<K extends keyof typeof JOB_PAYLOADS> = z.input<(typeof JOB_PAYLOADS)[K]>;

/** Sandbox orders just paid: each gets its test tracking number (sandbox-track.server.ts). */
export async function scheduleSandboxTrack(db: Db, orderIds: string[], shopDomain?: string | null) {
  for (const orderId of orderIds) {
    await enqueue(db, {
      kind: JOB.sandboxTrack,
      payload: { orderId } satisfies JobPayload<typeof JOB.sandboxTrack>,
      idempotencyKey: `sandboxTrack:${orderId}`,
      concurrencyKey: `order:${orderId}`,
      shopDomain: shopDomain ?? undefined,
      maxAttempts: 5,
    });
  }
}

export async function schedulePlace(
  db: Db,
  o: { orderId: string; shopDomain: string; delayMs?: number; key: string },
) {
  return enqueue(db, {
    kind: JOB.place,
    payload: { orderId: o.orderId } satisfies JobPayload<typeof JOB.place>,
    runAt: o.delayMs && o.delayMs > 0 ? new Date(Date.now() + o.delayMs) : undefined,
    idempotencyKey: `place:${o.orderId}:${o.key}`,
    concurrencyKey: `order:${o.orderId}`,
    shopDomain: o.shopDomain,
  });
}

/**
 * The jobs that create a shop's orders at the service: place jobs, and the deliveries of the
 * shop's trigger topic (an order due at once is placed in its delivery's job).
 */
export function creatingKinds(trigger: string): string[] {
  return [JOB.place, jobKindFor("shopify", trigger)];
}

/**
 * While a shop's creates are in flight, a pay run (which then only defers a partial batch) comes
 * at most this often, whatever a shorter batch window says: the create that fills the batch
 * runs it at once, and the last create asks for the batch window.
 */
export const CREATING_PAY_WINDOW_SECONDS = 5;

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
    payload: { accountId: o.accountId } satisfies JobPayload<typeof JOB.pay>,
    runAt: delay > 0 ? new Date(Date.now() + delay) : undefined,
    idempotencyKey: key,
    concurrencyKey: `pay:${o.accountId}`,
    shopDomain: o.shopDomain ?? undefined,
  });
}

/**
 * A track job for the order. A job of the order that is still waiting for its first run (a busy
 * queue, a reconciler pass every minute, hints arriving in bursts) takes this request instead
 * of a second job: its records become these (fresher; none means it fetches for itself), its
 * hints gather, and it runs no later than this one would. One job per order waits at most.
 */
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
  return enqueueOrMerge(db, {
    kind: JOB.track,
    payload: {
      orderId: o.orderId,
      ...(o.hintIds?.length ? { hintIds: o.hintIds } : {}),
      ...(o.records ? { records: o.records } : {}),
    } satisfies JobPayload<typeof JOB.track>,
    runAt: o.runAt,
    idempotencyKey: `track:${o.orderId}:${o.key}`,
    concurrencyKey: `order:${o.orderId}`,
    shopDomain: o.shopDomain,
    gather: ["hintIds"],
  });
}

/**
 * Service events only hint at orders to look at: the hints of one account gather in a single
 * waiting job (`trackHints:<accountId>`, one running at a time), which fetches them with one
 * getOrderDetailBatch per ≤ 50 ids instead of one fetch per event. A hint joins the waiting
 * job if there is one (never one that failed: that one waits for its backoff), else a new job.
 * `orders`: shop order ids; `hints`: "<orderId>:<service id>" pairs (split children etc.).
 */
export async function scheduleTrackHints(
  db: Db,
  o: { accountId: string; shopDomain: string; orderIds: string[]; hints: string[] },
) {
  if (o.orderIds.length === 0) return { id: null, created: false };
  return enqueueOrMerge(db, {
    kind: JOB.trackHints,
    payload: {
      accountId: o.accountId,
      orders: o.orderIds,
      hints: o.hints,
    } satisfies JobPayload<typeof JOB.trackHints>,
    idempotencyKey: `trackHints:${o.accountId}:${Date.now()}:${randomBytes(4).toString("hex")}`,
    concurrencyKey: `trackHints:${o.accountId}`,
    gather: ["orders", "hints"],
    shopDomain: o.shopDomain,
  });
}
