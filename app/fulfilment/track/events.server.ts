/**
 * A service event (ORDER, LOGISTIC, ORDERSPLIT) is only a hint: it names the orders to look at.
 * ORDER_CONNNECTED gives a store-flow order its service order id; a LOGISTIC event reporting a
 * parcel abnormal or returned flags its paid orders; anything else gathers the named orders per
 * account into one hinted fetch (hinted.server.ts), or lets a payment in flight look again.
 */
import { accountIdOfShop } from "../../svc/accounts.server";
import type { ShopOrder as OrderRow } from "@prisma/client";
import type { Db } from "../../db/types";
import { addLogContext } from "../../log-context.server";
import type { FulfilmentDeps } from "../../orders/deps.server";
import { schedulePay, scheduleTrackHints } from "../../orders/schedule.server";
import { PAID_STATES } from "../../orders/states";
import { transition } from "../../orders/transition.server";
import { settingsForJob } from "../../settings.server";
import { idsFromParams, mentionsShipping } from "../../svc/event-readers";
import { type AfterPaymentFlag, flagAfterPayment, parcelFlag } from "../after-payment.server";
import { TRACKABLE } from "./records";

export interface SvcEventInput {
  shopDomain: string;
  type: string;
  messageType?: string;
  params: unknown;
  eventKey: string;
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
  const shopAccountId = await accountIdOfShop(db, ev.shopDomain);
  const trouble = ev.type === "LOGISTIC" ? parcelFlag(ev.params) : null;
  if (trouble) await flagParcels(db, ev.shopDomain, ids, trouble);
  if (ev.type === "ORDER" && ev.messageType === "ORDER_CONNNECTED") {
    const connected = await adoptConnectedOrder(deps, ev.shopDomain, ids, shopAccountId);
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
  const settings = await settingsForJob(db, order.shopDomain);
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
