/** What the orders pages show: lists by state with reasons, one order in full, and its actions. */
import type { Prisma, PrismaClient } from "@prisma/client";
import { z } from "zod";
import { shopGatewayFor } from "../shop/index.server";
import { orderName, validZone } from "../orders/shop-time";
import { STATES, type OrderState, PROBLEM_STATES } from "../orders/states";

export { STATES, PROBLEM_STATES, type OrderState };

/**
 * The work queue's views: what the merchant has to do next, not the pipeline's states. An order
 * held only for the review window is "to place", not a problem.
 */
export const ORDER_VIEWS = [
  "all",
  "to_place",
  "awaiting_payment",
  "awaiting_shipment",
  "shipped",
  "completed",
  "attention",
  "cancelled",
] as const;
export type OrderView = (typeof ORDER_VIEWS)[number];

const NOT_A_PROBLEM = ["review_window"];

function viewWhere(view: OrderView): Prisma.ShopOrderWhereInput {
  switch (view) {
    case "to_place":
      return { state: { in: ["RECEIVED", "HELD"] } };
    case "awaiting_payment":
      return { state: { in: ["CREATED", "PAYING"] } };
    case "awaiting_shipment":
      return { state: "PAID" };
    case "shipped":
      return { state: { in: ["SHIPPED", "FULFILLED"] } };
    case "completed":
      return { state: "DELIVERED" };
    case "attention":
      return {
        OR: [
          { state: "FAILED" },
          // `NOT IN` drops NULLs in SQL: a hold without a reason code is a problem too.
          { state: "HELD", OR: [{ reasonCode: null }, { reasonCode: { notIn: NOT_A_PROBLEM } }] },
          { flag: { not: null } },
        ],
      };
    case "cancelled":
      return { state: "CANCELLED" };
    default:
      return {};
  }
}

export const ORDER_SORTS = ["newest", "oldest", "updated"] as const;

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)))
  .optional()
  .catch(undefined);

const listQuery = z.object({
  view: z.enum(ORDER_VIEWS).catch("all"),
  // Older links: ?problems=1 and ?state=X.
  problems: z.enum(["1"]).optional().catch(undefined),
  state: z.enum(STATES).optional().catch(undefined),
  q: z
    .string()
    .trim()
    .max(100)
    .optional()
    .catch(undefined)
    .transform((v) => v || undefined),
  from: day,
  to: day,
  sort: z.enum(ORDER_SORTS).catch("newest"),
  page: z.coerce.number().int().min(1).max(10_000).catch(1),
});

// Fifty a page, as DSers and Shopify's own list: a day's held orders fit one selection.
const PAGE_SIZE = 50;

/** Order number (with or without #), customer name or email, service order id, tracking number. */
function searchWhere(q: string): Prisma.ShopOrderWhereInput {
  const name = q.startsWith("#") ? q : `#${q}`;
  const has = { contains: q, mode: "insensitive" as const };
  return {
    OR: [
      { shopifyOrderName: { equals: name, mode: "insensitive" } },
      { shopifyOrderName: has },
      { shopifyOrderId: q },
      { customerName: has },
      { customerEmail: has },
      { svcOrderId: q },
      { orderNumber: q },
      { shipments: { some: { trackNumber: { equals: q, mode: "insensitive" } } } },
    ],
  };
}

export async function listOrders(db: PrismaClient, shop: string, search: URLSearchParams) {
  const q = listQuery.parse(Object.fromEntries(search));
  const view: OrderView = q.problems ? "attention" : q.view;
  const from = q.from ? new Date(`${q.from}T00:00:00Z`) : undefined;
  // The end date is inclusive: up to the start of the next day.
  const to = q.to ? new Date(Date.parse(`${q.to}T00:00:00Z`) + 86_400_000) : undefined;
  const where: Prisma.ShopOrderWhereInput = {
    AND: [
      { shopDomain: shop },
      viewWhere(view),
      q.state ? { state: q.state } : {},
      q.q ? searchWhere(q.q) : {},
      from || to
        ? { createdAt: { ...(from ? { gte: from } : {}), ...(to ? { lt: to } : {}) } }
        : {},
    ],
  };
  const orderBy: Prisma.ShopOrderOrderByWithRelationInput[] =
    q.sort === "oldest"
      ? [{ createdAt: "asc" }, { id: "asc" }]
      : q.sort === "updated"
        ? [{ updatedAt: "desc" }, { id: "desc" }]
        : [{ createdAt: "desc" }, { id: "desc" }];
  const [rows, total, counts, viewCounts, timeZone] = await Promise.all([
    db.shopOrder.findMany({
      where,
      orderBy,
      skip: (q.page - 1) * PAGE_SIZE,
      take: PAGE_SIZE,
      include: {
        shipments: { select: { trackNumber: true }, orderBy: { createdAt: "asc" }, take: 1 },
      },
    }),
    db.shopOrder.count({ where }),
    stateCounts(db, shop),
    viewCountsOf(db, shop),
    shopTimeZone(db, shop),
  ]);
  return {
    /** A From date after the To date: nothing can match; the page says so. */
    rangeError:
      q.from && q.to && q.from > q.to
        ? "The From date is after the To date: swap them to see the orders in between."
        : null,
    filter: {
      view,
      state: q.state ?? null,
      q: q.q ?? "",
      from: q.from ?? "",
      to: q.to ?? "",
      sort: q.sort,
      page: q.page,
    },
    total,
    timeZone,
    pages: Math.max(1, Math.ceil(total / PAGE_SIZE)),
    counts,
    viewCounts,
    orders: rows.map((o) => ({
      id: o.id,
      name: orderName(o),
      state: o.state,
      reasonCode: o.reasonCode,
      reasonMessage: o.reasonMessage,
      flag: o.flag,
      placeAfter: o.placeAfter?.toISOString() ?? null,
      amount: o.amount,
      currency: o.currency,
      shopTotal: o.shopTotal,
      customerName: o.customerName,
      customerEmail: o.customerEmail,
      logisticName: o.logisticName,
      margin: marginUsd(o),
      svcOrderId: o.svcOrderId,
      paymentBatchId: o.paymentBatchId,
      isSandbox: o.isSandbox,
      trackNumber: o.shipments[0]?.trackNumber ?? null,
      createdAt: o.createdAt.toISOString(),
      updatedAt: o.updatedAt.toISOString(),
    })),
  };
}

/**
 * The shop total in USD less the service's cost (goods and shipping), when both are known: the
 * rate recorded at placement (USD per unit of the shop's currency), or 1 for a USD shop.
 */
export function marginUsd(o: {
  shopTotal: string | null;
  amount: string | null;
  currency: string | null;
  fxRate: string | null;
}): string | null {
  if (!o.shopTotal || !o.amount) return null;
  const rate = o.currency === "USD" ? 1 : o.fxRate ? Number(o.fxRate) : NaN;
  const total = Number(o.shopTotal) * rate;
  const cost = Number(o.amount);
  if (!Number.isFinite(total) || !Number.isFinite(cost)) return null;
  return ((Math.round(total * 100) - Math.round(cost * 100)) / 100).toFixed(2);
}

/** How many orders each view holds (the tabs' counts). */
export async function viewCountsOf(
  db: PrismaClient,
  shop: string,
): Promise<Record<OrderView, number>> {
  const counts = await Promise.all(
    ORDER_VIEWS.map((v) =>
      db.shopOrder.count({ where: { AND: [{ shopDomain: shop }, viewWhere(v)] } }),
    ),
  );
  return Object.fromEntries(ORDER_VIEWS.map((v, i) => [v, counts[i]!])) as Record<
    OrderView,
    number
  >;
}

export async function stateCounts(db: PrismaClient, shop: string) {
  const grouped = await db.shopOrder.groupBy({
    by: ["state"],
    where: { shopDomain: shop },
    _count: { _all: true },
  });
  const counts = Object.fromEntries(STATES.map((s) => [s, 0])) as Record<OrderState, number>;
  for (const g of grouped) {
    if (g.state in counts) counts[g.state as OrderState] = g._count._all;
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
    lines: o.lines.map((l) => ({
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
      serviceCost: costs.get(l.id) ?? null,
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

/** Shops whose zone could not be read lately (no retry on every page load). */
const zoneMisses = new Map<string, number>();
const ZONE_RETRY_MS = 10 * 60_000;
/** A page waits at most this long for Shopify's answer (then shows UTC this time). */
const ZONE_WAIT_MS = 2_000;

/**
 * The shop's IANA time zone (Shopify's `shop.ianaTimezone`), stored with the shop; read from
 * Shopify once when not stored yet (`ask`, by default the shop's offline gateway). Null when
 * unknown: the pages then show UTC and say so.
 */
export async function shopTimeZone(
  db: PrismaClient,
  shop: string,
  ask: () => Promise<string> = async () => (await shopGatewayFor(shop)).timeZone(),
  now: number = Date.now(),
): Promise<string | null> {
  const row = await db.shop.findUnique({ where: { domain: shop }, select: { ianaTimezone: true } });
  if (row?.ianaTimezone) return row.ianaTimezone;
  if (now - (zoneMisses.get(shop) ?? -Infinity) < ZONE_RETRY_MS) return null;
  try {
    const zone = await Promise.race([
      ask(),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error("no answer in time")), ZONE_WAIT_MS).unref(),
      ),
    ]);
    if (validZone(zone) !== zone) throw new Error("not a known time zone");
    await db.shop.upsert({
      where: { domain: shop },
      create: { domain: shop, ianaTimezone: zone },
      update: { ianaTimezone: zone },
    });
    zoneMisses.delete(shop);
    return zone;
  } catch {
    zoneMisses.set(shop, now);
    return null;
  }
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
