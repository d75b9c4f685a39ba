/** One order in full for the order page: its lines and what the service charges for each, shipments, payment, timeline. */
import type { PrismaClient, Shipment, ShopOrderLine, TimelineEntry } from "@prisma/client";
import type { SerializeFrom } from "@remix-run/node";
import { z } from "zod";
import { orderName } from "../orders/shop-time";
import { safeUrl } from "../page-kit/safe-url";
import { marginUsd } from "./orders.server";
import { shopTimeZone } from "../orders/shop-zone.server";

/** The order as the order page's cards receive it (the loader's JSON: dates are ISO strings). */
export type OrderDetail = NonNullable<SerializeFrom<typeof orderDetail>>;

export async function orderDetail(db: PrismaClient, shop: string, id: string) {
  const o = await db.shopOrder.findFirst({
    where: { id, shopDomain: shop },
    include: {
      lines: { orderBy: { shopifyLineItemId: "asc" } },
      shipments: { orderBy: { createdAt: "asc" } },
      timeline: { orderBy: [{ at: "asc" }, { id: "asc" }] },
    },
  });
  if (!o) return null;
  const batch = o.paymentBatchId
    ? await db.paymentBatch.findUnique({ where: { id: o.paymentBatchId } })
    : null;
  // Held before placing, the order has no lines of its own yet: show the shop's.
  const pendingLines = o.lines.length === 0 ? await webhookLines(db, shop, o.shopifyOrderId) : [];
  const lastError = [...o.timeline].reverse().find((t) => t.outcome === "error");
  const costs = await serviceLineCosts(db, o);
  return {
    id: o.id,
    name: orderName(o),
    shopifyOrderId: o.shopifyOrderId,
    /** The order in the Shopify admin (it redirects to the store's admin). */
    shopifyAdminUrl: `https://${shop}/admin/orders/${encodeURIComponent(o.shopifyOrderId)}`,
    customerName: o.customerName,
    customerEmail: o.customerEmail,
    shopTotal: o.shopTotal,
    margin: marginUsd(o),
    paymentBatchId: o.paymentBatchId,
    pendingLines,
    lastError: lastError
      ? {
          message: lastError.message,
          errorCode: lastError.errorCode,
          at: lastError.at.toISOString(),
        }
      : null,
    state: o.state,
    reasonCode: o.reasonCode,
    reasonMessage: o.reasonMessage,
    flag: o.flag,
    placeAfter: o.placeAfter?.toISOString() ?? null,
    timeZone: await shopTimeZone(db, shop),
    orderNumber: o.orderNumber,
    svcOrderId: o.svcOrderId,
    isSandbox: o.isSandbox,
    shipmentOrderId: o.shipmentOrderId,
    payId: o.payId,
    amount: o.amount,
    currency: o.currency,
    logisticName: o.logisticName,
    shippingCost: o.shippingCost,
    fxRate: o.fxRate,
    fxSource: o.fxSource,
    payRequestedAt: o.payRequestedAt?.toISOString() ?? null,
    createdAt: o.createdAt.toISOString(),
    placedAt: o.placedAt?.toISOString() ?? null,
    paidAt: o.paidAt?.toISOString() ?? null,
    fulfilledAt: o.fulfilledAt?.toISOString() ?? null,
    deliveredAt: o.deliveredAt?.toISOString() ?? null,
    cancelledAt: o.cancelledAt?.toISOString() ?? null,
    payment: batch
      ? {
          id: batch.id,
          state: batch.state,
          amount: batch.amount,
          error: batch.error,
          paidAt: batch.paidAt?.toISOString() ?? null,
        }
      : null,
    lines: o.lines.map((l) => lineView(l, costs.get(l.id) ?? null)),
    shipments: o.shipments.map(shipmentView),
    timeline: o.timeline.map(timelineView),
  };
}

function lineView(l: ShopOrderLine, serviceCost: { unit: string | null; total: string } | null) {
  return {
    id: l.id,
    title: l.title,
    variantTitle: l.variantTitle,
    sku: l.sku,
    image: safeUrl(l.image),
    quantity: l.quantity,
    /** The shop's selling price (in the shop's currency), and in USD as sent to the service. */
    unitPrice: l.unitPrice,
    unitPriceUsd: l.unitPriceUsd,
    /** What the service charges for the line (USD; per unit when known): never the shop's price. */
    serviceCost,
    svcVid: l.svcVid,
    fulfilledQuantity: l.fulfilledQuantity,
  };
}

function shipmentView(s: Shipment) {
  return {
    id: s.id,
    svcOrderId: s.svcOrderId,
    trackNumber: s.trackNumber,
    trackingUrl: safeUrl(s.trackingUrl),
    logisticName: s.logisticName,
    written: Boolean(s.shopifyFulfillmentId),
    deliveredAt: s.deliveredAt?.toISOString() ?? null,
  };
}

function timelineView(t: TimelineEntry) {
  return {
    id: String(t.id),
    at: t.at.toISOString(),
    step: t.step,
    outcome: t.outcome,
    requestId: t.requestId,
    errorCode: t.errorCode,
    message: t.message,
  };
}

/**
 * What the service charges for each line (USD), by line id: the catalog's price of the line's
 * variant (as the service quoted it when the app last read the product) times the quantity;
 * for an order of one line whose catalog price is not known, the service order's own amount
 * less its quoted shipping. Lines with neither are left out (shown as not known, never as the
 * shop's price).
 */
async function serviceLineCosts(
  db: PrismaClient,
  o: {
    amount: string | null;
    shippingCost: string | null;
    lines: Array<{ id: string; svcVid: string | null; quantity: number }>;
  },
): Promise<Map<string, { unit: string | null; total: string }>> {
  const vids = [...new Set(o.lines.flatMap((l) => (l.svcVid ? [l.svcVid] : [])))];
  const known = vids.length
    ? await db.catalogVariant.findMany({
        where: { vid: { in: vids } },
        select: { vid: true, costUsd: true },
      })
    : [];
  const byVid = new Map(
    known.flatMap((v) =>
      v.costUsd !== null ? [[v.vid, cents(v.costUsd.toFixed(2))] as const] : [],
    ),
  );
  const out = new Map<string, { unit: string | null; total: string }>();
  for (const l of o.lines) {
    const unit = l.svcVid ? byVid.get(l.svcVid) : undefined;
    if (unit !== undefined) out.set(l.id, { unit: usd(unit), total: usd(unit * l.quantity) });
  }
  const only = o.lines.length === 1 ? o.lines[0]! : undefined;
  if (only && !out.has(only.id) && o.amount && o.shippingCost) {
    const goods = cents(o.amount) - cents(o.shippingCost);
    if (Number.isFinite(goods) && goods > 0) {
      const even = only.quantity > 0 && goods % only.quantity === 0;
      out.set(only.id, { unit: even ? usd(goods / only.quantity) : null, total: usd(goods) });
    }
  }
  return out;
}

const cents = (v: string) => Math.round(Number(v) * 100);
const usd = (c: number) => (c / 100).toFixed(2);

const webhookLine = z.object({
  title: z.string().catch(""),
  variant_title: z.string().nullish().catch(null),
  sku: z.string().nullish().catch(null),
  quantity: z.coerce.number().catch(0),
  price: z.string().nullish().catch(null),
});

/** The line items of the order's latest webhook (what the shop sent), at most 100. */
async function webhookLines(db: PrismaClient, shop: string, shopifyOrderId: string) {
  const rows = await db.$queryRaw<{ items: unknown }[]>`
    SELECT "payload"->'line_items' AS "items" FROM "WebhookEvent"
    WHERE "shopDomain" = ${shop} AND "source" = 'shopify' AND "topic" LIKE 'orders/%'
      AND "payload"->>'id' = ${shopifyOrderId}
    ORDER BY "id" DESC LIMIT 1`;
  const items = Array.isArray(rows[0]?.items) ? (rows[0].items as unknown[]) : [];
  return items.slice(0, 100).flatMap((i) => {
    const l = webhookLine.safeParse(i);
    return l.success ? [l.data] : [];
  });
}
