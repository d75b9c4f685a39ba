/** What the orders pages show: lists by state with reasons, one order in full, and its actions. */
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { describeSvcError, clientForShop } from "./account.server";

import { ORDER_STATES, type OrderStateName, PROBLEM_STATES } from "./order-states";

export { ORDER_STATES, PROBLEM_STATES, type OrderStateName };

const listQuery = z.object({
  state: z.enum(ORDER_STATES).optional().catch(undefined),
  problems: z
    .enum(["1"])
    .optional()
    .catch(undefined)
    .transform((v) => v === "1"),
  page: z.coerce.number().int().min(1).max(10_000).catch(1),
});

const PAGE_SIZE = 25;

export async function listOrders(db: PrismaClient, shop: string, search: URLSearchParams) {
  const q = listQuery.parse(Object.fromEntries(search));
  const where = {
    shopDomain: shop,
    ...(q.state ? { state: q.state } : {}),
    ...(q.problems ? { OR: [{ state: { in: PROBLEM_STATES } }, { flag: { not: null } }] } : {}),
  };
  const [rows, total, counts] = await Promise.all([
    db.shopOrder.findMany({
      where,
      orderBy: { createdAt: "desc" },
      skip: (q.page - 1) * PAGE_SIZE,
      take: PAGE_SIZE,
      include: { shipments: { select: { trackNumber: true }, take: 1 } },
    }),
    db.shopOrder.count({ where }),
    stateCounts(db, shop),
  ]);
  return {
    filter: { state: q.state ?? null, problems: q.problems, page: q.page },
    total,
    pages: Math.max(1, Math.ceil(total / PAGE_SIZE)),
    counts,
    orders: rows.map((o) => ({
      id: o.id,
      name: o.shopifyOrderName ?? `#${o.shopifyOrderId}`,
      state: o.state,
      reasonCode: o.reasonCode,
      reasonMessage: o.reasonMessage,
      flag: o.flag,
      amount: o.amount,
      currency: o.currency,
      svcOrderId: o.svcOrderId,
      isSandbox: o.isSandbox,
      trackNumber: o.shipments[0]?.trackNumber ?? null,
      createdAt: o.createdAt.toISOString(),
      updatedAt: o.updatedAt.toISOString(),
    })),
  };
}

export async function stateCounts(db: PrismaClient, shop: string) {
  const grouped = await db.shopOrder.groupBy({
    by: ["state"],
    where: { shopDomain: shop },
    _count: { _all: true },
  });
  const counts = Object.fromEntries(ORDER_STATES.map((s) => [s, 0])) as Record<
    OrderStateName,
    number
  >;
  for (const g of grouped) {
    if (g.state in counts) counts[g.state as OrderStateName] = g._count._all;
  }
  return counts;
}

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
  return {
    id: o.id,
    name: o.shopifyOrderName ?? `#${o.shopifyOrderId}`,
    shopifyOrderId: o.shopifyOrderId,
    state: o.state,
    reasonCode: o.reasonCode,
    reasonMessage: o.reasonMessage,
    flag: o.flag,
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
    lines: o.lines.map((l) => ({
      id: l.id,
      title: l.title,
      variantTitle: l.variantTitle,
      sku: l.sku,
      quantity: l.quantity,
      unitPrice: l.unitPrice,
      unitPriceUsd: l.unitPriceUsd,
      svcVid: l.svcVid,
      fulfilledQuantity: l.fulfilledQuantity,
    })),
    shipments: o.shipments.map((s) => ({
      id: s.id,
      svcOrderId: s.svcOrderId,
      trackNumber: s.trackNumber,
      trackingUrl: safeUrl(s.trackingUrl),
      logisticName: s.logisticName,
      written: Boolean(s.shopifyFulfillmentId),
      deliveredAt: s.deliveredAt?.toISOString() ?? null,
    })),
    timeline: o.timeline.map((t) => ({
      id: String(t.id),
      at: t.at.toISOString(),
      step: t.step,
      outcome: t.outcome,
      requestId: t.requestId,
      errorCode: t.errorCode,
      message: t.message,
    })),
  };
}

/** Only http(s) links reach an href. */
export function safeUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === "https:" || u.protocol === "http:" ? u.href : null;
  } catch {
    return null;
  }
}

/** Proof-of-delivery links of a delivered order, asked from the service (best effort). */
export async function proofOfDelivery(
  db: PrismaClient,
  shop: string,
  svcOrderIds: string[],
): Promise<{ links: string[]; error: string | null }> {
  if (svcOrderIds.length === 0) return { links: [], error: null };
  try {
    const client = await clientForShop(db, shop);
    if (!client) return { links: [], error: "Not connected" };
    const proofs = await client.orders.getProofOfDelivery(svcOrderIds.slice(0, 50));
    const links = proofs.flatMap((p) => p.proofOfDeliveryList ?? []).map(safeUrl);
    return { links: links.filter((l): l is string => l !== null), error: null };
  } catch (error) {
    return { links: [], error: describeSvcError(error) };
  }
}
