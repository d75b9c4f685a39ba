/** What the orders pages show: lists by state with reasons, one order in full, and its actions. */
import type { Prisma, PrismaClient } from "@prisma/client";
import { z } from "zod";
import { orderName } from "../orders/shop-time";
import { STATES, type OrderState, PROBLEM_STATES } from "../orders/states";
import { shopTimeZone } from "../orders/shop-zone.server";
import { latestBulkRun } from "./bulk-orders.server";

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

/** The orders list page: the orders its address asks for, and the shop's latest bulk run. */
export async function ordersListPage(db: PrismaClient, shop: string, search: URLSearchParams) {
  const [list, bulk] = await Promise.all([listOrders(db, shop, search), latestBulkRun(db, shop)]);
  return { ...list, bulk };
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
