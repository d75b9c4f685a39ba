/**
 * The reconciler's tracking passes (1, 2, 2b): paid orders asked about in batches and given a
 * track job when the service has news, created orders without a service id looked up by their
 * number, and created orders found paid in the service's console.
 */
import type { Prisma, ShopOrder, Shipment } from "@prisma/client";
import { optionsOf } from "../../orders/deps.server";
import { scheduleTrack } from "../../orders/schedule.server";
import { transition } from "../../orders/transition.server";
import { countUnheard, type GapCandidate, noteWebhookGaps } from "../../svc-account/gaps.server";
import { toMoney } from "../../svc/decimal";
import type { OrderRecord } from "../../svc/order-shapes";
import { FINISHED_FLAGS } from "../after-payment.server";
import { PAID_AT_SERVICE } from "../../svc/order-statuses";
import { hasNews, setServiceOrderId } from "../track/index.server";
import type { Pass, PassCtx } from "./context.server";

const WATCHED = ["PAID", "SHIPPED", "FULFILLED"];
/** A created order is asked about once it has waited this long (a batch usually takes it first). */
export const CREATED_WATCH_AFTER_MS = 60_000;

type Watched = ShopOrder & { shipments: Shipment[] };

/** Paid orders cost nothing until they move; a batch holds ≤ queryBatchSize ids. */
function batches(watched: Watched[], size: number): Watched[][] {
  const groups: Watched[][] = [];
  let cur: Watched[] = [];
  let ids = 0;
  for (const o of watched) {
    const n = 1 + o.shipments.filter((s) => s.svcOrderId !== o.svcOrderId).length;
    if (ids + n > size && cur.length) {
      groups.push(cur);
      cur = [];
      ids = 0;
    }
    cur.push(o);
    ids += n;
  }
  if (cur.length) groups.push(cur);
  return groups;
}

function track(ctx: PassCtx, orderId: string, records: OrderRecord[]) {
  ctx.result.trackJobs++;
  return scheduleTrack(ctx.deps.prisma, {
    orderId,
    shopDomain: ctx.shopDomain,
    key: ctx.key,
    records: JSON.parse(JSON.stringify(records)) as Prisma.InputJsonValue,
  });
}

/** A record reached by two of an order's ids (its orderId and svcOrderId) goes once. */
function uniqueRecords(records: OrderRecord[]): OrderRecord[] {
  return [...new Set(records)];
}

/** 1. Paid orders not yet fulfilled or delivered, oldest news first. */
export const paidWatched: Pass = async (ctx) => {
  const db = ctx.deps.prisma;
  const watched = await db.shopOrder.findMany({
    where: {
      svcAccountId: ctx.accountId,
      state: { in: WATCHED },
      svcOrderId: { not: null },
      // (`notIn` alone would also drop the rows whose flag is NULL); finished orders are not polled
      OR: [{ flag: null }, { flag: { notIn: ["fulfilment_conflict", ...FINISHED_FLAGS] } }],
    },
    include: { shipments: true },
    orderBy: { updatedAt: "asc" },
    take: ctx.maxOrders,
  });
  const gapCandidates: GapCandidate[] = [];
  for (const group of batches(watched, optionsOf(ctx.deps).queryBatchSize)) {
    const idList = [
      ...new Set(group.flatMap((o) => [o.svcOrderId!, ...o.shipments.map((s) => s.svcOrderId)])),
    ];
    const records = await (await ctx.svc()).orders.getOrderDetailBatch(idList.slice(0, 100));
    ctx.result.queried++;
    const byId = new Map<string, OrderRecord>();
    for (const r of records) {
      if (r.orderId) byId.set(r.orderId, r);
      if (r.svcOrderId) byId.set(r.svcOrderId, r);
    }
    for (const o of group) {
      const mine = [o.svcOrderId!, ...o.shipments.map((s) => s.svcOrderId)]
        .map((id) => byId.get(id))
        .filter((r): r is OrderRecord => r !== undefined);
      if (!mine.some((r) => hasNews(o, r))) continue;
      const tracked = mine.filter((r) => r.trackNumber?.trim() && hasNews(o, r));
      if (tracked.length > 0) {
        gapCandidates.push({
          ids: [o.orderNumber, ...tracked.flatMap((r) => [r.orderId, r.svcOrderId])].filter(
            (x): x is string => Boolean(x),
          ),
          shippedAt: tracked[0]!.outWarehouseTime ?? null,
        });
      }
      await track(ctx, o.id, uniqueRecords(mine));
    }
  }
  // A lost webhook delays tracking; a run of them means the service stopped delivering.
  ctx.result.gaps = await countUnheard(db, ctx.shopDomain, gapCandidates, ctx.now);
  await noteWebhookGaps(db, ctx.accountId, ctx.result.gaps, ctx.now);
};

/** 2. Created without a service order id: look them up by number. */
export const missingIds: Pass = async (ctx) => {
  const size = optionsOf(ctx.deps).queryBatchSize;
  const missing = await ctx.deps.prisma.shopOrder.findMany({
    where: { svcAccountId: ctx.accountId, state: "CREATED", svcOrderId: null },
    orderBy: { updatedAt: "asc" },
    take: 500,
  });
  for (let i = 0; i < missing.length; i += size) {
    const chunk = missing.slice(i, i + size);
    const records = await (
      await ctx.svc()
    ).orders.getOrderDetailBatch(chunk.map((o) => o.orderNumber));
    ctx.result.queried++;
    for (const o of chunk) {
      const r = records.find(
        (x) =>
          x.orderNum === o.orderNumber ||
          x.orderNumber === o.orderNumber ||
          x.productList.some((l) => l.orderNumber === o.orderNumber),
      );
      const id = r?.orderId ?? r?.svcOrderId;
      if (!r || !id) continue;
      const set = await setServiceOrderId(
        ctx.deps,
        o,
        id,
        "a lookup by its number",
        ctx.accountId,
        r.orderAmount ? toMoney(r.orderAmount) : null,
      );
      if (set) ctx.result.idsFound++;
    }
  }
};

/**
 * 2b. Created and waiting for payment (automatic payment off, or a batch not yet formed): one
 * paid in the service's console is tracked from then on.
 */
export const createdUnpaid: Pass = async (ctx) => {
  const db = ctx.deps.prisma;
  const size = optionsOf(ctx.deps).queryBatchSize;
  const unpaid = await db.shopOrder.findMany({
    where: {
      svcAccountId: ctx.accountId,
      state: "CREATED",
      svcOrderId: { not: null },
      paymentBatchId: null,
      updatedAt: { lt: new Date(ctx.now - CREATED_WATCH_AFTER_MS) },
    },
    orderBy: { updatedAt: "asc" },
    take: 500,
  });
  for (let i = 0; i < unpaid.length; i += size) {
    const chunk = unpaid.slice(i, i + size);
    const records = await (
      await ctx.svc()
    ).orders.getOrderDetailBatch(chunk.map((o) => o.svcOrderId!));
    ctx.result.queried++;
    for (const o of chunk) {
      const r = records.find((x) => x.orderId === o.svcOrderId || x.svcOrderId === o.svcOrderId);
      if (!r || !PAID_AT_SERVICE.includes(r.orderStatus ?? "")) continue;
      const moved = await transition(
        db,
        { id: o.id, paymentBatchId: null },
        {
          to: "PAID",
          from: ["CREATED"],
          reason: null,
          message: null,
          set: { paidAt: new Date(ctx.now) },
          timeline: {
            step: "pay",
            outcome: "ok",
            message:
              "Paid at the service (outside the app, e.g. in its console): nothing charged by the app; tracked from now on.",
          },
        },
      );
      if (moved.length === 0) continue;
      await track(ctx, o.id, [r]);
    }
  }
};
