/**
 * The track job: fetches the order's service orders (or takes the records a hinted fetch
 * carried), applies each record to the shop (apply.server.ts), flags an order the service ended
 * after payment, and settles SHIPPED → FULFILLED → DELIVERED from the lines and parcels. A
 * delivered parcel's proof of delivery is copied into the app's archive.
 */
import { z } from "zod";
import { queueArchive } from "../../archive/archive.server";
import { addLogContext } from "../../log-context.server";
import type { FulfilmentDeps } from "../../orders/deps.server";
import { optionsOf } from "../../orders/deps.server";
import type { OrderState } from "../../orders/states";
import { addTimeline, errorFields } from "../../orders/timeline.server";
import { transition, type MoveColumns } from "../../orders/transition.server";
import { settingsForJob } from "../../settings.server";
import { orderRecordSchema, type OrderRecord } from "../../svc/order-shapes";
import { flagAfterPayment, recordFlag } from "../after-payment.server";
import { applyRecord } from "./apply.server";
import { type OrderWithAll, recordsOf, TRACKABLE } from "./records";

export interface TrackResult {
  records: number;
  fulfilled: number;
  updated: number;
  delivered: number;
  state?: string;
}

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
  const mine = recordsOf(order, known, records);
  result.records = mine.length;
  if (mine.length === 0) return result;
  const settings = await settingsForJob(db, order.shopDomain);
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
  result.state = await settleState(deps, order);
  if (result.delivered > 0 && optionsOf(deps).proofOfDelivery) {
    await proofOfDelivery(deps, order.id, order.svcAccountId);
  }
  return result;
}

/**
 * SHIPPED → FULFILLED → DELIVERED from the lines and parcels, as this job read and wrote them
 * (applyRecord keeps the order's lines and parcels current). The move is a compare-and-set on
 * the state the job read: a change made meanwhile by anyone else (a cancel) is not overwritten.
 */
async function settleState(deps: FulfilmentDeps, o: OrderWithAll): Promise<string | undefined> {
  const db = deps.prisma;
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
  const moved = await transition(db, o.id, {
    to: state as OrderState,
    from: [o.state as OrderState],
    set,
    timeline: null,
  });
  // Moved meanwhile by someone else: what it is now, this job does not know.
  return moved.length > 0 ? state : undefined;
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
