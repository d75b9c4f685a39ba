/**
 * Which shop a service event belongs to. The callback secret names a service account; shops
 * connected to the same service account share it (the service keeps one callback per account),
 * so an event matching several of the app's accounts is routed by its type's row in
 * app/svc/events.ts:
 *
 * - ORDER, ORDERSPLIT, LOGISTIC: to the shop(s) that own the order (ShopOrder.svcOrderId,
 *   orderNumber, a shipment's service order id, `storeOrderNumbers`); none → stored ignored;
 * - PRODUCT, VARIANT, STOCK: to every shop of the service account;
 * - any other type: stored ignored (nothing would ever run its job).
 *
 * An ORDER/ORDERSPLIT/LOGISTIC event without an order id, and an ORDER update that tells no
 * parcel news (creation, payment: `orderEventWithoutNews`), is stored ignored too: its job would do
 * nothing.
 */
import type { PrismaClient } from "@prisma/client";
import { idsFromParams, orderEventWithoutNews } from "../svc/event-readers";
import { isSvcEventType, SVC_EVENTS } from "../svc/events";

export interface SvcAccountRef {
  id: string;
  shopDomain: string;
}

export interface RouteTarget {
  account: SvcAccountRef;
  /** Set when the event is stored without a job. */
  ignoredReason?: string;
  /** Ignored as ordinary traffic (creation and payment updates): not worth a log line. */
  routine?: boolean;
}

export async function routeSvcEvent(
  db: PrismaClient,
  accounts: SvcAccountRef[],
  event: { type: string; messageType?: string; params: unknown },
): Promise<RouteTarget[]> {
  const first = accounts[0]!;
  if (!isSvcEventType(event.type)) {
    return [{ account: first, ignoredReason: `unknown event type ${event.type}` }];
  }
  if (SVC_EVENTS[event.type].routing === "account") return accounts.map((account) => ({ account }));
  const ids = idsFromParams(event.params);
  if (ids.length === 0) {
    return [
      {
        account: first,
        ignoredReason:
          accounts.length === 1
            ? "no order id in the event"
            : "no order id to tell which shop it belongs to",
      },
    ];
  }
  // Creation and payment updates: nothing to fetch or write, so no job (svcEventIdle agrees).
  if (orderEventWithoutNews(event)) {
    return [{ account: first, ignoredReason: "no tracking in the event", routine: true }];
  }
  if (accounts.length === 1) return [{ account: first }];
  const shops = accounts.map((a) => a.shopDomain);
  const [orders, shipments] = await Promise.all([
    db.shopOrder.findMany({
      where: {
        shopDomain: { in: shops },
        OR: [{ svcOrderId: { in: ids } }, { orderNumber: { in: ids } }],
      },
      select: { shopDomain: true },
    }),
    db.shipment.findMany({
      where: { svcOrderId: { in: ids }, order: { shopDomain: { in: shops } } },
      select: { order: { select: { shopDomain: true } } },
    }),
  ]);
  const owners = new Set([
    ...orders.map((o) => o.shopDomain),
    ...shipments.map((s) => s.order.shopDomain),
  ]);
  const matched = accounts.filter((a) => owners.has(a.shopDomain));
  if (matched.length === 0) {
    return [{ account: first, ignoredReason: "no shop on this service account owns the order" }];
  }
  return matched.map((account) => ({ account }));
}
