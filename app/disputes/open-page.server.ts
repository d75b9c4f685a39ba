/**
 * What the open-a-dispute page reads: the shop's order, and the form's options from the service
 * (its lines, reasons and what can be asked), or why the form cannot be shown.
 */
import type { PrismaClient } from "@prisma/client";
import { orderName } from "../orders/shop-time";
import { clientForShop } from "../svc-account/account.server";
import { DisputeInputError, disputeErrorText } from "./forms.server";
import { openOptions } from "./open.server";

/** The shop's order by id, with what tells whether it was paid at the service. */
function paidOrder(db: PrismaClient, shop: string, id: string) {
  return db.shopOrder.findFirst({
    where: { id, shopDomain: shop },
    select: {
      id: true,
      shopifyOrderName: true,
      shopifyOrderId: true,
      svcOrderId: true,
      paidAt: true,
    },
  });
}

/**
 * The order and the form's options; the options are null, with the reason in words, when the
 * order was not paid at the service, no account is connected or the service refuses. Null when
 * the shop has no such order.
 */
export async function openDisputePage(db: PrismaClient, shop: string, orderId: string) {
  const order = await paidOrder(db, shop, orderId);
  if (!order) return null;
  const name = orderName(order);
  if (!order.svcOrderId || !order.paidAt)
    return {
      order: { id: order.id, name },
      options: null,
      error: "Disputes can be opened on orders paid at the service only.",
    };
  try {
    const client = await clientForShop(db, shop);
    if (!client) throw new DisputeInputError("Connect a service account first (Settings).");
    const options = await openOptions(client, order.svcOrderId);
    return { order: { id: order.id, name }, options, error: null };
  } catch (error) {
    return {
      order: { id: order.id, name },
      options: null,
      error: disputeErrorText(error, true),
    };
  }
}
