/**
 * Keeps an account's disputes in step with the service (part 3 §4.13.5): the list has no
 * "changed since" filter and `updateDate` is a change signal, not a cursor. So:
 * - every 10 minutes, the last 90 days of creation are read; a record whose updateDate or
 *   status moved (or that is new) has its messages read again;
 * - once a day, the whole history is walked back in 90-day creation windows that overlap by a
 *   day, each dispute taken once (by id), so one whose record changed without a newer
 *   updateDate, or that is older than 90 days, is still caught.
 * New support messages and status changes go on the order's timeline and into the merchant's
 * notification email (the "disputes" kind).
 */
import { orderName } from "../orders/shop-time";
import type { Dispute, Prisma, PrismaClient } from "@prisma/client";
import { addTimeline } from "../orders/timeline.server";
import { getSettings } from "../settings.server";
import type { SvcClient } from "../svc/client.server";
import { SvcNotFoundError } from "../svc/errors";
import { storedReplyText, type DisputeMessage, type DisputeRecord } from "../svc/dispute-shapes";
import { walkDisputes } from "../svc/pagination";

const DAY_MS = 24 * 3600_000;
export const RECENT_DAYS = 90;
/** How far back the daily walk goes (the service keeps disputes of older orders, too). */
export const HISTORY_DAYS = 3 * 365;
const OVERLAP_MS = DAY_MS;

export interface SyncAccount {
  id: string;
  shopDomain: string;
}

export type SyncOutcome = {
  seen: number;
  created: number;
  changed: number;
  messagesRead: number;
  newSupportMessages: number;
};

function date(d: Date | null | undefined): Date | null {
  return d && Number.isFinite(d.getTime()) ? d : null;
}

/**
 * Closed: settled (finallyDeal), cancelled from the app, or a status that says it is over (the
 * service's status texts are not mapped to its codes). `CLOSED` is the same rule as a query.
 */
export const CLOSED: Prisma.DisputeWhereInput = {
  OR: [
    { finallyDeal: { not: null } },
    { cancelledAt: { not: null } },
    { status: { contains: "cancel", mode: "insensitive" } },
    { status: { contains: "complet", mode: "insensitive" } },
  ],
};

export function isClosed(d: {
  finallyDeal: number | null;
  cancelledAt?: Date | null;
  status: string;
}): boolean {
  return d.finallyDeal !== null || Boolean(d.cancelledAt) || /cancel|complet/i.test(d.status);
}

/** The settled outcome in words (finallyDeal). */
export function dealText(deal: number | null): string | null {
  if (deal === 1) return "refunded";
  if (deal === 2) return "reissued";
  if (deal === 3) return "rejected";
  return null;
}

/** Looks up the shop order of a service order id (the current one, or one a repair replaced). */
async function shopOrderOf(db: PrismaClient, shop: string, svcOrderId: string | null) {
  if (!svcOrderId) return null;
  const direct = await db.shopOrder.findFirst({
    where: { shopDomain: shop, svcOrderId },
    select: { id: true, shopifyOrderName: true, shopifyOrderId: true },
  });
  if (direct) return direct;
  const viaShipment = await db.shipment.findFirst({
    where: { svcOrderId, order: { shopDomain: shop } },
    select: { order: { select: { id: true, shopifyOrderName: true, shopifyOrderId: true } } },
  });
  return viaShipment?.order ?? null;
}

function recordColumns(r: DisputeRecord) {
  return {
    status: (r.status ?? "").slice(0, 100) || "Unknown",
    reason: r.disputeReason ?? null,
    money: r.money ?? null,
    replacementAmount: r.replacementAmount ?? null,
    finallyDeal: r.finallyDeal ?? null,
    lines: (r.productList ?? []).map((p) => ({
      lineItemId: p.lineItemId ?? null,
      productName: p.productName ?? null,
      price: p.price ?? null,
      image: p.image ?? null,
      supplierName: p.supplierName ?? null,
    })) as Prisma.InputJsonValue,
    svcCreatedAt: date(r.createDate) ?? new Date(0),
    svcUpdatedAt: date(r.updateDate),
  };
}

/**
 * Stores the messages read, adds what is new; returns the new support messages. The service
 * lists them by time; a message already kept (by its id) is left as it is.
 */
async function keepMessages(db: PrismaClient, disputeId: string, messages: DisputeMessage[]) {
  const known = new Set(
    (
      await db.disputeMessage.findMany({
        where: { disputeId },
        select: { messageId: true },
      })
    ).map((m) => m.messageId),
  );
  const fresh = messages.filter((m) => m.messageId && !known.has(m.messageId));
  if (fresh.length) {
    await db.disputeMessage.createMany({
      data: fresh.map((m) => ({
        disputeId,
        messageId: m.messageId!,
        fromSupport: m.userType === "2",
        at: date(m.createDate) ?? new Date(),
        text: (m.message ?? "").slice(0, 2000),
        imageUrls: m.imageUrl ?? [],
        videoUrls: m.videoUrl ?? [],
      })),
      skipDuplicates: true,
    });
  }
  // A reply the app sent (a stand-in row) is replaced by the service's own once it is listed.
  if (messages.some((m) => m.userType === "1")) {
    await db.disputeMessage.deleteMany({
      where: { disputeId, messageId: { startsWith: "pending:" } },
    });
  }
  return fresh.filter((m) => m.userType === "2");
}

/** The name of the dispute for the merchant: "Dispute 700012 (order #1001)". */
export function disputeName(svcDisputeId: string, orderName: string | null): string {
  return orderName ? `Dispute ${svcDisputeId} (order ${orderName})` : `Dispute ${svcDisputeId}`;
}

/**
 * Brings one record in step: stores it, reads its messages when it is new or its updateDate or
 * status moved, and tells what is new. Returns what it did.
 */
export async function syncRecord(
  db: PrismaClient,
  client: SvcClient,
  account: SyncAccount,
  r: DisputeRecord,
  tell: boolean,
  /** Read the messages even when nothing on the record moved (the daily pass, open disputes). */
  force = false,
): Promise<{ created: boolean; changed: boolean; read: boolean; support: number }> {
  const svcDisputeId = String(r.id);
  const cols = recordColumns(r);
  const before = await db.dispute.findUnique({
    where: { svcAccountId_svcDisputeId: { svcAccountId: account.id, svcDisputeId } },
  });
  const moved =
    force ||
    !before ||
    before.status !== cols.status ||
    before.finallyDeal !== cols.finallyDeal ||
    (cols.svcUpdatedAt?.getTime() ?? 0) !== (before.messagesReadAt?.getTime() ?? -1);
  if (!moved && before) {
    await db.dispute.update({ where: { id: before.id }, data: cols });
    return { created: false, changed: false, read: false, support: 0 };
  }
  const messages = await client.disputes.messages(svcDisputeId);
  // The refund's parts (product, shipping, taxes) are in the detail only.
  const refundDetails = await client.disputes.detail(svcDisputeId).then(
    (d) =>
      (d.refundDetails ?? []).map((x) => ({
        type: x.type ?? null,
        name: x.typeName ?? x.type ?? "Refund",
        amount: x.amount ?? null,
      })),
    (error: unknown) => {
      if (error instanceof SvcNotFoundError) return null;
      throw error;
    },
  );
  // The record does not name its order; its messages do (part 3 §2.7).
  const svcOrderId = before?.svcOrderId ?? messages.find((m) => m.orderId)?.orderId ?? null;
  let row: Dispute;
  let prior = before;
  if (before) {
    row = await db.dispute.update({ where: { id: before.id }, data: cols });
  } else {
    const opened = await openedByApp(db, account.id, svcOrderId, messages);
    // Claimed: its status is the service's first, not news; support's messages are.
    if (opened) prior = { ...opened, status: cols.status, finallyDeal: cols.finallyDeal };
    row = opened
      ? await db.dispute.update({ where: { id: opened.id }, data: { ...cols, svcDisputeId } })
      : await db.dispute.upsert({
          where: { svcAccountId_svcDisputeId: { svcAccountId: account.id, svcDisputeId } },
          create: {
            ...cols,
            svcDisputeId,
            svcAccountId: account.id,
            shopDomain: account.shopDomain,
          },
          update: cols,
        });
  }
  const order = row.orderId ? null : await shopOrderOf(db, account.shopDomain, svcOrderId);
  const support = await keepMessages(db, row.id, messages);
  const last = messages.reduce<Date | null>(
    (at, m) => (m.createDate && (!at || m.createDate > at) ? m.createDate : at),
    null,
  );
  row = await db.dispute.update({
    where: { id: row.id },
    data: {
      svcOrderId,
      orderId: row.orderId ?? order?.id ?? null,
      messagesReadAt: cols.svcUpdatedAt ?? new Date(0),
      ...(refundDetails ? { refundDetails } : {}),
      lastMessageAt: date(last),
      ...(support.length && prior ? { unread: true } : {}),
    },
  });
  // A dispute seen for the first time (opened elsewhere, or before the app was installed) is
  // listed, not announced: the first sync of an account would otherwise tell its whole past.
  if (prior) await tellNews(db, row, prior, support, tell);
  return { created: !prior, changed: Boolean(prior), read: true, support: support.length };
}

/**
 * The app's own row of a dispute it opened and has not seen listed yet (`pending:` id): on the
 * same service order, with the same first message when several wait.
 */
async function openedByApp(
  db: PrismaClient,
  accountId: string,
  svcOrderId: string | null,
  messages: DisputeMessage[],
) {
  if (!svcOrderId) return null;
  const waiting = await db.dispute.findMany({
    where: { svcAccountId: accountId, svcOrderId, svcDisputeId: { startsWith: "pending:" } },
    include: { messages: { orderBy: { at: "asc" }, take: 1 } },
    orderBy: { createdAt: "asc" },
  });
  const first = storedReplyText(messages.find((m) => m.userType === "1")?.message ?? "");
  return (
    waiting.find((w) => storedReplyText(w.messages[0]?.text ?? "") === first) ?? waiting[0] ?? null
  );
}

/** The order's timeline and the merchant's email, for a status change and support's messages. */
async function tellNews(
  db: PrismaClient,
  row: Dispute,
  before: Dispute,
  support: DisputeMessage[],
  tell: boolean,
) {
  const order = row.orderId
    ? await db.shopOrder.findUnique({
        where: { id: row.orderId },
        select: { id: true, shopifyOrderName: true, shopifyOrderId: true },
      })
    : null;
  const name = disputeName(row.svcDisputeId, order ? orderName(order) : null);
  const news: { key: string; text: string }[] = [];
  if (before.status !== row.status || before.finallyDeal !== row.finallyDeal) {
    const deal = dealText(row.finallyDeal);
    news.push({
      key: `dispute:${row.id}:status:${row.status}:${row.finallyDeal ?? ""}`,
      text: `${name} is now ${row.status}${deal ? ` (${deal})` : ""}.`,
    });
  }
  for (const m of support) {
    const said = (m.message ?? "").replace(/\s+/g, " ").trim();
    news.push({
      key: `dispute:${row.id}:message:${m.messageId}`,
      text: `${name}: support wrote${said ? `: “${said.slice(0, 160)}${said.length > 160 ? "…" : ""}”` : " (files attached)"}`,
    });
  }
  if (news.length === 0) return;
  if (order) {
    for (const n of news) {
      await addTimeline(db, order.id, { step: "dispute", outcome: "info", message: n.text });
    }
  }
  if (!tell) return;
  await db.notice.createMany({
    data: news.map((n) => ({
      shopDomain: row.shopDomain,
      kind: "disputes",
      key: n.key.slice(0, 300),
      text: n.text,
      orderId: order?.id ?? null,
    })),
    skipDuplicates: true,
  });
}

/**
 * One pass over an account's disputes: the last 90 days ("recent") or the whole history
 * ("full"), as the module comment says.
 */
export async function syncDisputes(
  db: PrismaClient,
  client: SvcClient,
  account: SyncAccount,
  opts: { mode: "recent" | "full"; now: number; signal?: AbortSignal },
): Promise<SyncOutcome> {
  const settings = await getSettings(db, account.shopDomain);
  const tell = settings.notifyDisputes;
  const from = opts.now - (opts.mode === "full" ? HISTORY_DAYS : RECENT_DAYS) * DAY_MS;
  const out: SyncOutcome = {
    seen: 0,
    created: 0,
    changed: 0,
    messagesRead: 0,
    newSupportMessages: 0,
  };
  for await (const r of walkDisputes(client.disputes, from, opts.now, {
    overlapMs: OVERLAP_MS,
    pageSize: 50,
  })) {
    opts.signal?.throwIfAborted();
    out.seen++;
    // The daily pass reads every open dispute's messages: a record's updateDate can stay put
    // while its processing goes on (part 3 §4.13.5).
    const force = opts.mode === "full" && !isClosed(recordColumns(r));
    const done = await syncRecord(db, client, account, r, tell, force);
    if (done.created) out.created++;
    if (done.changed) out.changed++;
    if (done.read) out.messagesRead++;
    out.newSupportMessages += done.support;
  }
  return out;
}
