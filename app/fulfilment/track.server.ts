/**
 * Tracking back to the shop. A service event (ORDER, LOGISTIC, ORDERSPLIT) is only a hint: it
 * names the orders to look at, and a track job (one at a time per shop order) fetches them with
 * getOrderDetailBatch. When a service order has a tracking number, exactly the shop lines of
 * that service order are fulfilled, once: the Shipment row records the fulfilment id as soon as
 * Shopify returns it, and before creating one the shop's existing fulfilments are checked for
 * the same tracking number (a crash between the two is then adopted, not repeated).
 */
import { queueArchive } from "../archive/archive.server";
import type { Prisma, Shipment, ShopOrder as OrderRow, ShopOrderLine } from "@prisma/client";
import { z } from "zod";
import { addLogContext } from "../log-context.server";
import { getSettings } from "../settings.server";
import {
  ShopFulfillmentNotReadyError,
  ShopFulfillmentPlanError,
  ShopUserError,
} from "../shop/errors";
import {
  parseFulfillmentGid,
  parseLineItemGid,
  parseOrderGid,
  type ShopifyFulfillmentGid,
} from "../shop/ids";
import { orderRecordSchema, type OrderRecord } from "../svc/order-shapes";
import type { FulfilmentDeps } from "../orders/deps.server";
import { optionsOf } from "../orders/deps.server";
import { schedulePay, scheduleTrack, scheduleTrackHints } from "../orders/schedule.server";
import { numericId } from "./model";
import { PAID_STATES, type OrderState } from "../orders/states";
import {
  type AfterPaymentFlag,
  flagAfterPayment,
  parcelFlag,
  recordFlag,
} from "./after-payment.server";
import type { Db } from "../jobs/queue.server";
import { addTimeline, errorFields } from "../orders/timeline.server";
import { transition, type MoveColumns } from "../orders/transition.server";

const TRACKABLE = ["PAID", "SHIPPED", "FULFILLED", "DELIVERED"];

/** A parcel whose fulfilment orders are on hold is tried again after this long (or at fulfillAt). */
export const NOT_READY_RETRY_MS = 15 * 60_000;
/** The reason shown while tracking waits for Shopify (cleared once it is written). */
const WAITING_PREFIX = "Tracking waits for Shopify:";

// ---------------------------------------------------------------------------------------------
// Service events → which orders to look at

const idText = z.union([z.string(), z.number()]).transform(String);

/** Every id-like value of an event's params (the shapes vary; DESIGN §8). */
export function idsFromParams(params: unknown): string[] {
  const out = new Set<string>();
  const visit = (v: unknown, key: string, depth: number) => {
    if (depth > 3 || v == null) return;
    if (Array.isArray(v)) {
      for (const x of v) visit(x, key, depth + 1);
      return;
    }
    if (typeof v === "object") {
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        if (k === "orderItems" || k === "productList" || k === "logisticsTrackEvents") continue;
        visit(x, k, depth + 1);
      }
      return;
    }
    if (/(^order|Order)(Id|Ids|Number|Numbers|Code|Codes)$/.test(key)) {
      const t = idText.safeParse(v);
      if (t.success && t.data.trim() && t.data.length <= 200) out.add(t.data.trim());
    }
  };
  let p = params;
  if (typeof p === "string") {
    try {
      p = JSON.parse(p);
    } catch {
      return [];
    }
  }
  visit(p, "", 0);
  return [...out];
}

export interface SvcEventInput {
  shopDomain: string;
  type: string;
  messageType?: string;
  params: unknown;
  eventKey: string;
}

/**
 * Why a service ORDER/ORDERSPLIT/LOGISTIC event gives onSvcEvent nothing to do, or null when it
 * may: no order id in it, or an ORDER update other than ORDER_CONNNECTED that tells no parcel
 * news (creation, payment). The intake stores such an event marked ignored and runs no job for
 * it: about two of the four events an order brings.
 */
export function svcEventIdle(ev: { type: string; messageType?: string; params: unknown }) {
  if (idsFromParams(ev.params).length === 0) return "no order id in the event";
  return orderEventWithoutNews(ev) ? "no tracking in the event" : null;
}

/** An ORDER update other than ORDER_CONNNECTED that tells no parcel news (creation, payment). */
export function orderEventWithoutNews(ev: { type: string; messageType?: string; params: unknown }) {
  return (
    ev.type === "ORDER" && ev.messageType !== "ORDER_CONNNECTED" && !mentionsShipping(ev.params)
  );
}

/**
 * Handles a service event: ORDER_CONNNECTED gives a store-flow order its id; anything else
 * schedules a track job for each shop order the event names.
 */
export async function onSvcEvent(deps: FulfilmentDeps, ev: SvcEventInput) {
  const db = deps.prisma;
  addLogContext({ shop: ev.shopDomain });
  const ids = idsFromParams(ev.params);
  if (ids.length === 0) return { orders: 0, note: "no order id in the event" };
  const account = await db.svcAccount.findUnique({
    where: { shopDomain: ev.shopDomain },
    select: { id: true },
  });
  const trouble = ev.type === "LOGISTIC" ? parcelFlag(ev.params) : null;
  if (trouble) await flagParcels(db, ev.shopDomain, ids, trouble);
  if (ev.type === "ORDER" && ev.messageType === "ORDER_CONNNECTED") {
    const connected = await adoptConnectedOrder(deps, ev.shopDomain, ids, account?.id ?? null);
    if (connected) return { orders: 1, connected };
  }
  if (ev.type === "ORDER" && !mentionsShipping(ev.params)) {
    // Creation and payment updates carry nothing to write to the shop: no fetch for them.
    return { orders: 0, note: "no tracking in the event" };
  }
  const fromShipments = await db.shipment.findMany({
    where: { svcOrderId: { in: ids }, order: { shopDomain: ev.shopDomain } },
    select: { orderId: true },
  });
  const orders = await db.shopOrder.findMany({
    where: {
      shopDomain: ev.shopDomain,
      OR: [
        { svcOrderId: { in: ids } },
        { orderNumber: { in: ids } },
        { id: { in: fromShipments.map((s) => s.orderId) } },
      ],
    },
    select: { id: true, state: true, svcOrderId: true, svcAccountId: true },
  });
  let scheduled = 0;
  const byAccount = new Map<string, { orderIds: string[]; hints: string[] }>();
  for (const o of orders) {
    if (TRACKABLE.includes(o.state) && o.svcAccountId) {
      // Gathered per account: one fetch for many events (scheduleTrackHints).
      const acc = byAccount.get(o.svcAccountId) ?? { orderIds: [], hints: [] };
      acc.orderIds.push(o.id);
      for (const id of ids.filter((x) => x !== o.svcOrderId).slice(0, 20))
        acc.hints.push(`${o.id}:${id}`);
      byAccount.set(o.svcAccountId, acc);
      scheduled++;
    } else if (o.state === "PAYING" && o.svcAccountId) {
      // A payment update for a batch in flight: let the account's pay run look again.
      await schedulePay(db, {
        accountId: o.svcAccountId,
        shopDomain: ev.shopDomain,
        nowMs: deps.clock.now(),
        windowSeconds: 0,
        key: `evt:${ev.eventKey}`,
      });
    }
  }
  for (const [accountId, acc] of byAccount) {
    await scheduleTrackHints(db, { accountId, shopDomain: ev.shopDomain, ...acc });
  }
  return { orders: orders.length, scheduled };
}

/**
 * The hints of one account, gathered by scheduleTrackHints: the hinted orders are fetched with
 * one getOrderDetailBatch per ≤ queryBatchSize ids, and each order with news gets a track job
 * carrying its records (one at a time per order; no second fetch).
 */
export async function trackHinted(
  deps: FulfilmentDeps,
  input: { accountId: string; orderIds: string[]; hints: string[]; key: string },
): Promise<{ orders: number; queried: number; trackJobs: number }> {
  const db = deps.prisma;
  const out = { orders: 0, queried: 0, trackJobs: 0 };
  const { queryBatchSize } = optionsOf(deps);
  const orders = await db.shopOrder.findMany({
    where: { id: { in: input.orderIds }, svcAccountId: input.accountId, state: { in: TRACKABLE } },
    include: { shipments: true },
    orderBy: { id: "asc" },
  });
  out.orders = orders.length;
  const hintsOf = new Map<string, string[]>();
  for (const h of input.hints) {
    const i = h.indexOf(":");
    if (i <= 0) continue;
    const id = h.slice(0, i);
    hintsOf.set(id, [...(hintsOf.get(id) ?? []), h.slice(i + 1)]);
  }
  const idsOf = (o: (typeof orders)[number]) => [
    ...new Set([
      o.svcOrderId!,
      ...o.shipments.map((s) => s.svcOrderId),
      ...(hintsOf.get(o.id) ?? []).slice(0, 20),
    ]),
  ];
  const groups: { orders: typeof orders; ids: Set<string> }[] = [];
  for (const o of orders) {
    if (!o.svcOrderId) continue;
    const ids = idsOf(o);
    let g = groups.at(-1);
    if (!g || g.ids.size + ids.length > queryBatchSize) {
      g = { orders: [], ids: new Set() };
      groups.push(g);
    }
    g.orders.push(o);
    for (const id of ids) g.ids.add(id);
  }
  let client: Awaited<ReturnType<FulfilmentDeps["svcFor"]>> | undefined;
  for (const g of groups) {
    client ??= await deps.svcFor(input.accountId);
    const records = await client.orders.getOrderDetailBatch([...g.ids].slice(0, 100));
    out.queried++;
    for (const o of g.orders) {
      const known = new Set([o.svcOrderId, ...o.shipments.map((s) => s.svcOrderId)]);
      const mine = records.filter(
        (r) =>
          (r.orderId && known.has(r.orderId)) ||
          (r.svcOrderId && known.has(r.svcOrderId)) ||
          r.orderNum === o.orderNumber ||
          r.orderNumber === o.orderNumber ||
          r.productList.some((l) => l.orderNumber === o.orderNumber),
      );
      if (!mine.some((r) => hasNews(o, r))) continue;
      await scheduleTrack(db, {
        orderId: o.id,
        shopDomain: o.shopDomain,
        key: `hints:${input.key}`,
        records: JSON.parse(JSON.stringify(mine)) as Prisma.InputJsonValue,
      });
      out.trackJobs++;
    }
  }
  return out;
}

/** Does the record tell something the order does not know yet? */
export function hasNews(
  o: {
    svcOrderId: string | null;
    flag?: string | null;
    shipments: {
      svcOrderId: string;
      trackNumber: string | null;
      writtenTrackNumber: string | null;
      shopifyFulfillmentId: string | null;
      deliveredAt: Date | null;
    }[];
  },
  r: OrderRecord,
): boolean {
  const id = r.orderId ?? r.svcOrderId;
  const ended = recordFlag(r);
  if (ended && id === o.svcOrderId && o.flag !== ended) return true;
  const tn = r.trackNumber?.trim();
  const s = o.shipments.find((x) => x.svcOrderId === id);
  if (!tn) return !s && id !== o.svcOrderId;
  if (!s || !s.shopifyFulfillmentId || s.writtenTrackNumber !== tn) return true;
  return r.orderStatus === "DELIVERED" && !s.deliveredAt;
}

/** Does an ORDER event hint at a parcel (a tracking number, or a shipped/delivered status)? */
function mentionsShipping(params: unknown): boolean {
  const p = (typeof params === "object" && params ? params : {}) as Record<string, unknown>;
  const tn = p.trackNumber ?? p.trackingNumber;
  const status = typeof p.orderStatus === "string" ? p.orderStatus.toUpperCase() : "";
  return (
    (typeof tn === "string" && tn.trim() !== "") ||
    ["SHIPPED", "DELIVERED", "CANCELLED", "CLOSED"].includes(status) ||
    !status
  );
}

/** The service order id of a store-flow order arrives once its products are connected. */
async function adoptConnectedOrder(
  deps: FulfilmentDeps,
  shopDomain: string,
  ids: string[],
  accountId: string | null,
): Promise<string | null> {
  const db = deps.prisma;
  const order = await db.shopOrder.findFirst({
    where: {
      shopDomain,
      orderNumber: { in: ids },
      svcOrderId: null,
      state: { in: ["CREATED", "HELD", "FAILED"] },
    },
  });
  if (!order) return null;
  const svcOrderId = ids.find((id) => id !== order.orderNumber);
  if (!svcOrderId) return null;
  return setServiceOrderId(
    deps,
    order,
    svcOrderId,
    "the service's ORDER_CONNNECTED event",
    accountId,
  );
}

/** Records a late service order id (event or reconciler) and lets the payment go on. */
export async function setServiceOrderId(
  deps: FulfilmentDeps,
  order: Pick<OrderRow, "id" | "shopDomain" | "svcAccountId">,
  svcOrderId: string,
  source: string,
  accountId: string | null,
  amount?: string | null,
): Promise<string | null> {
  const db = deps.prisma;
  const moved = await transition(
    db,
    { id: order.id, svcOrderId: null },
    {
      to: "CREATED",
      reason: null,
      message: null,
      set: {
        svcOrderId,
        ...(amount ? { amount } : {}),
        ...(order.svcAccountId ? {} : accountId ? { svcAccountId: accountId } : {}),
      },
      timeline: {
        step: "connected",
        outcome: "ok",
        message: `The service order id ${svcOrderId} is known (from ${source}).`,
      },
    },
  );
  if (moved.length === 0) return null;
  const acc = order.svcAccountId ?? accountId;
  const settings = await getSettings(db, order.shopDomain);
  if (acc && settings.autoPay) {
    await schedulePay(db, {
      accountId: acc,
      shopDomain: order.shopDomain,
      nowMs: deps.clock.now(),
      windowSeconds: settings.payBatchWindowSeconds,
    });
  }
  return svcOrderId;
}

// ---------------------------------------------------------------------------------------------
// The track job

export interface TrackResult {
  records: number;
  fulfilled: number;
  updated: number;
  delivered: number;
  state?: string;
}

type OrderWithAll = OrderRow & { lines: ShopOrderLine[]; shipments: Shipment[] };

/** Fetches the order's service orders (unless given, fresh) and writes what changed to the shop. */
export async function trackOrder(
  deps: FulfilmentDeps,
  orderId: string,
  opts: { hintIds?: string[]; records?: unknown } = {},
): Promise<TrackResult> {
  const db = deps.prisma;
  const result: TrackResult = { records: 0, fulfilled: 0, updated: 0, delivered: 0 };
  const order = await db.shopOrder.findUnique({
    where: { id: orderId },
    include: { lines: true, shipments: true },
  });
  if (!order || !TRACKABLE.includes(order.state) || !order.svcAccountId) return result;
  addLogContext({ orderId: order.id, shop: order.shopDomain });
  const known = new Set(
    [order.svcOrderId, ...order.shipments.map((s) => s.svcOrderId)].filter(Boolean) as string[],
  );

  let records: OrderRecord[];
  const given = z.array(orderRecordSchema).safeParse(opts.records);
  if (opts.records !== undefined && given.success) {
    records = given.data;
  } else {
    const client = await deps.svcFor(order.svcAccountId);
    const ids = [...new Set([...known, order.orderNumber, ...(opts.hintIds ?? [])])].slice(0, 100);
    records = await client.orders.getOrderDetailBatch(ids);
  }
  const mine = records.filter(
    (r) =>
      (r.orderId && known.has(r.orderId)) ||
      (r.svcOrderId && known.has(r.svcOrderId)) ||
      r.orderNum === order.orderNumber ||
      r.orderNumber === order.orderNumber ||
      r.productList.some((l) => l.orderNumber === order.orderNumber),
  );
  result.records = mine.length;
  if (mine.length === 0) return result;
  const settings = await getSettings(db, order.shopDomain);
  const single =
    new Set(mine.map((r) => r.orderId ?? r.svcOrderId)).size === 1 && order.shipments.length <= 1;

  for (const rec of mine) {
    const r = await applyRecord(deps, order, rec, {
      notifyCustomer: settings.notifyCustomer,
      single,
    });
    result.fulfilled += r.fulfilled;
    result.updated += r.updated;
    result.delivered += r.delivered;
  }
  // The service ended the paid order: a problem for the merchant.
  const main = mine.find((r) => (r.orderId ?? r.svcOrderId) === order.svcOrderId);
  const ended = main ? recordFlag(main) : null;
  if (ended) await flagAfterPayment(db, order, ended, `service status ${main!.orderStatus}`);
  result.state = await settleState(deps, order.id);
  if (result.delivered > 0 && optionsOf(deps).proofOfDelivery) {
    await proofOfDelivery(deps, order.id, order.svcAccountId);
  }
  return result;
}

/** The shop lines (and quantities) a service order carries. */
function linesOf(order: OrderWithAll, rec: OrderRecord, single: boolean) {
  const byShopLine = new Map(order.lines.map((l) => [l.shopifyLineItemId, l]));
  const out = new Map<string, number>();
  for (const p of rec.productList) {
    const id = p.storeLineItemId ?? undefined;
    if (!id || !byShopLine.has(id)) continue;
    out.set(id, (out.get(id) ?? 0) + (p.quantity ?? byShopLine.get(id)!.quantity));
  }
  if (out.size === 0 && single) {
    for (const l of order.lines) out.set(l.shopifyLineItemId, l.quantity);
  }
  return [...out].map(([lineItemId, quantity]) => ({ lineItemId, quantity }));
}

async function applyRecord(
  deps: FulfilmentDeps,
  order: OrderWithAll,
  rec: OrderRecord,
  opts: { notifyCustomer: boolean; single: boolean },
): Promise<{ fulfilled: number; updated: number; delivered: number }> {
  const db = deps.prisma;
  const out = { fulfilled: 0, updated: 0, delivered: 0 };
  const svcOrderId = rec.orderId ?? rec.svcOrderId;
  const trackNumber = rec.trackNumber?.trim();
  if (!svcOrderId) return out;
  let shipment = order.shipments.find((s) => s.svcOrderId === svcOrderId);
  if (!trackNumber) {
    // A split child without tracking yet: remember it so the reconciler asks for it.
    if (!shipment && svcOrderId !== order.svcOrderId) {
      shipment = await db.shipment.create({
        data: { orderId: order.id, svcOrderId, lines: linesOf(order, rec, false) },
      });
      order.shipments.push(shipment);
    }
    return out;
  }
  const lines = linesOf(order, rec, opts.single);
  const company = rec.trackingProvider || rec.logisticName || null;
  const tracking = { number: trackNumber, url: rec.trackingUrl ?? null, company };
  if (!shipment) {
    shipment = await db.shipment.create({
      data: {
        orderId: order.id,
        svcOrderId,
        trackNumber,
        trackingUrl: tracking.url,
        logisticName: company,
        lines,
      },
    });
    order.shipments.push(shipment);
    await addTimeline(db, order.id, {
      step: "shipped",
      outcome: "info",
      message: `Shipped by the service (${svcOrderId}): ${company ?? "carrier"} ${trackNumber}.`,
    });
  } else if (shipment.trackNumber !== trackNumber || shipment.trackingUrl !== tracking.url) {
    shipment = await db.shipment.update({
      where: { id: shipment.id },
      data: { trackNumber, trackingUrl: tracking.url, logisticName: company, lines },
    });
  }

  if (order.flag === "fulfilment_conflict") return out;
  const gateway = await deps.shopFor(order.shopDomain);
  if (!shipment.shopifyFulfillmentId) {
    const orderGid = parseOrderGid(order.shopifyOrderId);
    const shopOrder = await gateway.getFulfillmentState(orderGid);
    const existing = shopOrder?.fulfillments.filter(
      (f) => f.status !== "CANCELLED" && f.tracking.some((t) => t.number === trackNumber),
    );
    let ids: ShopifyFulfillmentGid[] = [];
    let how = `written to the shop${opts.notifyCustomer ? ", customer notified" : ""}`;
    let toWrite = lines;
    if (existing && existing.length > 0) {
      // Written before a restart, maybe in part (one fulfillmentCreate per location, ≤ 250
      // lines each): only what those fulfilments lack is written now.
      ids = existing.map((f) => f.id);
      const done = new Map<string, number>();
      for (const f of existing) {
        for (const l of (await gateway.getFulfillmentLines(f.id)) ?? []) {
          const key = numericId(l.lineItemId) ?? l.lineItemId;
          // Shopify may not say the quantity: then the line counts as written whole.
          const asked = lines.find((x) => x.lineItemId === key)?.quantity ?? 0;
          done.set(key, (done.get(key) ?? 0) + (l.quantity ?? asked));
        }
      }
      toWrite = lines
        .map((l) => ({ ...l, quantity: l.quantity - (done.get(l.lineItemId) ?? 0) }))
        .filter((l) => l.quantity > 0);
      how = toWrite.length
        ? "completed in the shop (part was written before a restart)"
        : "found in the shop (written before a restart)";
    }
    if (toWrite.length > 0) {
      try {
        const created = await gateway.createFulfillment({
          orderGid,
          lineItems: toWrite.map((l) => ({
            lineItemGid: parseLineItemGid(l.lineItemId),
            quantity: l.quantity,
          })),
          tracking,
          notifyCustomer: opts.notifyCustomer,
          fulfillmentOrders: shopOrder?.fulfillmentOrders,
        });
        ids = [...ids, ...created.map((c) => c.id)];
      } catch (error) {
        if (error instanceof ShopFulfillmentNotReadyError) {
          // Held or scheduled in the shop: not a conflict. The shipment stays pending (no
          // fulfilment id), a track job comes back later, and the reconciler sees it too.
          await waitForShop(deps, order, trackNumber, error);
          return out;
        }
        if (error instanceof ShopFulfillmentPlanError || error instanceof ShopUserError) {
          const f = errorFields(error);
          const message = `The shop refused the fulfilment of ${trackNumber} (the lines may have been fulfilled by hand): ${f.message}`;
          await db.shopOrder.update({
            where: { id: order.id },
            data: { flag: "fulfilment_conflict", reasonMessage: message.slice(0, 500) },
          });
          await addTimeline(db, order.id, {
            step: "fulfil",
            outcome: "error",
            errorCode: f.errorCode,
            message,
          });
          return out;
        }
        throw error;
      }
    }
    // Recorded at once: the next run updates this fulfilment and never creates another.
    shipment = await db.shipment.update({
      where: { id: shipment.id },
      data: { shopifyFulfillmentId: ids.join(","), writtenTrackNumber: trackNumber },
    });
    for (const l of lines) {
      await db.shopOrderLine.updateMany({
        where: { orderId: order.id, shopifyLineItemId: l.lineItemId },
        data: { fulfilledQuantity: { increment: l.quantity } },
      });
    }
    await db.shopOrder.updateMany({
      where: { id: order.id, reasonMessage: { startsWith: WAITING_PREFIX } },
      data: { reasonMessage: null },
    });
    await addTimeline(db, order.id, {
      step: "fulfil",
      outcome: "ok",
      message: `Fulfilment with ${company ?? "tracking"} ${trackNumber} ${how} (${lines.length} line(s)).`,
    });
    out.fulfilled++;
  } else if (shipment.writtenTrackNumber !== trackNumber) {
    for (const id of shipment.shopifyFulfillmentId.split(",")) {
      await gateway.updateTracking(parseFulfillmentGid(id), tracking, opts.notifyCustomer);
    }
    const before = shipment.writtenTrackNumber;
    shipment = await db.shipment.update({
      where: { id: shipment.id },
      data: { writtenTrackNumber: trackNumber },
    });
    await addTimeline(db, order.id, {
      step: "tracking",
      outcome: "ok",
      // Stryker disable next-line StringLiteral: message
      message: `Tracking changed from ${before ?? "none"} to ${trackNumber}; the shop's fulfilment is updated.`,
    });
    out.updated++;
  }
  if (rec.orderStatus === "DELIVERED" && !shipment.deliveredAt) {
    await db.shipment.update({
      where: { id: shipment.id },
      data: { deliveredAt: new Date(deps.clock.now()) },
    });
    await addTimeline(db, order.id, {
      step: "delivered",
      outcome: "ok",
      message: `Parcel ${trackNumber} delivered.`,
    });
    out.delivered++;
  }
  return out;
}

/**
 * Tracking that Shopify cannot take yet (fulfilment orders on hold, scheduled): says so on the
 * order (once per reason) and schedules the order's track job again, at the scheduled
 * fulfilment order's fulfillAt or after NOT_READY_RETRY_MS.
 */
async function waitForShop(
  deps: FulfilmentDeps,
  order: Pick<OrderRow, "id" | "shopDomain">,
  trackNumber: string,
  error: ShopFulfillmentNotReadyError,
) {
  const db = deps.prisma;
  // Stryker disable next-line StringLiteral: message
  const reasons = [...new Set(error.notReady.map((n) => n.reason))].join("; ");
  const message =
    `${WAITING_PREFIX} ${trackNumber} goes to the shop once its fulfilment order is fulfillable ` +
    // Stryker disable next-line StringLiteral: message
    `(${error.notReady.length} line(s) ${reasons}). Nothing to do unless it stays so.`;
  const last = await db.timelineEntry.findFirst({
    where: { orderId: order.id, step: "fulfil" },
    orderBy: { id: "desc" },
    select: { message: true },
  });
  if (last?.message !== message.slice(0, 1000)) {
    await addTimeline(db, order.id, {
      step: "fulfil",
      outcome: "info",
      errorCode: error.code,
      message,
    });
  }
  await db.shopOrder.update({
    where: { id: order.id },
    data: { reasonMessage: message.slice(0, 500) },
  });
  const now = deps.clock.now();
  const wait = error.retryAt ? error.retryAt.getTime() - now : NOT_READY_RETRY_MS;
  const delay = Math.min(24 * 3600_000, Math.max(60_000, wait));
  await scheduleTrack(db, {
    orderId: order.id,
    shopDomain: order.shopDomain,
    key: `not-ready:${Math.floor((now + delay) / 60_000)}`,
    runAt: new Date(Date.now() + delay),
  });
}

/** SHIPPED → FULFILLED → DELIVERED from the lines and parcels. */
async function settleState(deps: FulfilmentDeps, orderId: string): Promise<string> {
  const db = deps.prisma;
  const o = await db.shopOrder.findUniqueOrThrow({
    where: { id: orderId },
    include: { lines: true, shipments: true },
  });
  const now = new Date(deps.clock.now());
  const tracked = o.shipments.filter((s) => s.trackNumber);
  const allLinesDone =
    o.lines.length > 0 && o.lines.every((l) => l.fulfilledQuantity >= l.quantity);
  const allDelivered = tracked.length > 0 && tracked.every((s) => s.deliveredAt);
  let state = o.state;
  if (allLinesDone && allDelivered) state = "DELIVERED";
  else if (allLinesDone) state = "FULFILLED";
  else if (tracked.length > 0) state = "SHIPPED";
  if (state === o.state) return state;
  const set: MoveColumns = {};
  if (state === "FULFILLED" || state === "DELIVERED") set.fulfilledAt = o.fulfilledAt ?? now;
  if (state === "DELIVERED") set.deliveredAt = now;
  // The parcels' own entries (tracking written, delivered) already tell this step.
  await transition(db, orderId, { to: state as OrderState, set, timeline: null });
  return state;
}

async function proofOfDelivery(deps: FulfilmentDeps, orderId: string, accountId: string) {
  const db = deps.prisma;
  const shipments = await db.shipment.findMany({ where: { orderId, deliveredAt: { not: null } } });
  if (shipments.length === 0) return;
  try {
    const client = await deps.svcFor(accountId);
    const proofs = await client.orders.getProofOfDelivery([
      ...new Set(shipments.map((s) => s.svcOrderId)),
    ]);
    const links = proofs.flatMap((p) => p.proofOfDeliveryList);
    if (links.length) {
      // The addresses expire: the files are copied into the app's archive (archive.server.ts).
      const { shopDomain } = await db.shopOrder.findUniqueOrThrow({
        where: { id: orderId },
        select: { shopDomain: true },
      });
      await queueArchive(db, { shopDomain, orderId, purpose: "proof_of_delivery", urls: links });
      await addTimeline(db, orderId, {
        step: "proof_of_delivery",
        outcome: "info",
        // Stryker disable next-line StringLiteral: message
        // The service's links expire: the timeline says what came; the order page shows the copies.
        message: `Proof of delivery received (${links.length} file${links.length === 1 ? "" : "s"}); the app keeps a copy for the order page.`,
      });
    }
  } catch (error) {
    const f = errorFields(error);
    await addTimeline(db, orderId, {
      step: "proof_of_delivery",
      outcome: "error",
      errorCode: f.errorCode,
      requestId: f.requestId,
      message: f.message,
    });
  }
}

/** A LOGISTIC event reporting a parcel abnormal or returned flags its paid orders. */
async function flagParcels(db: Db, shopDomain: string, ids: string[], flag: AfterPaymentFlag) {
  const viaShipments = await db.shipment.findMany({
    where: { svcOrderId: { in: ids }, order: { shopDomain } },
    select: { orderId: true },
  });
  const orders = await db.shopOrder.findMany({
    where: {
      shopDomain,
      state: { in: PAID_STATES },
      OR: [
        { svcOrderId: { in: ids } },
        { orderNumber: { in: ids } },
        { id: { in: viaShipments.map((s) => s.orderId) } },
      ],
    },
    select: { id: true, state: true, flag: true },
  });
  for (const o of orders) await flagAfterPayment(db, o, flag);
}
