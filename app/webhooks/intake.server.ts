/**
 * Webhook intake: every event is stored, with its job, in one transaction, before it is
 * acknowledged. A redelivery (same event key) stores nothing and enqueues nothing.
 */
import type { Prisma } from "@prisma/client";
import { prisma } from "../db.server";
import { type Db, enqueue } from "../jobs/queue.server";

export type EventSource = "shopify" | "svc";

export interface IncomingEvent {
  source: EventSource;
  shopDomain: string;
  topic: string;
  /** Shopify: X-Shopify-Event-Id, else X-Shopify-Webhook-Id. The service: messageId. */
  eventKey: string;
  webhookId?: string;
  triggeredAt?: Date;
  payload: Prisma.InputJsonValue;
}

/** The job kind an event becomes: `shopify:orders/create`, `svc:LOGISTIC`, … */
export function jobKindFor(source: EventSource, topic: string): string {
  return `${source}:${topic}`;
}

/**
 * Stores the event and enqueues its job atomically; `inline` runs in the same transaction
 * for the little work that must be visible at once (the uninstall mark).
 * Returns `duplicate: true` when the event was already received.
 */
export async function recordEvent(
  event: IncomingEvent,
  inline?: (tx: Db) => Promise<unknown>,
  db = prisma,
): Promise<{ duplicate: boolean; eventId?: bigint }> {
  return db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ id: bigint }[]>`
      INSERT INTO "WebhookEvent" ("source", "shopDomain", "topic", "eventKey", "webhookId",
                                  "triggeredAt", "payload")
      VALUES (${event.source}, ${event.shopDomain}, ${event.topic}, ${event.eventKey},
              ${event.webhookId ?? null}, ${event.triggeredAt ?? null},
              ${JSON.stringify(event.payload)}::jsonb)
      ON CONFLICT ("source", "eventKey") DO NOTHING
      RETURNING "id"`;
    const stored = rows[0];
    if (!stored) return { duplicate: true };
    const job = await enqueue(tx, {
      kind: jobKindFor(event.source, event.topic),
      payload: { eventId: String(stored.id) },
      idempotencyKey: `${event.source}:${event.eventKey}`,
      shopDomain: event.shopDomain,
    });
    await tx.webhookEvent.update({ where: { id: stored.id }, data: { jobId: job.id } });
    if (inline) await inline(tx);
    return { duplicate: false, eventId: stored.id };
  });
}
