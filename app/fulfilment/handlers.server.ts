/**
 * Job handlers of the order pipeline, built around a deps factory so that production uses the
 * stored accounts and offline sessions and a test can pass its own clients.
 */
import type { Prisma } from "@prisma/client";
import { z } from "zod";
import { enqueue } from "../jobs/enqueue.server";
import type { JobContext, JobHandler, RecurringJob } from "../jobs/handler";
import { PermanentJobError } from "../jobs/handler";
import { errorMessage } from "../jobs/queue.server";
import { noteAddressChange } from "../repair/address-change.server";
import { payloadId } from "../events/ids.server";
import { forgetEventPayload, loadEvent } from "../events/store.server";
import { cancelOrder } from "./actions.server";
import type { FulfilmentDeps } from "../orders/deps.server";
import { payAccount } from "./pay/index.server";
import {
  holdUnreachable,
  isRetryable,
  NOT_IN_SHOP,
  placeOrder,
  readDelivery,
  receiveShopOrder,
} from "./place/index.server";
import { reconcileAccount } from "./reconcile/index.server";
import { sandboxTrack } from "./sandbox-track.server";
import { JOB, JOB_PAYLOADS, type JobPayload, schedulePlace } from "../orders/schedule.server";
import { onSvcEvent, trackHinted, trackOrder } from "./track/index.server";

/** Failed attempts of a place job before its order is shown held `service_unavailable`. */
export const SERVICE_DOWN_AFTER_ATTEMPTS = 3;

export type DepsFactory = (ctx: JobContext) => Promise<FulfilmentDeps> | FulfilmentDeps;

function parse<T>(schema: z.ZodType<T>, ctx: JobContext): T {
  const r = schema.safeParse(ctx.payload);
  if (!r.success) throw new PermanentJobError(`Bad payload for ${ctx.job.kind}`);
  return r.data;
}

const json = (v: unknown) => JSON.parse(JSON.stringify(v ?? null)) as Prisma.InputJsonValue;

const svcEnvelope = z
  .object({ type: z.string(), messageType: z.string().optional(), params: z.unknown() })
  .passthrough();

const receive =
  (getDeps: DepsFactory): JobHandler =>
  async (ctx) => {
    const event = await loadEvent(ctx);
    if (!event) return { skipped: "event gone" };
    const deps = await getDeps(ctx);
    const delivery = { shopDomain: event.shopDomain, topic: event.topic, payload: event.payload };
    const read = await readDelivery(deps, delivery);
    if (read.take === "foreign") {
      // Nothing of it stays: not the order, not the customer in the stored delivery.
      return ctx.commit(async (tx) => {
        await forgetEventPayload(tx, event.id, NOT_IN_SHOP);
        return { created: false, ignored: NOT_IN_SHOP };
      });
    }
    const input = { ...delivery, nowMs: deps.clock.now() };
    if (read.take === "store") return ctx.commit((tx) => receiveShopOrder(tx, input).then(json));
    // Due at once: the row (one statement), then the placing in this job with that row and the
    // order the shop gave a moment ago; no place job, nothing read twice.
    // The row stays out of the job's result (it carries the customer).
    const { row, ...received } = await receiveShopOrder(ctx.prisma, input, { placeHere: true });
    if (!received.placeHere) {
      // Run again after a stop between the two: the order is placed by a job of its own.
      if (received.orderId && !received.created && ctx.job.attempts > 1) {
        await schedulePlace(ctx.prisma, {
          orderId: received.orderId,
          shopDomain: event.shopDomain,
          key: "received",
        });
      }
      return json(received);
    }
    const orderId = received.orderId!;
    let placed: Awaited<ReturnType<typeof placeOrder>>;
    try {
      placed = await placeOrder(deps, orderId, { fetched: read.fetched, row });
    } catch (error) {
      // A place job of its own takes it on, with its backoff and its held `service_unavailable`.
      await schedulePlace(ctx.prisma, { orderId, shopDomain: event.shopDomain, key: "received" });
      return json({ ...received, placed: { outcome: "retried", error: errorMessage(error) } });
    }
    await placeAgainLater(ctx, deps, placed, { orderId, shopDomain: event.shopDomain });
    return json({ ...received, placed });
  };

/** A hold that names its end (a review window, a rate's cool-down) is placed again then. */
async function placeAgainLater(
  ctx: JobContext,
  deps: FulfilmentDeps,
  r: Awaited<ReturnType<typeof placeOrder>>,
  order: { orderId: string; shopDomain: string },
) {
  if (r.outcome !== "held" || !r.retryAt) return;
  await schedulePlace(ctx.prisma, {
    ...order,
    delayMs: r.retryAt.getTime() - deps.clock.now(),
    key: `at:${r.retryAt.getTime()}`,
  });
}

const svcEvent =
  (getDeps: DepsFactory): JobHandler =>
  async (ctx) => {
    const event = await loadEvent(ctx);
    if (!event) return { skipped: "event gone" };
    const env = svcEnvelope.safeParse(event.payload);
    if (!env.success) return { skipped: "not a service event" };
    const deps = await getDeps(ctx);
    return json(
      await onSvcEvent(deps, {
        shopDomain: event.shopDomain,
        type: env.data.type,
        messageType: env.data.messageType,
        params: env.data.params,
        eventKey: event.eventKey,
      }),
    );
  };

const orderCancelled =
  (getDeps: DepsFactory): JobHandler =>
  async (ctx) => {
    const event = await loadEvent(ctx);
    if (!event) return { skipped: "event gone" };
    const id = z
      .object({ id: z.union([z.number(), z.string()]).transform(payloadId).pipe(z.string()) })
      .safeParse(event.payload);
    if (!id.success) throw new PermanentJobError("orders/cancelled without an order id");
    const deps = await getDeps(ctx);
    return json(
      await cancelOrder(
        deps,
        { shopDomain: event.shopDomain, shopifyOrderId: id.data.id },
        { source: "shop" },
      ),
    );
  };

/** An edited order held for its address or lines is checked again. */
const orderUpdated: JobHandler = async (ctx) => {
  const event = await loadEvent(ctx);
  if (!event) return { skipped: "event gone" };
  // The intake keeps ids above 2^53 as exact digit strings (app/events/ids.server.ts).
  const id = payloadId((event.payload as { id?: unknown } | null)?.id);
  if (!id) return { skipped: "no order id" };
  const order = await ctx.prisma.shopOrder.findUnique({
    where: { shopDomain_shopifyOrderId: { shopDomain: event.shopDomain, shopifyOrderId: id } },
  });
  if (!order) return { handled: false };
  if (await noteAddressChange(ctx.prisma, order, event.payload)) {
    return { addressChanged: order.id };
  }
  if (
    order.state !== "HELD" ||
    !["invalid_address", "unconnected_lines"].includes(order.reasonCode ?? "")
  ) {
    return { handled: false };
  }
  await ctx.commit((tx) =>
    schedulePlace(tx, {
      orderId: order.id,
      shopDomain: order.shopDomain,
      key: `updated:${event.id}`,
    }),
  );
  return { rechecked: order.id };
};

const place =
  (getDeps: DepsFactory): JobHandler =>
  async (ctx) => {
    const { orderId } = parse(JOB_PAYLOADS[JOB.place], ctx);
    const deps = await getDeps(ctx);
    let r: Awaited<ReturnType<typeof placeOrder>>;
    try {
      r = await placeOrder(deps, orderId);
    } catch (error) {
      // The service keeps failing: the order is shown held, and placed again as soon as the
      // service answers (the reconciler's next call), not after the job's long backoff.
      if (ctx.job.attempts < SERVICE_DOWN_AFTER_ATTEMPTS || !isRetryable(error)) throw error;
      return json(await holdUnreachable(deps, orderId, error));
    }
    if (r.outcome === "held" && r.retryAt) {
      const order = await ctx.prisma.shopOrder.findUnique({
        where: { id: orderId },
        select: { shopDomain: true },
      });
      if (order) await placeAgainLater(ctx, deps, r, { orderId, shopDomain: order.shopDomain });
    }
    return json(r);
  };

const pay =
  (getDeps: DepsFactory): JobHandler =>
  async (ctx) => {
    const { accountId } = parse(JOB_PAYLOADS[JOB.pay], ctx);
    return json(await payAccount(await getDeps(ctx), accountId));
  };

const track =
  (getDeps: DepsFactory): JobHandler =>
  async (ctx) => {
    const p = parse(JOB_PAYLOADS[JOB.track], ctx);
    return json(
      await trackOrder(await getDeps(ctx), p.orderId, { hintIds: p.hintIds, records: p.records }),
    );
  };

const trackHints =
  (getDeps: DepsFactory): JobHandler =>
  async (ctx) => {
    const p = parse(JOB_PAYLOADS[JOB.trackHints], ctx);
    return json(
      await trackHinted(await getDeps(ctx), {
        accountId: p.accountId,
        orderIds: p.orders,
        hints: p.hints,
        key: String(ctx.job.id),
      }),
    );
  };

/** Fans out one reconcile job per connected account (each inside its own limits). */
const reconcileFanOut: JobHandler = async (ctx) => {
  const accounts = await ctx.prisma.svcAccount.findMany({
    where: { shopDomain: { not: null } },
    select: { id: true, shopDomain: true },
  });
  const slot = Math.floor(Date.now() / 10_000);
  await ctx.commit(async (tx) => {
    for (const a of accounts) {
      await enqueue(tx, {
        kind: JOB.reconcileAccount,
        payload: { accountId: a.id } satisfies JobPayload<typeof JOB.reconcileAccount>,
        idempotencyKey: `reconcile:${a.id}:${slot}`,
        concurrencyKey: `reconcile:${a.id}`,
        shopDomain: a.shopDomain ?? undefined,
        maxAttempts: 3,
      });
    }
  });
  return { accounts: accounts.length };
};

const sandboxTrackJob =
  (getDeps: DepsFactory): JobHandler =>
  async (ctx) => {
    const { orderId } = parse(JOB_PAYLOADS[JOB.sandboxTrack], ctx);
    return json(await sandboxTrack(await getDeps(ctx), orderId));
  };

const reconcileOne =
  (getDeps: DepsFactory): JobHandler =>
  async (ctx) => {
    const { accountId } = parse(JOB_PAYLOADS[JOB.reconcileAccount], ctx);
    return json(await reconcileAccount(await getDeps(ctx), accountId));
  };

/**
 * The pipeline's handlers of the events it owns (Shopify's orders/* topics, the service's
 * ORDER, ORDERSPLIT and LOGISTIC), keyed by what they do; app/worker/events.server.ts gives each
 * event source its handler.
 */
export function orderEventHandlers(getDeps: DepsFactory) {
  return {
    /** orders/create and orders/paid: the order is received (and placed when it is due). */
    received: receive(getDeps),
    cancelled: orderCancelled(getDeps),
    updated: orderUpdated,
    /** A service order event: a hint to look at the orders it names. */
    service: svcEvent(getDeps),
  } satisfies Record<string, JobHandler>;
}

/** The pipeline's own jobs by kind (place, pay, track, reconcile). */
export function fulfilmentHandlers(getDeps: DepsFactory): Record<string, JobHandler> {
  return {
    [JOB.place]: place(getDeps),
    [JOB.pay]: pay(getDeps),
    [JOB.track]: track(getDeps),
    [JOB.trackHints]: trackHints(getDeps),
    [JOB.reconcile]: reconcileFanOut,
    [JOB.sandboxTrack]: sandboxTrackJob(getDeps),
    [JOB.reconcileAccount]: reconcileOne(getDeps),
  };
}

export const fulfilmentRecurringJobs: RecurringJob[] = [{ kind: JOB.reconcile, everyMs: 60_000 }];
