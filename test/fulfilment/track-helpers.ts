/**
 * Shared by the track-* and reconcile-* tests: paid orders made the real way (shop webhook →
 * placed → paid at the service simulator), the track jobs waiting for an order, and a record of
 * the service as getOrderDetailBatch gives it.
 */
import type { FulfilmentDeps } from "../../app/orders/deps.server";
import { JOB } from "../../app/orders/schedule.server";
import { updateSettings } from "../../app/settings.server";
import type { OrderRecord } from "../../app/svc/order-shapes";
import type { SimOrder } from "../sim/service/index";
import { type Harness, prisma } from "./harness";

export interface PaidOrder {
  id: string;
  svcOrderId: string;
  orderNumber: string;
  shopOrderId: string;
  legacyId: number;
  lineIds: string[];
}

type Lines = Parameters<Harness["order"]>[0];
type Placed = Awaited<ReturnType<Harness["order"]>>;

/**
 * Orders placed at the service the real way (shop webhook → place job → createOrderV3), then
 * marked paid at both ends without a payment batch (paying is not what these tests are about,
 * and a pay run per order would make every mutant slow). The service's webhooks are dropped
 * from here on: only what a test runs acts.
 */
export async function placeAndMarkPaid(
  h: Harness,
  orders: { lines: Lines; fulfillAt?: string }[],
): Promise<PaidOrder[]> {
  h.svc.setFaults({ dropWebhook: 1 });
  await updateSettings(prisma, h.shopDomain, { autoPay: false });
  const placed: Placed[] = [];
  for (const o of orders) placed.push(await h.order(o.lines, { fulfillAt: o.fulfillAt }));
  while ((await h.worker.drain()) > 0);
  await updateSettings(prisma, h.shopDomain, { autoPay: true });
  const out: PaidOrder[] = [];
  for (const p of placed) {
    const row = await h.row(p.legacyId);
    if (row.state !== "CREATED" || !row.svcOrderId) throw new Error(`not placed: ${row.state}`);
    await prisma.shopOrder.update({
      where: { id: row.id },
      data: { state: "PAID", paidAt: new Date() },
    });
    const atService = h.svc.order(row.svcOrderId)!;
    atService.paid = true;
    atService.status = "UNSHIPPED";
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

/** `count` paid orders of one line each (quantity 2). */
export async function paidOrders(h: Harness, count: number, title: string): Promise<PaidOrder[]> {
  const orders = [];
  for (let i = 0; i < count; i++) {
    const product = await h.connectedProduct(`${title} ${i}`, "5.00");
    orders.push({ lines: [{ product, quantity: 2 }] });
  }
  return placeAndMarkPaid(h, orders);
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

/**
 * A paid order of two lines (of these quantities) whose service order the service split in
 * two: the second line goes into a child order of its own, not yet shipped.
 */
export async function splitPaidOrder(
  h: Harness,
  title: string,
  quantities: [number, number] = [1, 1],
): Promise<{ o: PaidOrder; childId: string; parent: SimOrder }> {
  const a = await h.connectedProduct(`${title} A`, "5.00");
  const b = await h.connectedProduct(`${title} B`, "5.00");
  const [o] = await placeAndMarkPaid(h, [
    {
      lines: [
        { product: a, quantity: quantities[0] },
        { product: b, quantity: quantities[1] },
      ],
    },
  ]);
  const parent = h.svc.order(o!.svcOrderId)!;
  const childId = `${parent.internalId}S`;
  const child: SimOrder = {
    ...structuredClone(parent),
    internalId: childId,
    orderId: childId,
    svcOrderCode: `SC${childId.slice(2)}`,
    lines: parent.lines.filter((l) => l.storeLineItemId === o!.lineIds[1]),
    trackNumber: undefined,
  };
  parent.lines = parent.lines.filter((l) => l.storeLineItemId === o!.lineIds[0]);
  h.svc.state.orders.set(childId, child);
  return { o: o!, childId, parent };
}

/**
 * The pipeline's dependencies with a shop that, as it takes a fulfilment, has the order moved
 * by someone else meanwhile (cancelled, say).
 */
export function cancelledWhileWriting(h: Harness, orderId: string): FulfilmentDeps {
  return {
    ...h.deps,
    shopFor: async (domain: string) => {
      const gateway = await h.deps.shopFor(domain);
      return {
        ...gateway,
        createFulfillment: async (...args: Parameters<typeof gateway.createFulfillment>) => {
          const created = await gateway.createFulfillment(...args);
          await prisma.shopOrder.update({ where: { id: orderId }, data: { state: "CANCELLED" } });
          return created;
        },
      };
    },
  };
}
