/**
 * What tracking shares: the states whose orders are tracked, and which of the service's order
 * records belong to a shop order (its own id, a split child's id, or its order number).
 */
import type { Shipment, ShopOrder as OrderRow, ShopOrderLine } from "@prisma/client";
import type { OrderRecord } from "../../svc/order-shapes";

/** A shop order with its lines and parcels, as the track job reads it. */
export type OrderWithAll = OrderRow & { lines: ShopOrderLine[]; shipments: Shipment[] };

export const TRACKABLE = ["PAID", "SHIPPED", "FULFILLED", "DELIVERED"];

/** The records of `records` that belong to the order whose known service order ids are `known`. */
export function recordsOf(
  order: { orderNumber: string },
  known: Set<string | null>,
  records: OrderRecord[],
): OrderRecord[] {
  return records.filter(
    (r) =>
      (r.orderId && known.has(r.orderId)) ||
      (r.svcOrderId && known.has(r.svcOrderId)) ||
      r.orderNum === order.orderNumber ||
      r.orderNumber === order.orderNumber ||
      r.productList.some((l) => l.orderNumber === order.orderNumber),
  );
}
