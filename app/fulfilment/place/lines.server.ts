/**
 * The order's lines as the shop has them now: saved with their catalog connection (a backup
 * supplier when the first is out of stock), and the unconnected lines the merchant ships
 * themselves taken out of the order.
 */
import type { ShopOrder as OrderRow, ShopOrderLine as LineRow } from "@prisma/client";
import { chooseSuppliers } from "../../catalog/suppliers.server";
import type { Db } from "../../jobs/queue.server";
import type { FulfilmentDeps } from "../../orders/deps.server";
import { addTimeline } from "../../orders/timeline.server";
import type {
  ShopOrder as ShopifyOrder,
  ShopOrderLine as ShopifyLine,
} from "../../shop/gateway.server";
import { toMoney } from "../../svc/decimal";
import { numericId } from "../../orders/model";

/** "title (variant); …", cut to 300 characters, for a timeline entry or a hold. */
export function lineTitles(lines: { title: string; variantTitle: string | null }[]): string {
  return lines
    .map((l) => l.title + (l.variantTitle ? ` (${l.variantTitle})` : ""))
    .join("; ")
    .slice(0, 300);
}

/**
 * Lines without a connection that the merchant ships (the setting "send the connected lines
 * only"): they are not the service's, so they leave the order's lines (its tracking then closes
 * it with the service's lines), and the timeline says which they are.
 */
export async function leaveToMerchant(db: Db, orderId: string, lines: LineRow[]): Promise<void> {
  await db.shopOrderLine.deleteMany({ where: { id: { in: lines.map((l) => l.id) } } });
  await addTimeline(db, orderId, {
    step: "create",
    outcome: "info",
    message: `${lines.length} line(s) are not sent to the service: they are not connected to a catalog product, and Settings say to send the connected lines only, so you ship these yourself: ${lineTitles(lines)}.`,
  });
}

export async function saveLines(
  db: FulfilmentDeps["prisma"],
  order: OrderRow,
  shopOrder: ShopifyOrder,
  shippable: ShopifyLine[],
  countries: string[],
): Promise<LineRow[]> {
  const variantIds = shippable.flatMap((l) =>
    l.variantId ? [l.variantId, numericId(l.variantId) ?? l.variantId] : [],
  );
  const connections = await db.productConnection.findMany({
    where: { shopDomain: order.shopDomain, shopifyVariantId: { in: variantIds } },
  });
  const vidOf = (variantId: string | null) => {
    if (!variantId) return null;
    const n = numericId(variantId);
    return (
      connections.find((c) => c.shopifyVariantId === variantId || c.shopifyVariantId === n)
        ?.svcVid ?? null
    );
  };
  // A line whose first supplier is out of stock (or removed) goes to the first backup with stock.
  const picks = await chooseSuppliers(
    db,
    order.shopDomain,
    shippable.flatMap((l) => {
      const primaryVid = vidOf(l.variantId);
      const variantId = numericId(l.variantId);
      return primaryVid && variantId
        ? [{ variantId, primaryVid, quantity: l.currentQuantity }]
        : [];
    }),
    countries,
  );
  const switched = shippable.flatMap((l) => {
    const pick = picks.get(numericId(l.variantId) ?? "");
    return pick?.passedOver ? [{ line: l, pick }] : [];
  });
  const rows = shippable.map((l) => ({
    shopifyLineItemId: numericId(l.id) ?? l.id,
    shopifyProductId: numericId(l.productId) ?? null,
    shopifyVariantId: numericId(l.variantId) ?? null,
    sku: l.sku,
    title: l.title,
    variantTitle: l.variantTitle,
    variantOptions: l.options.map((o) => o.value).join("-") || null,
    image: l.imageUrl,
    quantity: l.currentQuantity,
    unitPrice: toMoney(l.unitPrice.amount),
    requiresShipping: true,
    svcVid: picks.get(numericId(l.variantId) ?? "")?.vid ?? vidOf(l.variantId),
  }));
  await db.$transaction(async (tx) => {
    // The choice is told once (not again when the placement is retried).
    const before = switched.length
      ? await tx.shopOrderLine.findMany({
          where: { orderId: order.id },
          select: { shopifyLineItemId: true, svcVid: true },
        })
      : [];
    for (const r of rows) {
      await tx.shopOrderLine.upsert({
        where: {
          orderId_shopifyLineItemId: { orderId: order.id, shopifyLineItemId: r.shopifyLineItemId },
        },
        create: { orderId: order.id, ...r },
        update: r,
      });
    }
    await tx.shopOrderLine.deleteMany({
      where: {
        orderId: order.id,
        shopifyLineItemId: { notIn: rows.map((r) => r.shopifyLineItemId) },
      },
    });
    if (shopOrder.name && shopOrder.name !== order.shopifyOrderName) {
      await tx.shopOrder.update({
        where: { id: order.id },
        data: { shopifyOrderName: shopOrder.name },
      });
    }
    for (const { line, pick } of switched) {
      const id = numericId(line.id) ?? line.id;
      if (before.some((b) => b.shopifyLineItemId === id && b.svcVid === pick.vid)) continue;
      await addTimeline(tx, order.id, {
        step: "create",
        outcome: "info",
        message:
          `"${line.title}" goes to supplier ${pick.position + 1} (catalog variant ${pick.vid}): ` +
          `the first supplier (${pick.passedOver!.vid}) is ${pick.passedOver!.reason}.`,
      });
    }
  });
  return db.shopOrderLine.findMany({
    where: { orderId: order.id },
    orderBy: { shopifyLineItemId: "asc" },
  });
}
