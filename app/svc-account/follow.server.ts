/**
 * Orders follow their service account (issue 35). A shop's account row is made anew at each
 * connect after a disconnect, so our row id does not name a service account: the service's
 * identity does (base URL and `openId`). When a shop connects:
 *
 * - the shop's orders, their payment batches and disputes, and the jobs waiting for them, still
 *   on a detached row of the SAME service account come to the connected row;
 * - jobs of the shop that failed or died on an authorization (an expired or forgotten token)
 *   run again at once: the merchant has just renewed it;
 * - orders at the service under ANOTHER service account (gone, or not the one connected now)
 *   are flagged with what to do, and the flag goes when their account comes back.
 *
 * A row connected with a different account without a disconnect first (a new key pasted over
 * the old one) keeps its id: the old account's orders move to a detached row of their own, so
 * that they are never asked about with the new account's token, and follow the old account
 * back later like any other.
 */
import type { Prisma, PrismaClient } from "@prisma/client";
import { addTimelineMany } from "../orders/timeline.server";
import type { Db } from "../db/types";

/** The order flag of an order whose service account is not connected. */
export const ACCOUNT_GONE_FLAG = "account_disconnected";

export const ACCOUNT_GONE_MESSAGE =
  "This order is at the service under a service account that is no longer connected, so the " +
  "app cannot pay for it or bring its tracking back. In Settings, connect that service account " +
  "again (with its API key or by logging in): the order then goes on by itself.";

/** Orders placed at the service that still need their account (payment, tracking). */
const NEEDS_ITS_ACCOUNT = ["CREATED", "PAYING", "PAID", "SHIPPED"];

/** Job errors an authorization renewed by the merchant cures. */
const AUTH_ERRORS = "(SvcReauthorizationRequiredError|SvcAuthError|authorization has expired)";

export interface FollowResult {
  /** Orders brought back from detached rows of the same service account. */
  moved: number;
  /** Jobs that failed or died on an authorization, queued again. */
  requeued: number;
  /** Orders flagged: their service account is not the connected one. */
  flagged: number;
  /** Orders that lost their flag: their account is back. */
  unflagged: number;
}

/**
 * After a connect (API key or authorization code) of `accountId` for `shop`. `previousOpenId`:
 * the service account the row was connected to just before, when it stayed connected.
 */
export async function followAccount(
  db: PrismaClient,
  input: { shop: string; accountId: string; previousOpenId?: string | null },
): Promise<FollowResult> {
  return db.$transaction(async (tx) => {
    const out: FollowResult = { moved: 0, requeued: 0, flagged: 0, unflagged: 0 };
    const acc = await tx.svcAccount.findUnique({ where: { id: input.accountId } });
    if (!acc || acc.shopDomain !== input.shop) return out;
    if (input.previousOpenId && acc.openId !== input.previousOpenId) {
      await splitOffPrevious(tx, input.shop, acc, input.previousOpenId);
    }
    const old = acc.openId ? await earlierRows(tx, input.shop, acc) : [];
    if (old.length > 0) {
      const moved = await tx.shopOrder.updateMany({
        where: { shopDomain: input.shop, svcAccountId: { in: old } },
        data: { svcAccountId: acc.id },
      });
      out.moved = moved.count;
      await tx.paymentBatch.updateMany({
        where: { svcAccountId: { in: old } },
        data: { svcAccountId: acc.id },
      });
      for (const id of old) {
        // One row per service dispute: one the dispute sync already read again stays as it is.
        await tx.$executeRaw`
          UPDATE "Dispute" d SET "svcAccountId" = ${acc.id}, "updatedAt" = now()
          WHERE d."shopDomain" = ${input.shop} AND d."svcAccountId" = ${id}
            AND NOT EXISTS (SELECT 1 FROM "Dispute" e
                            WHERE e."svcAccountId" = ${acc.id} AND e."svcDisputeId" = d."svcDisputeId")`;
        await tx.$executeRaw`
          UPDATE "Job" SET "payload" = jsonb_set("payload", '{accountId}', to_jsonb(${acc.id}::text)),
                 "concurrencyKey" = replace("concurrencyKey", ${id}, ${acc.id}),
                 "updatedAt" = now()
          WHERE "state" IN ('available', 'dead') AND "payload"->>'accountId' = ${id}`;
      }
    }
    out.unflagged = await unflag(tx, input.shop, acc.id);
    out.requeued = await tx.$executeRaw`
      UPDATE "Job" SET "state" = 'available', "runAt" = now(), "attempts" = 0,
             "finishedAt" = NULL, "updatedAt" = now()
      WHERE ("state" = 'dead' OR ("state" = 'available' AND "attempts" > 0))
        AND ("shopDomain" = ${input.shop} OR "payload"->>'accountId' = ${acc.id})
        AND ("payload"->>'accountId' IS NULL OR "payload"->>'accountId' = ${acc.id})
        AND "lastError" ~ ${AUTH_ERRORS}`;
    out.flagged = await flagOrphans(tx, {
      shopDomain: input.shop,
      svcAccountId: { not: acc.id },
    });
    return out;
  });
}

/** Rows of the shop's earlier connections to the same service account, now detached. */
async function earlierRows(
  db: Db,
  shop: string,
  acc: { id: string; baseUrl: string; openId: string | null },
): Promise<string[]> {
  const used = await db.shopOrder.findMany({
    where: { shopDomain: shop, svcAccountId: { not: acc.id } },
    distinct: ["svcAccountId"],
    select: { svcAccountId: true },
  });
  const ids = used.map((u) => u.svcAccountId).filter((id): id is string => id !== null);
  if (ids.length === 0) return [];
  const rows = await db.svcAccount.findMany({
    where: { id: { in: ids }, shopDomain: null, baseUrl: acc.baseUrl, openId: acc.openId },
    select: { id: true },
  });
  return rows.map((r) => r.id);
}

/** The orders, batches and disputes of the account the row was connected to before. */
async function splitOffPrevious(
  db: Db,
  shop: string,
  acc: { id: string; baseUrl: string; authMethod: string },
  previousOpenId: string,
) {
  const archive = await db.svcAccount.create({
    data: { baseUrl: acc.baseUrl, openId: previousOpenId, authMethod: acc.authMethod },
  });
  await db.shopOrder.updateMany({
    where: { shopDomain: shop, svcAccountId: acc.id, svcOrderId: { not: null } },
    data: { svcAccountId: archive.id },
  });
  await db.paymentBatch.updateMany({
    where: { svcAccountId: acc.id },
    data: { svcAccountId: archive.id },
  });
  await db.dispute.updateMany({
    where: { shopDomain: shop, svcAccountId: acc.id },
    data: { svcAccountId: archive.id },
  });
}

/** Flags the matching orders that need their (not connected) account; returns how many. */
export async function flagOrphans(db: Db, where: Prisma.ShopOrderWhereInput): Promise<number> {
  const orders = await db.shopOrder.findMany({
    where: {
      ...where,
      svcOrderId: { not: null },
      state: { in: NEEDS_ITS_ACCOUNT },
      flag: null,
      AND: [{ svcAccountId: { not: null } }],
    },
    select: { id: true },
  });
  const ids = orders.map((o) => o.id);
  if (ids.length === 0) return 0;
  await db.shopOrder.updateMany({
    where: { id: { in: ids }, flag: null },
    data: { flag: ACCOUNT_GONE_FLAG, reasonMessage: ACCOUNT_GONE_MESSAGE },
  });
  await addTimelineMany(db, ids, {
    step: "service-account",
    // Not an error of a step: the banner says it and what to do (once, not twice).
    outcome: "held",
    message: "Its service account was disconnected: payment and tracking wait until it is back.",
  });
  return ids.length;
}

/** Orders of the connected account lose the flag; returns how many. */
async function unflag(db: Db, shop: string, accountId: string): Promise<number> {
  const orders = await db.shopOrder.findMany({
    where: { shopDomain: shop, svcAccountId: accountId, flag: ACCOUNT_GONE_FLAG },
    select: { id: true },
  });
  const ids = orders.map((o) => o.id);
  if (ids.length === 0) return 0;
  await db.shopOrder.updateMany({
    where: { id: { in: ids }, flag: ACCOUNT_GONE_FLAG },
    data: { flag: null, reasonMessage: null },
  });
  await addTimelineMany(db, ids, {
    step: "service-account",
    outcome: "info",
    message: "Its service account is connected again: the order goes on.",
  });
  return ids.length;
}
