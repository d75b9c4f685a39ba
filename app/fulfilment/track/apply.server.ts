/**
 * One service order record applied to its shop order: the parcel is remembered as a Shipment
 * (a split child without tracking too, so the reconciler asks for it), its tracking is written
 * to the shop once (shop-write.server.ts) or updated when it changed, and a delivered parcel is
 * marked. When a service order has a tracking number, exactly the shop lines of that service
 * order are fulfilled.
 */
import type { PrismaClient, Shipment } from "@prisma/client";
import type { FulfilmentDeps } from "../../orders/deps.server";
import { addTimeline } from "../../orders/timeline.server";
import { parseFulfillmentGid } from "../../shop/ids";
import type { OrderRecord } from "../../svc/order-shapes";
import { type Gateway, type Tracking, type WriteLine, writeFulfilment } from "./shop-write.server";
import type { OrderWithAll } from "./records";

/** The shop lines (and quantities) a service order carries. */
function linesOf(order: OrderWithAll, rec: OrderRecord, single: boolean): WriteLine[] {
  const byShopLine = new Map(order.lines.map((l) => [l.shopifyLineItemId, l]));
  const out = new Map<string, number>();
  for (const p of rec.productList) {
    const id = p.storeLineItemId ?? undefined;
    if (!id || !byShopLine.has(id)) continue;
    out.set(id, (out.get(id) ?? 0) + (p.quantity ?? byShopLine.get(id)!.quantity));
  }
  if (out.size === 0 && single) {
    for (const l of order.lines) out.set(l.shopifyLineItemId, l.quantity);
  }
  return [...out].map(([lineItemId, quantity]) => ({ lineItemId, quantity }));
}

export async function applyRecord(
  deps: FulfilmentDeps,
  order: OrderWithAll,
  rec: OrderRecord,
  opts: { notifyCustomer: boolean; single: boolean },
): Promise<{ fulfilled: number; updated: number; delivered: number }> {
  const db = deps.prisma;
  const out = { fulfilled: 0, updated: 0, delivered: 0 };
  const svcOrderId = rec.orderId ?? rec.svcOrderId;
  const trackNumber = rec.trackNumber?.trim();
  if (!svcOrderId) return out;
  if (!trackNumber) {
    // A split child without tracking yet: remember it so the reconciler asks for it.
    await rememberSplitChild(db, order, rec, svcOrderId);
    return out;
  }
  const lines = linesOf(order, rec, opts.single);
  const company = rec.trackingProvider || rec.logisticName || null;
  const tracking: Tracking = { number: trackNumber, url: rec.trackingUrl ?? null, company };
  let shipment = await recordShipment(db, order, svcOrderId, tracking, lines);

  if (order.flag === "fulfilment_conflict") return out;
  const gateway = await deps.shopFor(order.shopDomain);
  if (!shipment.shopifyFulfillmentId) {
    const written = await writeFulfilment(deps, gateway, order, shipment, {
      tracking,
      lines,
      notifyCustomer: opts.notifyCustomer,
    });
    if (!written) return out;
    shipment = keep(order, written);
    // As the write counted them (recordWritten): the order's state is settled from these.
    const counted = new Map(lines.map((l) => [l.lineItemId, l.quantity]));
    for (const line of order.lines)
      line.fulfilledQuantity += counted.get(line.shopifyLineItemId) ?? 0;
    out.fulfilled++;
  } else if (shipment.writtenTrackNumber !== trackNumber) {
    const ids = shipment.shopifyFulfillmentId;
    shipment = keep(
      order,
      await rewriteTracking(db, gateway, order.id, { shipment, ids }, tracking, opts),
    );
    out.updated++;
  }
  if (rec.orderStatus === "DELIVERED" && !shipment.deliveredAt) {
    keep(
      order,
      await db.shipment.update({
        where: { id: shipment.id },
        data: { deliveredAt: new Date(deps.clock.now()) },
      }),
    );
    await addTimeline(db, order.id, {
      step: "delivered",
      outcome: "ok",
      message: `Parcel ${trackNumber} delivered.`,
    });
    out.delivered++;
  }
  return out;
}

async function rememberSplitChild(
  db: PrismaClient,
  order: OrderWithAll,
  rec: OrderRecord,
  svcOrderId: string,
) {
  if (order.shipments.some((s) => s.svcOrderId === svcOrderId)) return;
  if (svcOrderId === order.svcOrderId) return;
  const shipment = await db.shipment.create({
    data: { orderId: order.id, svcOrderId, lines: linesOf(order, rec, false) },
  });
  order.shipments.push(shipment);
}

/** The parcel's Shipment row, created at its first tracking number and kept up to date. */
async function recordShipment(
  db: PrismaClient,
  order: OrderWithAll,
  svcOrderId: string,
  tracking: Tracking,
  lines: WriteLine[],
): Promise<Shipment> {
  const { number: trackNumber, url: trackingUrl, company } = tracking;
  const shipment = order.shipments.find((s) => s.svcOrderId === svcOrderId);
  if (!shipment) {
    const created = await db.shipment.create({
      data: {
        orderId: order.id,
        svcOrderId,
        trackNumber,
        trackingUrl,
        logisticName: company,
        lines,
      },
    });
    order.shipments.push(created);
    await addTimeline(db, order.id, {
      step: "shipped",
      outcome: "info",
      message: `Shipped by the service (${svcOrderId}): ${company ?? "carrier"} ${trackNumber}.`,
    });
    return created;
  }
  if (shipment.trackNumber === trackNumber && shipment.trackingUrl === trackingUrl) return shipment;
  return keep(
    order,
    await db.shipment.update({
      where: { id: shipment.id },
      data: { trackNumber, trackingUrl, logisticName: company, lines },
    }),
  );
}

/**
 * The parcel as written, in the order's own list too: the track job settles the order's state
 * from what it holds (track-order.server.ts), not from a second read.
 */
function keep(order: OrderWithAll, shipment: Shipment): Shipment {
  order.shipments = order.shipments.map((s) => (s.id === shipment.id ? shipment : s));
  return shipment;
}

/** The parcel's tracking number changed after it was written: every fulfilment is updated. */
async function rewriteTracking(
  db: PrismaClient,
  gateway: Gateway,
  orderId: string,
  { shipment, ids }: { shipment: Shipment; ids: string },
  tracking: Tracking,
  opts: { notifyCustomer: boolean },
): Promise<Shipment> {
  for (const id of ids.split(",")) {
    await gateway.updateTracking(parseFulfillmentGid(id), tracking, opts.notifyCustomer);
  }
  const before = shipment.writtenTrackNumber;
  const updated = await db.shipment.update({
    where: { id: shipment.id },
    data: { writtenTrackNumber: tracking.number },
  });
  await addTimeline(db, orderId, {
    step: "tracking",
    outcome: "ok",
    // Stryker disable next-line StringLiteral: message
    message: `Tracking changed from ${before ?? "none"} to ${tracking.number}; the shop's fulfilment is updated.`,
  });
  return updated;
}
