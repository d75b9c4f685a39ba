/**
 * After payment (issue 14): what can still go wrong once an order is paid — the service cancels
 * or closes it, the carrier reports the parcel abnormal or returned — becomes a problem on the
 * order (a flag with a sentence saying what happened and what the merchant can do), once per
 * change, on the timeline. Finished orders (cancelled, closed, returned) are no longer polled.
 */
import type { OrderRecord } from "../svc/order-shapes";
import type { Db } from "../db/types";
import { PAID_STATES } from "../orders/states";
import { addTimeline } from "../orders/timeline.server";
import { transition } from "../orders/transition.server";

export type AfterPaymentFlag =
  | "svc_cancelled"
  | "svc_closed"
  | "parcel_abnormal"
  | "parcel_returned";

const MESSAGES: Record<AfterPaymentFlag, string> = {
  svc_cancelled:
    "The service cancelled this order after it was paid: nothing will ship. The service refunds cancelled orders to the balance; refund or re-order for the customer in Shopify, and ask the service if the refund does not appear.",
  svc_closed:
    "The service closed this order after it was paid: nothing more will happen to it there. Check the order in the service's console, refund or re-order for the customer, and open a dispute if you were charged for nothing.",
  parcel_abnormal:
    "The carrier reports the parcel abnormal (held, damaged or lost in transit). Watch the tracking; if it does not move on, open a dispute with the service and keep the customer informed.",
  parcel_returned:
    "The carrier reports the parcel returned to the sender: it will not reach the customer. Open a dispute with the service for a resend or refund, and contact the customer.",
};

/** Orders with these flags are finished: the reconciler stops polling them. */
export const FINISHED_FLAGS: AfterPaymentFlag[] = [
  "svc_cancelled",
  "svc_closed",
  "parcel_returned",
];

export const AFTER_PAYMENT_FLAGS = Object.keys(MESSAGES) as AfterPaymentFlag[];

/** The flag a service order record calls for (its status), if any. */
export function recordFlag(r: Pick<OrderRecord, "orderStatus">): AfterPaymentFlag | null {
  const s = (r.orderStatus ?? "").toUpperCase();
  return s === "CANCELLED" ? "svc_cancelled" : s === "CLOSED" ? "svc_closed" : null;
}

/** The flag a LOGISTIC event's trackingStatus calls for (13 abnormal, 14 returned), if any. */
export function parcelFlag(params: unknown): AfterPaymentFlag | null {
  const p = (typeof params === "object" && params ? params : {}) as Record<string, unknown>;
  const status = Number(p.trackingStatus);
  return status === 13 ? "parcel_abnormal" : status === 14 ? "parcel_returned" : null;
}

/** Sets the flag on a paid order (once: nothing when it already has it). */
export async function flagAfterPayment(
  db: Db,
  order: { id: string; state: string; flag: string | null },
  flag: AfterPaymentFlag,
  detail?: string,
): Promise<boolean> {
  if (!PAID_STATES.includes(order.state as never) || order.flag === flag) return false;
  // A finished order is not made unfinished by a late event of a lesser kind.
  if (FINISHED_FLAGS.includes(order.flag as AfterPaymentFlag) && !FINISHED_FLAGS.includes(flag)) {
    return false;
  }
  const message = MESSAGES[flag];
  const n = await db.shopOrder.updateMany({
    where: { id: order.id, OR: [{ flag: null }, { flag: { not: flag } }] },
    data: { flag, reasonMessage: message },
  });
  if (n.count === 0) return false;
  await addTimeline(db, order.id, {
    step: "after-payment",
    outcome: "error",
    errorCode: flag,
    message: detail ? `${message} (${detail})` : message,
  });
  return true;
}

/** The merchant has handled a problem after payment: the flag goes, the timeline says so. */
export async function dismissProblem(
  deps: { prisma: Db },
  orderId: string,
  opts: { shopDomain: string },
): Promise<{ ok: true } | { ok: false; error: string }> {
  const db = deps.prisma;
  const o = await db.shopOrder.findUnique({ where: { id: orderId } });
  if (!o || o.shopDomain !== opts.shopDomain) return { ok: false, error: "Order not found." };
  if (!o.flag) return { ok: false, error: "The order has no problem to mark as handled." };
  // A finished order (cancelled, closed or returned at the service) leaves the pipeline: it is
  // not polled again; an abnormal parcel goes on being tracked.
  const finished = FINISHED_FLAGS.includes(o.flag as AfterPaymentFlag);
  const entry = {
    step: "after-payment",
    outcome: "info",
    message: `Marked as handled by the merchant (${o.flag}).`,
  } as const;
  const where = { id: o.id, flag: o.flag };
  let moved: number;
  if (finished) {
    const ids = await transition(db, where, {
      to: "CANCELLED",
      message: `Ended at the service after payment (${o.flag}); handled by the merchant.`,
      set: { flag: null },
      timeline: entry,
    });
    moved = ids.length;
  } else {
    moved = (await db.shopOrder.updateMany({ where, data: { flag: null, reasonMessage: null } }))
      .count;
    if (moved > 0) await addTimeline(db, o.id, entry);
  }
  if (moved === 0)
    return { ok: false, error: "The order changed meanwhile: reload and try again." };
  return { ok: true };
}
