/**
 * Orders that leave a payment batch before it is paid: refused or intercepted by the service
 * (FAILED with the service's reason, for the merchant to correct and Retry), or found already
 * paid at the service outside the app (PAID, nothing charged); and the service's reasons per
 * order, read from the several shapes its replies use.
 */
import { transition } from "../../orders/transition.server";
import { errorFields } from "../../orders/timeline.server";
import { PAID_AT_SERVICE } from "../../svc/order-statuses";
import type { RunCtx } from "./context.server";

/**
 * Orders leave the batch (intercepted, refused): FAILED with the service's reason for each (`why`,
 * by service order id), else the error's.
 */
export async function dropFromBatch(
  ctx: RunCtx,
  rows: Array<{ id: string; svcOrderId: string | null }>,
  reason: string,
  why: Map<string, string>,
  error?: unknown,
) {
  const f = error ? errorFields(error) : undefined;
  for (const { id, svcOrderId } of rows) {
    const own = why.get(svcOrderId!);
    // Stryker disable next-line StringLiteral: message
    const message = `${reason}${own ? `: ${own}` : f ? `: ${f.message}` : ""}. Correct the cause, then Retry.`;
    await transition(ctx.deps.prisma, id, {
      to: "FAILED",
      reason: "intercepted",
      message: message.slice(0, 500),
      set: { paymentBatchId: null },
      timeline: {
        step: "pay",
        outcome: "error",
        errorCode: f?.errorCode ?? "intercepted",
        requestId: f?.requestId,
        message,
      },
    });
  }
  ctx.result.failed += rows.length;
}

/**
 * Orders the cart refused may have been paid at the service outside the app: the merchant paid
 * a parent order in the service's console (what the app asks after a confirmation whose reply
 * was lost), then pressed Retry. The service's status says so; those are PAID, nothing charged
 * by the app, and the stored known balance is no longer trusted (the next run asks the service).
 * Returns their row ids.
 */
export async function adoptPaidAtService(
  ctx: RunCtx,
  refused: Array<{ id: string; svcOrderId: string | null }>,
): Promise<Set<string>> {
  const out = new Set<string>();
  const db = ctx.deps.prisma;
  const rowBySvc = new Map(refused.map((o) => [o.svcOrderId!, o.id]));
  const records = await ctx.client.orders.getOrdersDetail([...rowBySvc.keys()]);
  for (const r of records) {
    const row = rowBySvc.get(r.orderId ?? r.svcOrderId ?? "");
    if (row && PAID_AT_SERVICE.includes(r.orderStatus ?? "")) out.add(row);
  }
  if (out.size === 0) return out;
  const ids = [...out];
  await db.$transaction(async (tx) => {
    await transition(tx, ids, {
      to: "PAID",
      reason: null,
      message: null,
      set: { paidAt: new Date(ctx.deps.clock.now()), paymentBatchId: null },
      timeline: {
        step: "pay",
        outcome: "ok",
        message:
          "Already paid at the service (outside the app, e.g. in its console): nothing charged by the app.",
      },
    });
    await tx.svcAccount.update({ where: { id: ctx.accountId }, data: { knownBalanceAt: null } });
  });
  ctx.result.ordersPaid += ids.length;
  return out;
}

/** Reasons the service gave per order id, from the several shapes it uses. */
export function reasonsById(data: Record<string, unknown>): Map<string, string> {
  const out = new Map<string, string>();
  const add = (id: unknown, msg: unknown) => {
    if (typeof id !== "string" && typeof id !== "number") return;
    const key = String(id);
    const m = typeof msg === "string" && msg ? msg : "intercepted";
    out.set(key, out.has(key) ? `${out.get(key)}; ${m}` : m);
  };
  // The reasons first: a bare id in interceptOrders gets the generic reason only when the
  // service gave none of its own.
  for (const field of ["interceptOrderReasons", "interceptOrders"]) {
    const list = data[field];
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (typeof item === "string" || typeof item === "number") {
        if (!out.has(String(item))) add(item, "intercepted at confirmation");
      } else if (item && typeof item === "object") {
        const r = item as Record<string, unknown>;
        add(r.orderId ?? r.svcOrderId ?? r.id, r.message ?? r.reason ?? r.meaning);
      }
    }
  }
  return out;
}
