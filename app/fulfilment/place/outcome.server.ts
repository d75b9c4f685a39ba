/**
 * How a placing ends short of the create: the order held (a cause the merchant or time mends),
 * failed (the service refused it) or cancelled (nothing to send). Each writes the state through
 * `transition` (app/orders/transition.server.ts) with its timeline entry. Also the hold of an
 * order whose place job kept failing for a passing reason.
 */
import type { ShopOrder as OrderRow } from "@prisma/client";
import type { Db } from "../../db/types";
import type { FulfilmentDeps } from "../../orders/deps.server";
import type { ReasonCode } from "../../orders/states";
import { errorFields } from "../../orders/timeline.server";
import { transition } from "../../orders/transition.server";
import { SvcError } from "../../svc/errors";

export type PlaceResult =
  | { outcome: "created"; svcOrderId: string | null }
  | { outcome: "held"; reason: ReasonCode; retryAt?: Date }
  | { outcome: "failed"; reason: ReasonCode }
  | { outcome: "cancelled"; reason?: ReasonCode }
  | { outcome: "skipped"; why: string };

export async function hold(
  db: Db,
  order: Pick<OrderRow, "id" | "state" | "reasonCode">,
  reason: ReasonCode,
  message: string,
  extra: Partial<Pick<OrderRow, "placeAfter" | "currency">> = {},
): Promise<void> {
  // One timeline entry per change, not per re-check.
  const changed = order.state !== "HELD" || order.reasonCode !== reason;
  await transition(db, order.id, {
    to: "HELD",
    reason,
    message,
    set: extra,
    timeline: changed ? { step: "hold", outcome: "held", errorCode: reason, message } : null,
  });
}

export async function fail(
  db: Db,
  orderId: string,
  reason: ReasonCode,
  message: string,
  error?: unknown,
): Promise<void> {
  const f = error ? errorFields(error) : undefined;
  await transition(db, orderId, {
    to: "FAILED",
    reason,
    message,
    timeline: {
      step: "create",
      outcome: "error",
      errorCode: f?.errorCode ?? reason,
      requestId: f?.requestId,
      message: f ? `${message} (${f.message})` : message,
    },
  });
}

/** Cancelled before placing: the shop cancelled it, or nothing of it is the service's to ship. */
export async function cancelBeforePlacing(
  db: Db,
  orderId: string,
  move: { reason: ReasonCode; message: string; note: string; step: string; cancelledAt?: Date },
): Promise<void> {
  await transition(db, orderId, {
    to: "CANCELLED",
    reason: move.reason,
    message: move.message,
    set: move.cancelledAt ? { cancelledAt: move.cancelledAt } : undefined,
    timeline: { step: move.step, outcome: "info", message: move.note },
  });
}

/**
 * A place job that kept failing for a retryable reason (the service unreachable or busy): the
 * order is held `service_unavailable` so the merchant sees it, until the service answers again.
 */
export async function holdUnreachable(
  deps: FulfilmentDeps,
  orderId: string,
  error: unknown,
): Promise<PlaceResult> {
  const order = await deps.prisma.shopOrder.findUnique({ where: { id: orderId } });
  if (!order || (order.state !== "RECEIVED" && order.state !== "HELD")) {
    return { outcome: "skipped", why: `state ${order?.state ?? "gone"}` };
  }
  await hold(
    deps.prisma,
    order,
    "service_unavailable",
    `Placing this order failed several times for a passing reason (${errorFields(error).message}). It is tried again as soon as the service answers, and at least every ten minutes.`,
  );
  return { outcome: "held", reason: "service_unavailable" };
}

/** SvcError's requestId helper for callers outside this module. */
export function isRetryable(error: unknown): boolean {
  return error instanceof SvcError ? error.retryable || error.outcomeUnknown : true;
}
