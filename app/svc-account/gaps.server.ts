/**
 * Delivery gaps: tracking the reconciler found before any webhook told of it. The service
 * pauses an account's deliveries past 50% failures (until webhook/set), drops events it gave up
 * on, and the app cannot see either; a run of gaps is the sign, and registering again the cure.
 */
import type { PrismaClient } from "@prisma/client";
import { enqueue } from "../jobs/enqueue.server";
import { logger } from "../logger.server";
import { SVC_ACCOUNT_JOB, WEBHOOK_GAP_GRACE_MS, WEBHOOK_GAP_THRESHOLD } from "./kinds";

export interface GapCandidate {
  /** The service order ids (and numbers) of the order whose tracking was found. */
  ids: string[];
  /** When the service shipped it (outWarehouseTime), when known. */
  shippedAt?: Date | null;
}

/**
 * How many of the candidates no service webhook of the shop told of in the last week (a
 * LOGISTIC event, or an ORDER event with tracking or a shipped status, naming the order).
 * Tracking younger than the grace period may still be on its way and does not count.
 */
export async function countUnheard(
  db: PrismaClient,
  shopDomain: string,
  candidates: GapCandidate[],
  nowMs: number,
): Promise<number> {
  let gaps = 0;
  const since = new Date(nowMs - 7 * 86400_000);
  for (const c of candidates) {
    if (c.ids.length === 0) continue;
    if (c.shippedAt && c.shippedAt.getTime() > nowMs - WEBHOOK_GAP_GRACE_MS) continue;
    const heard = await db.$queryRaw<{ one: number }[]>`
      SELECT 1 AS one FROM "WebhookEvent"
      WHERE "source" = 'svc' AND "shopDomain" = ${shopDomain} AND "receivedAt" > ${since}
        AND ("topic" = 'LOGISTIC'
             OR ("topic" IN ('ORDER', 'ORDERSPLIT')
                 AND (coalesce("payload"->'params'->>'trackNumber', '') <> ''
                      OR upper("payload"->'params'->>'orderStatus') IN ('SHIPPED', 'DELIVERED'))))
        AND ("payload"->'params'->>'orderId' = ANY(${c.ids}::text[])
             OR "payload"->'params'->>'svcOrderId' = ANY(${c.ids}::text[])
             OR "payload"->'params'->>'orderNumber' = ANY(${c.ids}::text[]))
      LIMIT 1`;
    if (heard.length === 0) gaps++;
  }
  return gaps;
}

/**
 * Counts deliveries the service seems to have missed (the reconciler found tracking no
 * webhook told of). Past the threshold the webhooks are registered again at once (a paused
 * account resumes) and the count starts over. Only accounts the app registered itself count.
 */
export async function noteWebhookGaps(
  db: PrismaClient,
  accountId: string,
  gaps: number,
  nowMs: number,
): Promise<{ reregister: boolean }> {
  if (gaps <= 0) return { reregister: false };
  const row = await db.svcAccount.update({
    where: { id: accountId },
    data: { webhookGaps: { increment: gaps } },
    select: { webhookGaps: true, webhookRegisteredAt: true, shopDomain: true },
  });
  if (row.webhookGaps < WEBHOOK_GAP_THRESHOLD || !row.webhookRegisteredAt || !row.shopDomain) {
    return { reregister: false };
  }
  return db.$transaction(async (tx) => {
    const reset = await tx.svcAccount.updateMany({
      where: { id: accountId, webhookGaps: { gte: WEBHOOK_GAP_THRESHOLD } },
      data: { webhookGaps: 0 },
    });
    if (reset.count !== 1) return { reregister: false }; // another reconciler did it
    await enqueue(tx, {
      kind: SVC_ACCOUNT_JOB.registerWebhooks,
      payload: { accountId, reason: "gaps" },
      idempotencyKey: `svc-webhooks:gaps:${accountId}:${nowMs}`,
      shopDomain: row.shopDomain ?? undefined,
      maxAttempts: 5,
    });
    logger.warn(
      { svcAccountId: accountId, gaps: row.webhookGaps },
      "service webhooks missed deliveries: registering them again",
    );
    return { reregister: true };
  });
}
