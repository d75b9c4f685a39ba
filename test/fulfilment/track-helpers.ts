/**
 * Shared by the track-* and reconcile-* tests: paid orders made the real way (shop webhook →
 * placed → paid at the service simulator), the track jobs waiting for an order, and a record of
 * the service as getOrderDetailBatch gives it.
 */
import { JOB } from "../../app/fulfilment/schedule.server";
import type { OrderRecord } from "../../app/svc/orders.server";
import { type Harness, prisma } from "./harness";

export interface PaidOrder {
  id: string;
  svcOrderId: string;
  orderNumber: string;
  shopOrderId: string;
  legacyId: number;
  lineIds: string[];
}

/** `count` orders of one line each (quantity 2), placed together and settled until PAID. */
export async function paidOrders(h: Harness, count: number, title: string): Promise<PaidOrder[]> {
  const placed = [];
  for (let i = 0; i < count; i++) {
    const p = await h.connectedProduct(`${title} ${i}`, "5.00");
    placed.push(await h.order([{ product: p, quantity: 2 }]));
  }
  await h.settle();
  const out: PaidOrder[] = [];
  for (const p of placed) {
    const row = await h.row(p.legacyId);
    if (row.state !== "PAID" || !row.svcOrderId) throw new Error(`order not paid: ${row.state}`);
    out.push({
      id: row.id,
      svcOrderId: row.svcOrderId,
      orderNumber: row.orderNumber,
      shopOrderId: p.shopOrderId,
      legacyId: p.legacyId,
      lineIds: p.lineIds,
    });
  }
  return out;
}

/** The track jobs of an order not yet run. */
export const waitingTrackJobs = (orderId: string) =>
  prisma.job.findMany({
    where: { kind: JOB.track, state: "available", concurrencyKey: `order:${orderId}` },
  });

/** The records the service gives for these ids now. */
export async function recordsOf(h: Harness, ids: string[]): Promise<OrderRecord[]> {
  return h.client.orders.getOrderDetailBatch(ids);
}
