/**
 * Job handlers of the order pipeline, built around a deps factory so that production uses the
 * stored accounts and offline sessions and a test can pass its own clients.
 */
import type { Prisma } from "@prisma/client";
import { z } from "zod";
import { enqueue } from "../jobs/queue.server";
import type { JobContext, JobHandler, RecurringJob } from "../jobs/handler";
import { PermanentJobError } from "../jobs/handler";
import { noteAddressChange } from "../repair/address-change.server";
import { payloadId } from "../events/ids.server";
import { jobKindFor, loadEvent } from "../events/store.server";
import { cancelOrder } from "./actions.server";
import type { FulfilmentDeps } from "../orders/deps.server";
import { payAccount } from "./pay.server";
import { holdUnreachable, isRetryable, placeOrder, receiveShopOrder } from "./place/index.server";
import { reconcileAccount } from "./reconcile/index.server";
import { sandboxTrack } from "./sandbox-track.server";
import { JOB, schedulePlace } from "../orders/schedule.server";
import { onSvcEvent, trackHinted, trackOrder } from "./track.server";

/** Failed attempts of a place job before its order is shown held `service_unavailable`. */
export const SERVICE_DOWN_AFTER_ATTEMPTS = 3;

export type DepsFactory = (ctx: JobContext) => Promise<FulfilmentDeps> | FulfilmentDeps;

const orderRef = z.object({ orderId: z.string().min(1) }).passthrough();
const accountRef = z.object({ accountId: z.string().min(1) });

function parse<T>(schema: z.ZodType<T>, ctx: JobContext): T {
  const r = schema.safeParse(ctx.payload);
  if (!r.success) throw new PermanentJobError(`Bad payload for ${ctx.job.kind}`);
  return r.data;
}

const json = (v: unknown) => JSON.parse(JSON.stringify(v ?? null)) as Prisma.InputJsonValue;

/** Shopify's products/update payload: full variants for the first 100, every variant's GID. */
const FULL_VARIANTS_IN_PAYLOAD = 100;
const productUpdateSchema = z
  .object({
    id: z.union([z.number(), z.string()]),
    admin_graphql_api_id: z.string().optional(),
    variants: z.array(
      z
        .object({
          id: z.union([z.number(), z.string()]),
          admin_graphql_api_id: z.string().optional(),
        })
        .passthrough(),
    ),
    variant_gids: z.array(z.object({ admin_graphql_api_id: z.string() }).passthrough()).optional(),
  })
  .passthrough();

const svcEnvelope = z
  .object({ type: z.string(), messageType: z.string().optional(), params: z.unknown() })
  .passthrough();

export function fulfilmentHandlers(getDeps: DepsFactory): Record<string, JobHandler> {
  const receive: JobHandler = async (ctx) => {
    const event = await loadEvent(ctx);
    if (!event) return { skipped: "event gone" };
    const deps = await getDeps(ctx);
    return ctx.commit((tx) =>
      receiveShopOrder(tx, {
        shopDomain: event.shopDomain,
        topic: event.topic,
        payload: event.payload,
        nowMs: deps.clock.now(),
      }).then(json),
    );
  };

  const svcEvent: JobHandler = async (ctx) => {
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

  return {
    [jobKindFor("shopify", "orders/create")]: receive,
    [jobKindFor("shopify", "orders/paid")]: receive,

    [jobKindFor("shopify", "orders/cancelled")]: async (ctx) => {
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
    },

    /** An edited order held for its address or lines is checked again. */
    [jobKindFor("shopify", "orders/updated")]: async (ctx) => {
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
    },

    /** A deleted product's connections go; an updated product loses those of vanished variants. */
    [jobKindFor("shopify", "products/delete")]: async (ctx) => {
      const event = await loadEvent(ctx);
      if (!event) return { skipped: "event gone" };
      const id = payloadId((event.payload as { id?: unknown } | null)?.id);
      if (!id) return { skipped: "no product id" };
      const n = await ctx.prisma.productConnection.deleteMany({
        where: {
          shopDomain: event.shopDomain,
          shopifyProductId: { in: [id, `gid://shopify/Product/${id}`] },
        },
      });
      return { connectionsRemoved: n.count };
    },
    /**
     * Shopify sends the full details of the first 100 variants only; `variant_gids` names every
     * variant (101 and beyond included). A variant is gone only when it is in neither list.
     */
    [jobKindFor("shopify", "products/update")]: async (ctx) => {
      const event = await loadEvent(ctx);
      if (!event) return { skipped: "event gone" };
      const p = productUpdateSchema.safeParse(event.payload);
      if (!p.success) return { skipped: "no variants in the payload" };
      const productIds = [p.data.id, p.data.admin_graphql_api_id].flatMap((v) => {
        const id = payloadId(v);
        return id ? [id, `gid://shopify/Product/${id}`] : [];
      });
      if (productIds.length === 0) return { skipped: "no product id" };
      const { variants, variant_gids } = p.data;
      if (!variant_gids && variants.length >= FULL_VARIANTS_IN_PAYLOAD) {
        // An older payload without variant_gids: the list may be cut at 100, so nothing is known
        // to be gone.
        return { skipped: "variant list may be truncated", connectionsRemoved: 0 };
      }
      const present = new Set<string>();
      for (const v of variants) {
        for (const value of [v.id, v.admin_graphql_api_id]) {
          const id = payloadId(value);
          if (id) present.add(id);
        }
      }
      for (const v of variant_gids ?? []) {
        const id = payloadId(v.admin_graphql_api_id);
        if (id) present.add(id);
      }
      // Every product has at least one variant: an empty list says nothing about which are gone.
      if (present.size === 0) return { skipped: "no variants listed", connectionsRemoved: 0 };
      const keep = [...present].flatMap((id) => [id, `gid://shopify/ProductVariant/${id}`]);
      const n = await ctx.prisma.productConnection.deleteMany({
        where: {
          shopDomain: event.shopDomain,
          shopifyProductId: { in: productIds },
          shopifyVariantId: { notIn: keep },
        },
      });
      return { connectionsRemoved: n.count, variantsListed: present.size };
    },

    [jobKindFor("svc", "ORDER")]: svcEvent,
    [jobKindFor("svc", "LOGISTIC")]: svcEvent,
    [jobKindFor("svc", "ORDERSPLIT")]: svcEvent,

    [JOB.place]: async (ctx) => {
      const { orderId } = parse(orderRef, ctx);
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
        if (order) {
          await schedulePlace(ctx.prisma, {
            orderId,
            shopDomain: order.shopDomain,
            delayMs: r.retryAt.getTime() - deps.clock.now(),
            key: `at:${r.retryAt.getTime()}`,
          });
        }
      }
      return json(r);
    },

    [JOB.pay]: async (ctx) => {
      const { accountId } = parse(accountRef, ctx);
      return json(await payAccount(await getDeps(ctx), accountId));
    },

    [JOB.track]: async (ctx) => {
      const p = parse(
        orderRef.extend({
          hintIds: z.array(z.string()).optional(),
          records: z.unknown().optional(),
        }),
        ctx,
      );
      return json(
        await trackOrder(await getDeps(ctx), p.orderId, { hintIds: p.hintIds, records: p.records }),
      );
    },

    [JOB.trackHints]: async (ctx) => {
      const p = parse(
        z.object({
          accountId: z.string().min(1),
          orders: z.array(z.string()).default([]),
          hints: z.array(z.string()).default([]),
        }),
        ctx,
      );
      return json(
        await trackHinted(await getDeps(ctx), {
          accountId: p.accountId,
          orderIds: p.orders,
          hints: p.hints,
          key: String(ctx.job.id),
        }),
      );
    },

    /** Fans out one reconcile job per connected account (each inside its own limits). */
    [JOB.reconcile]: async (ctx) => {
      const accounts = await ctx.prisma.svcAccount.findMany({
        where: { shopDomain: { not: null } },
        select: { id: true, shopDomain: true },
      });
      const slot = Math.floor(Date.now() / 10_000);
      await ctx.commit(async (tx) => {
        for (const a of accounts) {
          await enqueue(tx, {
            kind: JOB.reconcileAccount,
            payload: { accountId: a.id },
            idempotencyKey: `reconcile:${a.id}:${slot}`,
            concurrencyKey: `reconcile:${a.id}`,
            shopDomain: a.shopDomain ?? undefined,
            maxAttempts: 3,
          });
        }
      });
      return { accounts: accounts.length };
    },

    [JOB.sandboxTrack]: async (ctx) => {
      const { orderId } = parse(orderRef, ctx);
      return json(await sandboxTrack(await getDeps(ctx), orderId));
    },

    [JOB.reconcileAccount]: async (ctx) => {
      const { accountId } = parse(accountRef, ctx);
      return json(await reconcileAccount(await getDeps(ctx), accountId));
    },
  };
}

export const fulfilmentRecurringJobs: RecurringJob[] = [{ kind: JOB.reconcile, everyMs: 60_000 }];
