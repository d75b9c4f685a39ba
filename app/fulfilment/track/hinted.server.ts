/**
 * The hints of one account, gathered by scheduleTrackHints: the hinted orders are fetched with
 * one getOrderDetailBatch per ≤ queryBatchSize ids, and each order with news gets a track job
 * carrying its records (one at a time per order; no second fetch).
 */
import type { Prisma } from "@prisma/client";
import type { FulfilmentDeps } from "../../orders/deps.server";
import { optionsOf } from "../../orders/deps.server";
import { scheduleTrack } from "../../orders/schedule.server";
import type { OrderRecord } from "../../svc/order-shapes";
import { recordFlag } from "../after-payment.server";
import { recordsOf, TRACKABLE } from "./records";

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
      const mine = recordsOf(o, known, records);
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
