/**
 * An address edited in Shopify after the order went to the service (orders/updated), before it
 * is paid: the service still has the old one. The order is flagged with the repair it needs
 * ("Place again with the Shopify address"), once per change, on the timeline. Orders not yet
 * at the service need nothing: placing reads the shop's address.
 */
import type { ShopOrder as OrderRow } from "@prisma/client";
import type { Db } from "../db/types";
import { addTimeline } from "../orders/timeline.server";
import { restAddressFingerprint } from "./recipient";

export const ADDRESS_CHANGED_MESSAGE =
  "The shipping address was changed in Shopify after the order was sent to the service, which still has the old one. Repair → Place again with the Shopify address (a new service order; the old one is left unpaid), or keep it as it is.";

export async function noteAddressChange(
  db: Db,
  order: Pick<OrderRow, "id" | "state" | "svcOrderId" | "placedAt" | "shippedTo" | "flag">,
  payload: unknown,
): Promise<boolean> {
  const placed = Boolean(order.svcOrderId || order.placedAt);
  if (!placed || !order.shippedTo || !["CREATED", "FAILED", "HELD"].includes(order.state)) {
    return false;
  }
  const address = (payload as { shipping_address?: unknown } | null)?.shipping_address;
  if (!address || typeof address !== "object") return false;
  const now = restAddressFingerprint(address as Record<string, unknown>);
  if (now === order.shippedTo || order.flag === "address_changed") return false;
  await db.shopOrder.update({
    where: { id: order.id },
    data: { flag: "address_changed", reasonMessage: ADDRESS_CHANGED_MESSAGE },
  });
  await addTimeline(db, order.id, {
    step: "repair",
    outcome: "held",
    errorCode: "address_changed",
    message: ADDRESS_CHANGED_MESSAGE,
  });
  return true;
}
