/** What the Disputes pages read: the list with its views, search and pages; one dispute. */
import { orderName } from "../orders/shop-time";
import type { Prisma, PrismaClient } from "@prisma/client";
import { CLOSED, dealText, isClosed } from "./sync.server";
import { REPLY_KEY } from "./reply-cancel.server";

export const DISPUTE_VIEWS = ["all", "unread", "open", "closed"] as const;
export type DisputeView = (typeof DISPUTE_VIEWS)[number];
const PAGE_SIZE = 50;

/** The service's id, or null while the service has not listed a dispute the app opened. */
const shownId = (d: { svcDisputeId: string }) =>
  d.svcDisputeId.startsWith("pending:") ? null : d.svcDisputeId;
const expectText = (t: number | null) => (t === 2 ? "Reissue" : t === 1 ? "Refund" : null);

function viewWhere(view: DisputeView): Prisma.DisputeWhereInput {
  if (view === "unread") return { unread: true };
  if (view === "open") return { NOT: CLOSED };
  if (view === "closed") return CLOSED;
  return {};
}

function searchWhere(q: string): Prisma.DisputeWhereInput {
  if (!q) return {};
  const bare = q.replace(/^#/, "");
  return {
    OR: [
      { svcDisputeId: { contains: bare } },
      { orderNumber: { contains: bare, mode: "insensitive" } },
      { svcOrderId: { contains: bare } },
      { reason: { contains: q, mode: "insensitive" } },
      { status: { contains: q, mode: "insensitive" } },
    ],
  };
}

/** The shop orders' names for the disputes of a page (one query). */
async function orderNames(db: PrismaClient, ids: (string | null)[]) {
  const wanted = [...new Set(ids.filter((i): i is string => Boolean(i)))];
  if (wanted.length === 0) return new Map<string, string>();
  const rows = await db.shopOrder.findMany({
    where: { id: { in: wanted } },
    select: { id: true, shopifyOrderName: true, shopifyOrderId: true },
  });
  return new Map(rows.map((r) => [r.id, orderName(r)]));
}

export async function listDisputes(db: PrismaClient, shop: string, search: URLSearchParams) {
  const rawView = search.get("view") ?? "all";
  const view: DisputeView = (DISPUTE_VIEWS as readonly string[]).includes(rawView)
    ? (rawView as DisputeView)
    : "all";
  const q = (search.get("q") ?? "").trim().slice(0, 100);
  const status = (search.get("status") ?? "").slice(0, 100);
  const page = Math.max(1, Math.min(10_000, Number.parseInt(search.get("page") ?? "1", 10) || 1));
  // Orders matched by their shop name ("#1001") join the search.
  const byName = q
    ? await db.shopOrder.findMany({
        where: { shopDomain: shop, shopifyOrderName: { contains: q, mode: "insensitive" } },
        select: { id: true },
        take: 200,
      })
    : [];
  const base: Prisma.DisputeWhereInput = { shopDomain: shop };
  const matched: Prisma.DisputeWhereInput = q
    ? { OR: [searchWhere(q), { orderId: { in: byName.map((o) => o.id) } }] }
    : {};
  const where = { AND: [base, viewWhere(view), matched, status ? { status } : {}] };
  const [statuses, rows, total, ...counts] = await Promise.all([
    db.dispute.groupBy({ by: ["status"], where: base, orderBy: { status: "asc" } }),
    db.dispute.findMany({
      where,
      orderBy: [{ svcCreatedAt: "desc" }, { id: "asc" }],
      skip: (page - 1) * PAGE_SIZE,
      take: PAGE_SIZE,
    }),
    db.dispute.count({ where }),
    ...DISPUTE_VIEWS.map((v) => db.dispute.count({ where: { AND: [base, viewWhere(v)] } })),
  ]);
  const names = await orderNames(
    db,
    rows.map((r) => r.orderId),
  );
  return {
    filter: { view, q, page, status },
    statuses: statuses.map((x) => x.status),
    total,
    pages: Math.max(1, Math.ceil(total / PAGE_SIZE)),
    viewCounts: Object.fromEntries(DISPUTE_VIEWS.map((v, i) => [v, counts[i] ?? 0])) as Record<
      DisputeView,
      number
    >,
    disputes: rows.map((r) => ({
      id: r.id,
      svcDisputeId: shownId(r),
      orderId: r.orderId,
      orderName: r.orderId ? (names.get(r.orderId) ?? null) : null,
      orderNumber: r.orderNumber,
      reason: r.reason,
      status: r.status,
      closed: isClosed(r),
      outcome: dealText(r.finallyDeal),
      expect: expectText(r.expectType),
      money: r.money,
      unread: r.unread,
      openedAt: r.svcCreatedAt.toISOString(),
      lastMessageAt: r.lastMessageAt?.toISOString() ?? null,
    })),
  };
}

/** Disputes with a message from support the merchant has not read (for the navigation). */
export function unreadDisputes(db: PrismaClient, shop: string): Promise<number> {
  return db.dispute.count({ where: { shopDomain: shop, unread: true } });
}

/** One dispute of the shop with its messages and order; opening it marks it read. */
export async function disputeDetail(db: PrismaClient, shop: string, id: string) {
  const d = await db.dispute.findFirst({
    where: { id, shopDomain: shop },
    include: {
      messages: {
        // A reply's lock row (app/disputes/reply-cancel.server.ts) is not a message.
        where: { NOT: { messageId: { startsWith: REPLY_KEY } } },
        orderBy: [{ at: "asc" }, { id: "asc" }],
      },
    },
  });
  if (!d) return null;
  if (d.unread) await db.dispute.update({ where: { id: d.id }, data: { unread: false } });
  const order = d.orderId
    ? await db.shopOrder.findUnique({
        where: { id: d.orderId },
        select: { id: true, shopifyOrderName: true, shopifyOrderId: true, amount: true },
      })
    : null;
  const strings = (v: Prisma.JsonValue) =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  return {
    id: d.id,
    svcDisputeId: shownId(d),
    status: d.status,
    closed: isClosed(d),
    cancelled: d.cancelledAt !== null || /cancel/i.test(d.status),
    outcome: dealText(d.finallyDeal),
    reason: d.reason,
    expect: expectText(d.expectType),
    money: d.money,
    replacementAmount: d.replacementAmount,
    refundParts: (Array.isArray(d.refundDetails) ? d.refundDetails : [])
      .map((x) => (x ?? {}) as { name?: unknown; amount?: unknown })
      .filter((x) => typeof x.name === "string" && x.amount !== null && Number(x.amount) !== 0)
      .map((x) => ({ name: String(x.name), amount: String(x.amount) })),
    openedAt: d.svcCreatedAt.toISOString(),
    order: order
      ? {
          id: order.id,
          name: orderName(order),
          cost: order.amount,
        }
      : null,
    svcOrderId: d.svcOrderId,
    lines: (Array.isArray(d.lines) ? d.lines : []).map((l) => {
      const o = (l ?? {}) as Record<string, unknown>;
      const text = (k: string) =>
        typeof o[k] === "string" || typeof o[k] === "number" ? String(o[k]) : null;
      return {
        name: text("productName") ?? text("lineItemId") ?? "Product",
        price: text("price"),
        quantity: text("quantity"),
        image: text("image"),
        supplier: text("supplierName"),
      };
    }),
    messages: d.messages.map((m) => ({
      id: m.id,
      fromSupport: m.fromSupport,
      sending: m.messageId.startsWith("pending:"),
      at: m.at.toISOString(),
      text: m.text,
      images: strings(m.imageUrls),
      videos: strings(m.videoUrls),
    })),
  };
}

/** The disputes of one shop order (for its page). */
export async function disputesOfOrder(db: PrismaClient, shop: string, orderId: string) {
  const rows = await db.dispute.findMany({
    where: { shopDomain: shop, orderId },
    orderBy: { svcCreatedAt: "desc" },
  });
  return rows.map((r) => ({
    id: r.id,
    svcDisputeId: shownId(r),
    status: r.status,
    closed: isClosed(r),
    unread: r.unread,
    reason: r.reason,
    money: r.money,
  }));
}
