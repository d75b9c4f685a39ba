/**
 * What the merchant (the orders page) and the shop's orders/cancelled webhook do to an order:
 * Retry, Hold, Release, Cancel. Each is a small state change, a timeline entry and, where the
 * pipeline should go on, a job; none of them calls the service itself.
 */
import type { ShopOrder as OrderRow } from "@prisma/client";
import { addLogContext } from "../log-context.server";
import type { FulfilmentDeps } from "../orders/deps.server";
import { numericId } from "../orders/model";
import { PAID_STATES, type OrderState } from "../orders/states";
import { transition } from "../orders/transition.server";
import { schedulePay, schedulePlace, scheduleTrack } from "../orders/schedule.server";
import { stillHeld } from "../orders/recheck.server";
import { addTimeline } from "../orders/timeline.server";

export type ActionResult =
  | { ok: true; state: string; note?: string }
  | { ok: false; error: string };

async function load(deps: FulfilmentDeps, orderId: string, shopDomain?: string) {
  const o = await deps.prisma.shopOrder.findUnique({ where: { id: orderId } });
  if (!o || (shopDomain && o.shopDomain !== shopDomain)) return null;
  addLogContext({ orderId: o.id, shop: o.shopDomain });
  return o;
}

const key = (deps: FulfilmentDeps) => `m:${deps.clock.now()}`;

/** Sends a FAILED (or held) order on from where it stopped. */
export async function retryOrder(
  deps: FulfilmentDeps,
  orderId: string,
  opts: { shopDomain?: string } = {},
): Promise<ActionResult> {
  const db = deps.prisma;
  const o = await load(deps, orderId, opts.shopDomain);
  if (!o) return { ok: false, error: "Order not found." };
  if (o.state === "CANCELLED") return { ok: false, error: "A cancelled order cannot be retried." };
  if (PAID_STATES.includes(o.state as never)) {
    await db.shopOrder.update({
      where: { id: o.id },
      data: { flag: o.flag === "fulfilment_conflict" ? null : o.flag },
    });
    await addTimeline(db, o.id, {
      step: "retry",
      outcome: "info",
      message: "Retry by the merchant: tracking is checked again.",
    });
    await scheduleTrack(db, { orderId: o.id, shopDomain: o.shopDomain, key: key(deps) });
    return { ok: true, state: o.state };
  }
  if (o.state !== "FAILED" && o.state !== "HELD") {
    return { ok: false, error: `The order is ${o.state}: nothing to retry.` };
  }
  // Nothing fixed: say what still holds it, change nothing (over the cost guard, only Release
  // pays: Retry asks the guard again).
  const ask =
    o.reasonCode === "cost_guard" ||
    o.reasonCode === "warehouse_mode" ||
    !(o.svcOrderId || o.placedAt);
  const still = ask ? await stillHeld(db, o, deps.clock.now()) : null;
  if (still) return { ok: false, error: still };
  if (o.svcOrderId || o.placedAt) return resumeCreated(deps, o, "retry", "Retry by the merchant.");
  await placeAgain(deps, o, "retry", "Retry by the merchant: the order is placed again.");
  return {
    ok: true,
    state: "RECEIVED",
    note: "It is being placed now: the timeline shows the outcome in a moment.",
  };
}

/** An order not yet at the service goes back to RECEIVED and is placed again. */
async function placeAgain(
  deps: FulfilmentDeps,
  o: OrderRow,
  step: string,
  message: string,
): Promise<ActionResult> {
  const db = deps.prisma;
  await transition(db, o.id, {
    to: "RECEIVED",
    reason: null,
    message: null,
    timeline: { step, outcome: "info", message },
  });
  await schedulePlace(db, { orderId: o.id, shopDomain: o.shopDomain, key: key(deps) });
  return { ok: true, state: "RECEIVED" };
}

/** An order that exists at the service goes back to CREATED and into the next payment. */
async function resumeCreated(
  deps: FulfilmentDeps,
  o: OrderRow,
  step: string,
  message: string,
): Promise<ActionResult> {
  const db = deps.prisma;
  const waiting = !o.svcOrderId;
  await transition(db, o.id, {
    to: "CREATED",
    reason: waiting ? "waiting_connection" : null,
    message: waiting
      ? "Waiting for the service order id (products to be connected at the service)."
      : null,
    set: { paymentBatchId: null },
    timeline: { step, outcome: "info", message },
  });
  if (!waiting && o.svcAccountId) {
    await schedulePay(db, {
      accountId: o.svcAccountId,
      shopDomain: o.shopDomain,
      nowMs: deps.clock.now(),
      windowSeconds: 0,
      key: `${step}:${o.id}:${deps.clock.now()}`,
    });
  }
  return { ok: true, state: "CREATED" };
}

/** The merchant holds an order that is not paid yet (it is not placed or not paid until released). */
export async function holdOrder(
  deps: FulfilmentDeps,
  orderId: string,
  opts: { shopDomain?: string; note?: string } = {},
): Promise<ActionResult> {
  const db = deps.prisma;
  const o = await load(deps, orderId, opts.shopDomain);
  if (!o) return { ok: false, error: "Order not found." };
  const holdable =
    ["RECEIVED", "HELD", "FAILED"].includes(o.state) ||
    (o.state === "CREATED" && !o.paymentBatchId);
  if (!holdable) {
    return { ok: false, error: `The order is ${o.state}: it can no longer be held.` };
  }
  const message = `Held by the merchant${opts.note ? `: ${opts.note.slice(0, 200)}` : ""}. Release it to go on.`;
  const moved = await transition(
    db,
    { id: o.id, paymentBatchId: null },
    {
      to: "HELD",
      from: [o.state as OrderState],
      reason: "merchant_hold",
      message,
      timeline: { step: "hold", outcome: "held", errorCode: "merchant_hold", message },
    },
  );
  if (moved.length === 0)
    return { ok: false, error: "The order is being paid: it can no longer be held." };
  return { ok: true, state: "HELD" };
}

/** Releases a held order: it skips the review window and the risk hold, and goes on. */
export async function releaseOrder(
  deps: FulfilmentDeps,
  orderId: string,
  opts: { shopDomain?: string } = {},
): Promise<ActionResult> {
  const db = deps.prisma;
  const o = await load(deps, orderId, opts.shopDomain);
  if (!o) return { ok: false, error: "Order not found." };
  if (o.state !== "HELD") return { ok: false, error: `The order is ${o.state}, not held.` };
  if (o.reasonCode === "short_balance") {
    // Waiting for money: a pay run checks the balance now.
    if (o.svcAccountId) {
      await schedulePay(db, {
        accountId: o.svcAccountId,
        shopDomain: o.shopDomain,
        nowMs: deps.clock.now(),
        windowSeconds: 0,
        key: `release:${o.id}:${deps.clock.now()}`,
      });
    }
    await addTimeline(db, o.id, {
      step: "release",
      outcome: "info",
      message: "Released: the balance is checked again.",
    });
    return { ok: true, state: o.state, note: "The balance is checked again now." };
  }
  // Release skips the review window, the risk hold and the cost guard (the merchant's call);
  // a cause it cannot remove (no match, no account, paused, a withdrawn warehouse mode) is
  // said, and nothing changes.
  if (o.reasonCode !== "review_window" && o.reasonCode !== "cost_guard") {
    const still = await stillHeld(db, o, deps.clock.now());
    if (still) return { ok: false, error: still };
  }
  if (o.svcOrderId || o.placedAt)
    return resumeCreated(deps, o, "release", "Released by the merchant.");
  return placeAgain(deps, o, "release", "Released by the merchant.");
}

/**
 * Cancels an order (the merchant, or orders/cancelled from the shop). Before payment it leaves
 * the pipeline (and its payment batch); once its payment has started it is flagged for the
 * merchant, since the contract has no cancel call.
 */
export async function cancelOrder(
  deps: FulfilmentDeps,
  ref: { orderId: string } | { shopDomain: string; shopifyOrderId: string },
  opts: { source?: "shop" | "merchant"; shopDomain?: string } = {},
): Promise<ActionResult> {
  const db = deps.prisma;
  const o =
    "orderId" in ref
      ? await load(deps, ref.orderId, opts.shopDomain)
      : await db.shopOrder.findUnique({
          where: {
            shopDomain_shopifyOrderId: {
              shopDomain: ref.shopDomain,
              shopifyOrderId: numericId(ref.shopifyOrderId) ?? ref.shopifyOrderId,
            },
          },
        });
  if (!o) return { ok: false, error: "Order not found." };
  if (o.state === "CANCELLED") return { ok: true, state: "CANCELLED", note: "already cancelled" };
  const who = opts.source === "shop" ? "Cancelled in the shop" : "Cancelled by the merchant";
  const now = new Date(deps.clock.now());

  if (PAID_STATES.includes(o.state as never)) {
    const message = `${who} after the service order was paid: it will still ship. The service has no cancel call; open a dispute or contact the service.`;
    await db.shopOrder.update({
      where: { id: o.id },
      data: { flag: "cancelled_after_payment", reasonMessage: message, cancelledAt: now },
    });
    await addTimeline(db, o.id, {
      step: "cancel",
      outcome: "error",
      errorCode: "cancelled_after_payment",
      message,
    });
    return { ok: true, state: o.state, note: "flagged: already paid" };
  }

  const outcome = await db.$transaction(async (tx) => {
    const cur = await tx.shopOrder.findUniqueOrThrow({ where: { id: o.id } });
    if (cur.paymentBatchId) {
      // Lock the batch: the payment step confirms under the same lock.
      const rows = await tx.$queryRaw<{ state: string }[]>`
        SELECT "state" FROM "PaymentBatch" WHERE "id" = ${cur.paymentBatchId} FOR UPDATE`;
      const batchState = rows[0]?.state;
      if (batchState && !["open", "carted", "failed"].includes(batchState)) {
        await tx.shopOrder.update({
          where: { id: o.id },
          data: { flag: "cancel_requested", cancelledAt: now },
        });
        return "flagged" as const;
      }
    }
    await transition(tx, o.id, {
      to: "CANCELLED",
      reason: opts.source === "shop" ? "cancelled_in_shop" : null,
      message: `${who} before payment${cur.svcOrderId ? ` (the unpaid service order ${cur.svcOrderId} is left as it is)` : ""}.`,
      set: { cancelledAt: now, paymentBatchId: null },
      timeline: { step: "cancel", outcome: "ok", message: `${who} before payment.` },
    });
    return "cancelled" as const;
  });
  if (outcome === "flagged") {
    const message = `${who} while its payment batch was being paid: if the payment goes through, the order is flagged for a dispute.`;
    await addTimeline(db, o.id, {
      step: "cancel",
      outcome: "error",
      errorCode: "cancel_requested",
      message,
    });
    return { ok: true, state: o.state, note: "flagged: payment under way" };
  }
  return { ok: true, state: "CANCELLED" };
}
