/**
 * The stored webhook events, the ground the intake (app/webhooks/) and the handlers share: the
 * intake verifies a delivery and stores it with its job in one transaction, before it is
 * acknowledged (recordEvent); a handler reads its event back (loadEvent). A redelivery (same
 * event key) stores nothing and enqueues nothing. An event nothing handles is stored with the
 * reason and no job (a job without a handler would wait in the queue forever).
 */
import type { Prisma, PrismaClient } from "@prisma/client";
import { prisma } from "../db.server";
import { z } from "zod";
import type { Db } from "../db/types";
import { type JobContext, PermanentJobError } from "../jobs/handler";

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
  /**
   * Store it only for a shop the app serves: installed, or (`acceptUninstalled`) known at all.
   * Checked in the same statement as the insert, so the acknowledgement stays one round trip.
   */
  onlyForShop?: { acceptUninstalled: boolean };
}

export interface RecordResult {
  duplicate: boolean;
  eventId?: bigint;
  /** Not stored: `onlyForShop` was set and the shop is unknown or uninstalled. */
  refused?: "unknown shop" | "uninstalled shop";
}

/** The job kind an event becomes: `shopify:orders/create`, `svc:LOGISTIC`, … */
export function jobKindFor(source: EventSource, topic: string): string {
  return `${source}:${topic}`;
}

/**
 * Stores the event and enqueues its job atomically, in one statement (one round trip: this is
 * the hot path of every acknowledgement). `inline` work, when given, runs in a transaction
 * with them (the uninstall mark, which must be visible at once).
 * Returns `duplicate: true` when the event was already received, `refused` when the shop
 * check of `onlyForShop` failed (nothing stored, no inline work).
 */
export async function recordEvent(
  event: IncomingEvent,
  inline?: (tx: Db) => Promise<unknown>,
  db: PrismaClient = prisma,
): Promise<RecordResult> {
  if (inline) {
    return db.$transaction(async (tx) => {
      const stored = await insertEventWithJob(tx, event);
      if (!stored.duplicate && !stored.refused) await inline(tx);
      return stored;
    });
  }
  return insertEventWithJob(db, event);
}

/**
 * Stores an event that no job will handle (an event type nothing handles, an event no shop of
 * the account owns), with the reason. A redelivery stores nothing.
 */
export async function recordIgnoredEvent(
  event: IncomingEvent,
  reason: string,
  db: Db = prisma,
): Promise<{ duplicate: boolean; eventId?: bigint }> {
  const rows = await db.$queryRaw<{ id: bigint }[]>`
    INSERT INTO "WebhookEvent" ("source", "shopDomain", "topic", "eventKey", "webhookId",
                                "triggeredAt", "payload", "ignoredReason")
    VALUES (${event.source}, ${event.shopDomain}, ${event.topic}, ${event.eventKey},
            ${event.webhookId ?? null}, ${event.triggeredAt ?? null},
            ${JSON.stringify(event.payload)}::jsonb, ${reason.slice(0, 500)})
    ON CONFLICT ("source", "eventKey") DO NOTHING
    RETURNING "id"`;
  const stored = rows[0];
  return stored ? { duplicate: false, eventId: stored.id } : { duplicate: true };
}

/**
 * The job's id is drawn first so that the event row can point at it; a duplicate event wastes
 * one sequence number and inserts nothing (the job insert reads from the event insert).
 */
async function insertEventWithJob(db: Db, event: IncomingEvent): Promise<RecordResult> {
  const kind = jobKindFor(event.source, event.topic);
  const gate = event.onlyForShop !== undefined;
  const acceptUninstalled = event.onlyForShop?.acceptUninstalled === true;
  const rows = await db.$queryRaw<{ allowed: number; known: number; eventId: bigint | null }[]>`
    WITH shop AS (
      SELECT "uninstalledAt" FROM "Shop" WHERE "domain" = ${event.shopDomain}
    ), allowed AS (
      SELECT 1 AS ok
      WHERE NOT ${gate}::boolean
         OR EXISTS (SELECT 1 FROM shop
                    WHERE "uninstalledAt" IS NULL OR ${acceptUninstalled}::boolean)
    ), next_job AS (
      SELECT nextval(pg_get_serial_sequence('"Job"', 'id')) AS id FROM allowed
    ), ev AS (
      INSERT INTO "WebhookEvent" ("source", "shopDomain", "topic", "eventKey", "webhookId",
                                  "triggeredAt", "payload", "jobId")
      SELECT ${event.source}, ${event.shopDomain}, ${event.topic}, ${event.eventKey},
             ${event.webhookId ?? null}, ${event.triggeredAt ?? null},
             ${JSON.stringify(event.payload)}::jsonb, next_job.id
      FROM next_job
      ON CONFLICT ("source", "eventKey") DO NOTHING
      RETURNING "id", "jobId"
    ), job AS (
      INSERT INTO "Job" ("id", "kind", "payload", "idempotencyKey", "shopDomain", "updatedAt")
      SELECT ev."jobId", ${kind}, jsonb_build_object('eventId', ev."id"::text),
             ${`${event.source}:${event.eventKey}`}, ${event.shopDomain}, now()
      FROM ev
      ON CONFLICT ("idempotencyKey") DO NOTHING
      RETURNING "id"
    )
    SELECT (SELECT count(*) FROM allowed)::int AS "allowed",
           (SELECT count(*) FROM shop)::int AS "known",
           (SELECT ev."id" FROM ev, job) AS "eventId"`;
  const row = rows[0]!;
  if (row.allowed === 0) {
    return { duplicate: false, refused: row.known === 0 ? "unknown shop" : "uninstalled shop" };
  }
  return row.eventId !== null ? { duplicate: false, eventId: row.eventId } : { duplicate: true };
}

/**
 * Keeps only the id of a stored event's payload, with the reason it was not acted on: a
 * delivery whose content must not stay (another shop's order, with its customer).
 */
export async function forgetEventPayload(db: Db, eventId: bigint, reason: string): Promise<void> {
  await db.$executeRaw`
    UPDATE "WebhookEvent"
    SET "payload" = jsonb_build_object('id', "payload"->'id'), "ignoredReason" = ${reason.slice(0, 500)}
    WHERE "id" = ${eventId}`;
}

const eventRef = z.object({ eventId: z.string().regex(/^\d+$/) });

/** The stored event a webhook job refers to (null once a shop/redact removed it). */
export async function loadEvent(ctx: JobContext) {
  const parsed = eventRef.safeParse(ctx.payload);
  if (!parsed.success) throw new PermanentJobError("Job payload has no eventId");
  return ctx.prisma.webhookEvent.findUnique({ where: { id: BigInt(parsed.data.eventId) } });
}
