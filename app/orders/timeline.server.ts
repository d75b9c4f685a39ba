/**
 * The merchant's timeline of an order: every step writes one entry (time, step, outcome, the
 * service's requestId, an error code and a message). Messages are built by the pipeline from
 * typed errors, which never carry tokens; customer data is never written here.
 */
import type { Prisma } from "@prisma/client";
import type { Db } from "../db/types";
import { SvcError } from "../svc/errors";
import { ShopError } from "../shop/errors";

export type Outcome = "ok" | "error" | "held" | "info";

export interface TimelineInput {
  step: string;
  outcome: Outcome;
  message?: string;
  requestId?: string | null;
  errorCode?: string | number | null;
  at?: Date;
}

export async function addTimeline(db: Db, orderId: string, e: TimelineInput): Promise<void> {
  await db.timelineEntry.create({ data: timelineRow(orderId, e) });
}

/** The row of one entry (also written by `transition`, in the transaction of the change). */
export function timelineRow(
  orderId: string,
  e: TimelineInput,
): Prisma.TimelineEntryCreateManyInput {
  return {
    orderId,
    step: e.step,
    outcome: e.outcome,
    message: e.message?.slice(0, 1000) ?? null,
    requestId: e.requestId ?? null,
    errorCode: e.errorCode == null ? null : String(e.errorCode),
    ...(e.at ? { at: e.at } : {}),
  };
}

/** Many orders, one step (a payment batch). */
export async function addTimelineMany(db: Db, orderIds: string[], e: TimelineInput): Promise<void> {
  if (orderIds.length === 0) return;
  await db.timelineEntry.createMany({ data: orderIds.map((id) => timelineRow(id, e)) });
}

/** The timeline fields of an error: service code and requestId, or the shop error's code. */
export function errorFields(error: unknown): {
  message: string;
  errorCode?: string;
  requestId?: string;
} {
  if (error instanceof SvcError) {
    return {
      message: error.message,
      errorCode: error.code !== undefined ? String(error.code) : error.name,
      requestId: error.requestId,
    };
  }
  if (error instanceof ShopError) {
    return { message: error.message, errorCode: error.code };
  }
  if (error instanceof Error)
    return { message: `${error.name}: ${error.message}`, errorCode: error.name };
  return { message: String(error) };
}
