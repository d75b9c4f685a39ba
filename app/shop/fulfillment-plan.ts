/**
 * Placing a parcel's order lines on the order's fulfilment orders, by Shopify's rules (pure: no
 * call; fulfillments.server.ts sends the plan):
 * - only fulfilment orders whose supportedActions list CREATE_FULFILLMENT take a fulfilment;
 *   lines whose open quantity waits on others (ON_HOLD, SCHEDULED, …) are "not ready";
 * - fulfillmentCreate takes fulfilment orders of one location only, and no input array holds
 *   more than 250 items.
 */
import type { ShopFulfillmentOrder } from "./fulfillment-orders.shapes";
import type {
  ShopifyFulfillmentOrderGid,
  ShopifyFulfillmentOrderLineItemGid,
  ShopifyLineItemGid,
} from "./ids";

/** At most this many items in one input array (Shopify's limit for list arguments). */
export const MAX_INPUT_ITEMS = 250;

/** Can the app create a fulfilment on it now? */
export const canFulfil = (fo: ShopFulfillmentOrder) =>
  fo.supportedActions.includes("CREATE_FULFILLMENT");

/** Statuses that will never take a fulfilment again. */
const FINISHED = new Set(["CLOSED", "CANCELLED"]);

export interface NotReadyLine {
  lineItemGid: string;
  fulfillmentOrderId: string;
  status: string;
  /** Why, in words: "on hold (AWAITING_PAYMENT: …)", "scheduled for 2026-12-01T…". */
  reason: string;
}

export interface FulfillmentPlan {
  /**
   * The fulfillmentCreate calls: each holds fulfilment orders of one location, at most 250 of
   * them and at most 250 line items in all.
   */
  calls: {
    fulfillmentOrderId: ShopifyFulfillmentOrderGid;
    lines: { id: ShopifyFulfillmentOrderLineItemGid; quantity: number }[];
  }[][];
  /** Lines asking for more than is open anywhere (nothing is sent). */
  problems: { lineItemGid: string; requested: number; fulfillable: number }[];
  /** Lines whose open quantity sits on fulfilment orders not fulfillable yet (nothing is sent). */
  notReady: NotReadyLine[];
  /** When the earliest SCHEDULED one of those opens, if any. */
  retryAt: Date | null;
}

function notReadyReason(fo: ShopFulfillmentOrder): string {
  if (fo.status === "ON_HOLD") {
    const why = fo.holds.map((h) => h.reason + (h.notes ? `: ${h.notes}` : "")).join("; ");
    return `on hold${why ? ` (${why})` : ""}`;
  }
  if (fo.status === "SCHEDULED")
    return `scheduled${fo.fulfillAt ? ` to open at ${fo.fulfillAt}` : ""}`;
  return `${fo.status.toLowerCase().replace(/_/g, " ")}, not fulfillable yet`;
}

/**
 * Spreads the requested quantities of order lines over the fulfillable fulfilment orders'
 * remaining quantities, first fulfilment order first. A line that asks for more than is open
 * is a problem, unless the rest is open on fulfilment orders that are not fulfillable yet (on
 * hold, scheduled): then it is "not ready". Either way nothing is sent: a fulfilment is written
 * whole or not at all, so one tracking number never ends up on two half fulfilments.
 */
export function planFulfillment(
  fulfillmentOrders: ShopFulfillmentOrder[],
  requested: { lineItemGid: ShopifyLineItemGid; quantity: number }[],
): FulfillmentPlan {
  const wanted = new Map<string, number>();
  const problems: FulfillmentPlan["problems"] = [];
  for (const r of requested) {
    if (!Number.isInteger(r.quantity) || r.quantity <= 0) {
      problems.push({ lineItemGid: r.lineItemGid, requested: r.quantity, fulfillable: 0 });
      continue;
    }
    wanted.set(r.lineItemGid, (wanted.get(r.lineItemGid) ?? 0) + r.quantity);
  }
  const ready = fulfillmentOrders.filter(canFulfil);
  const waiting = fulfillmentOrders.filter((fo) => !canFulfil(fo) && !FINISHED.has(fo.status));
  const byFo = new Map<
    ShopifyFulfillmentOrderGid,
    { location: string; lines: { id: ShopifyFulfillmentOrderLineItemGid; quantity: number }[] }
  >();
  const notReady: NotReadyLine[] = [];
  let retryAt: Date | null = null;
  for (const [lineItemGid, total] of wanted) {
    let need = total;
    const picks: { fo: ShopFulfillmentOrder; id: ShopifyFulfillmentOrderLineItemGid; q: number }[] =
      [];
    for (const fo of ready) {
      for (const li of fo.lineItems) {
        if (need === 0) break;
        if (li.lineItemId !== lineItemGid || li.remainingQuantity <= 0) continue;
        const q = Math.min(need, li.remainingQuantity);
        picks.push({ fo, id: li.id, q });
        need -= q;
      }
    }
    if (need > 0) {
      const holding = waiting.filter((fo) =>
        fo.lineItems.some((li) => li.lineItemId === lineItemGid && li.remainingQuantity > 0),
      );
      const later = holding.reduce(
        (n, fo) =>
          n +
          fo.lineItems
            .filter((li) => li.lineItemId === lineItemGid)
            .reduce((m, li) => m + Math.max(0, li.remainingQuantity), 0),
        0,
      );
      if (holding.length && later >= need) {
        for (const fo of holding) {
          notReady.push({
            lineItemGid,
            fulfillmentOrderId: fo.id,
            status: fo.status,
            reason: notReadyReason(fo),
          });
          const at = fo.status === "SCHEDULED" && fo.fulfillAt ? new Date(fo.fulfillAt) : null;
          if (at && !Number.isNaN(at.getTime()) && (!retryAt || at < retryAt)) retryAt = at;
        }
      } else {
        problems.push({ lineItemGid, requested: total, fulfillable: total - need });
      }
      continue;
    }
    for (const p of picks) {
      const entry = byFo.get(p.fo.id) ?? { location: p.fo.locationId ?? "", lines: [] };
      entry.lines.push({ id: p.id, quantity: p.q });
      byFo.set(p.fo.id, entry);
    }
  }
  if (problems.length || notReady.length) return { calls: [], problems, notReady, retryAt };

  // One location per call; ≤ 250 fulfilment orders and ≤ 250 line items per call (a fulfilment
  // order with more lines than that is split over calls).
  const byLocation = new Map<string, { id: ShopifyFulfillmentOrderGid; lines: FoLine[] }[]>();
  for (const [id, { location, lines }] of byFo) {
    byLocation.set(location, [...(byLocation.get(location) ?? []), { id, lines }]);
  }
  const calls: FulfillmentPlan["calls"] = [];
  for (const fos of byLocation.values()) {
    let cur: FulfillmentPlan["calls"][number] = [];
    let count = 0;
    for (const fo of fos) {
      for (let i = 0; i < fo.lines.length; ) {
        if (count === MAX_INPUT_ITEMS || cur.length === MAX_INPUT_ITEMS) {
          calls.push(cur);
          cur = [];
          count = 0;
        }
        const take = fo.lines.slice(i, i + (MAX_INPUT_ITEMS - count));
        const last = cur.at(-1);
        if (last && last.fulfillmentOrderId === fo.id) last.lines.push(...take);
        else cur.push({ fulfillmentOrderId: fo.id, lines: take });
        count += take.length;
        i += take.length;
      }
    }
    if (cur.length) calls.push(cur);
  }
  return { calls, problems, notReady, retryAt };
}

type FoLine = { id: ShopifyFulfillmentOrderLineItemGid; quantity: number };
