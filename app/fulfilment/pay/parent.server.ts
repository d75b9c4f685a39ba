/**
 * The parent steps of a payment batch: confirmed → parented (saveGenerateParentOrder: the
 * parent's payId and the amount payable) and parented → paying, where the batch's amount is
 * checked against the balance and taken off it before the payment (pay-once.server.ts); a
 * balance that does not cover it holds the batch until a top-up.
 */
import { subtractMoney, toMoney } from "../../svc/decimal";
import { addTimelineMany } from "../../orders/timeline.server";
import { covers, currentBalance, setLeft } from "./balance.server";
import { idsOf, setBatch, type Step } from "./context.server";
import { holdBatchShort } from "./hold.server";
import { payOnce } from "./pay-once.server";

/** confirmed: the parent order is generated; its payId and amount are kept on the batch. */
export const parentStep: Step = async (ctx, run) => {
  const db = ctx.deps.prisma;
  const current = run.batch;
  const parent = await ctx.client.orders.saveGenerateParentOrder(current.shipmentOrderId!);
  const payId = parent.payId ?? null;
  const amount = parent.payAmount ?? parent.amount ?? parent.orderMoney ?? null;
  [run.batch] = await db.$transaction([
    db.paymentBatch.update({
      where: { id: current.id },
      data: { state: "parented", payId, amount: amount ? toMoney(amount) : null },
    }),
    db.shopOrder.updateMany({ where: { paymentBatchId: current.id }, data: { payId } }),
  ]);
  await addTimelineMany(db, idsOf(run), {
    step: "parent",
    outcome: "ok",
    // Stryker disable next-line StringLiteral: message
    message: `Parent order ${parent.parentOrderId ?? parent.parentOrderNumber ?? current.shipmentOrderId} generated${amount ? `: ${toMoney(amount)} USD payable` : ""}.`,
  });
  return "parented";
};

/** parented: the balance must cover the batch (sandbox ones cost nothing), then it is paid. */
export const reserveStep: Step = async (ctx, run) => {
  const current = run.batch;
  if (!current.isSandbox && current.amount && !ctx.reserved.has(current.id)) {
    if (!(await covers(ctx, current.amount))) {
      await holdBatchShort(ctx, run);
      return "done";
    }
    await setLeft(ctx, subtractMoney(await currentBalance(ctx), current.amount));
    ctx.reserved.add(current.id);
  }
  run.batch = await setBatch(ctx, current.id, { state: "paying" });
  run.at = "paying";
  await payOnce(ctx, run, false);
  return "done";
};
