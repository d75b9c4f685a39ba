/**
 * Reading the service's order events (ORDER, ORDERSPLIT, LOGISTIC): which order ids an event
 * names, and whether it can carry parcel news. The shapes vary by event (DESIGN §8), so the
 * readers look for id-like keys rather than trust one layout. Used by the intake (to store an
 * idle event without a job) and by tracking (to find the orders to look at).
 */
import { z } from "zod";

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

/**
 * Why a service ORDER/ORDERSPLIT/LOGISTIC event gives tracking nothing to do, or null when it
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

/** Does an ORDER event hint at a parcel (a tracking number, or a shipped/delivered status)? */
export function mentionsShipping(params: unknown): boolean {
  const p = (typeof params === "object" && params ? params : {}) as Record<string, unknown>;
  const tn = p.trackNumber ?? p.trackingNumber;
  const status = typeof p.orderStatus === "string" ? p.orderStatus.toUpperCase() : "";
  return (
    (typeof tn === "string" && tn.trim() !== "") ||
    ["SHIPPED", "DELIVERED", "CANCELLED", "CLOSED"].includes(status) ||
    !status
  );
}
