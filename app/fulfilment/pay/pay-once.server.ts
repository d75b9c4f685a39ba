/**
 * The payment of a batch, at most once in effect (payBalanceV2 for its parent order, which keeps
 * its payId: the service does not deduct twice for one parent). A payment whose outcome is
 * unknown is checked with getOrderDetailBatch before paying again; a refused balance holds the
 * batch, a refused payment fails its orders; a paid batch's orders become PAID.
 */
import { SvcError, SvcInsufficientBalanceError, SvcPaymentError } from "../../svc/errors";
import { scheduleSandboxTrack } from "../../orders/schedule.server";
import { errorFields } from "../../orders/timeline.server";
import { transition } from "../../orders/transition.server";
import { fetchBalance } from "./balance.server";
import { UNPAID_STATUSES } from "../../svc/order-statuses";
import { idsOf, setBatch, type BatchRun, type RunCtx, type Step } from "./context.server";
import { holdBatchShort } from "./hold.server";

/** paying: a previous attempt's outcome is unknown; the orders' pay state is checked first. */
export const resumePayStep: Step = async (ctx, run) => {
  await payOnce(ctx, run, true);
  return "done";
};

/**
 * payBalanceV2 at most once in effect. `resumed`: a previous attempt's outcome is unknown, so the
 * orders' pay state is checked first.
 */
export async function payOnce(ctx: RunCtx, run: BatchRun, resumed: boolean) {
  const batch = run.batch;
  const orderIds = idsOf(run);
  const svcIds = (
    await ctx.deps.prisma.shopOrder.findMany({
      where: { id: { in: orderIds } },
      select: { svcOrderId: true },
    })
  ).map((o) => o.svcOrderId!);
  const allPaid = async () => {
    const records = await ctx.client.orders.getOrdersDetail(svcIds);
    return (
      records.length > 0 && records.every((r) => !UNPAID_STATUSES.includes(r.orderStatus ?? ""))
    );
  };
  if (resumed && (await allPaid())) {
    await markPaid(ctx, run, "found paid after an unknown outcome");
    return;
  }
  try {
    await ctx.client.payment.payBalanceV2(batch.shipmentOrderId!, batch.payId ?? undefined);
  } catch (error) {
    if (error instanceof SvcInsufficientBalanceError) {
      await setBatch(ctx, batch.id, { state: "parented" });
      ctx.balance = "0.00";
      try {
        await fetchBalance(ctx);
      } catch {
        /* the message then shows 0.00 */
      }
      await holdBatchShort(ctx, run);
      return;
    }
    if (error instanceof SvcError && error.outcomeUnknown) {
      if (await allPaid()) {
        await markPaid(ctx, run, "confirmed by a query after an unknown outcome");
        return;
      }
      // Not paid: the batch stays "paying" and the next run checks again before paying.
      throw error;
    }
    if (error instanceof SvcPaymentError) {
      await failPayment(ctx, run, error);
      return;
    }
    throw error;
  }
  await markPaid(ctx, run);
}

/** The service refused the payment itself: the orders fail for the merchant to check. */
async function failPayment(ctx: RunCtx, run: BatchRun, error: SvcPaymentError) {
  const orderIds = idsOf(run);
  const f = errorFields(error);
  const message = `The service refused the payment: ${f.message}. Check the account, then Retry.`;
  await transition(ctx.deps.prisma, orderIds, {
    to: "FAILED",
    reason: "payment_failed",
    message,
    timeline: {
      step: "pay",
      outcome: "error",
      errorCode: f.errorCode,
      requestId: f.requestId,
      message,
    },
  });
  await setBatch(ctx, run.batch.id, { state: "failed", error: f.message });
  ctx.result.failed += orderIds.length;
}

/** The batch is paid: it and its orders say so together; a cancel asked meanwhile is noted. */
async function markPaid(ctx: RunCtx, run: BatchRun, note?: string) {
  const db = ctx.deps.prisma;
  const batch = run.batch;
  const orderIds = idsOf(run);
  const now = new Date(ctx.deps.clock.now());
  const flagged = await db.shopOrder.findMany({
    where: { id: { in: orderIds }, flag: "cancel_requested" },
    select: { id: true },
  });
  await db.$transaction(async (tx) => {
    await tx.paymentBatch.update({ where: { id: batch.id }, data: { state: "paid", paidAt: now } });
    await transition(tx, orderIds, {
      to: "PAID",
      reason: null,
      message: null,
      set: { paidAt: now },
      timeline: {
        step: "pay",
        outcome: "ok",
        // Stryker disable next-line StringLiteral: message
        message: `Paid from the balance${batch.isSandbox ? " (sandbox: nothing charged)" : ""} with parent ${batch.shipmentOrderId}${batch.amount ? ` (${batch.amount} USD for ${orderIds.length} order(s))` : ""}${note ? `, ${note}` : ""}.`,
      },
    });
    await tx.shopOrder.updateMany({
      where: { id: { in: flagged.map((f) => f.id) } },
      data: {
        flag: "cancelled_after_payment",
        reasonMessage:
          "Cancelled in the shop while it was being paid: the service order is paid and will ship. The contract has no cancel call; open a dispute or contact the service.",
      },
    });
  });
  // In sandbox mode nothing ships: the service takes a test tracking number instead.
  if (batch.isSandbox) await scheduleSandboxTrack(db, orderIds, ctx.shopDomain);
  ctx.result.batchesPaid += 1;
  ctx.result.ordersPaid += orderIds.length;
}
