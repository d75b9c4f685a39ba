/**
 * The cart steps of a payment batch: open → carted (addCart), carted → confirmed
 * (addCartConfirm: the service's shipmentOrderId for the parent), and confirming, the check of
 * a confirmation whose outcome is unknown. Orders the service refuses or intercepts leave the
 * batch with its reason (leave.server.ts).
 */
import { SvcError } from "../../svc/errors";
import { transition } from "../../orders/transition.server";
import { addTimelineMany } from "../../orders/timeline.server";
import { batchOrders, idsOf, setBatch, svcIdsOf, type Next, type Step } from "./context.server";
import { adoptPaidAtService, dropFromBatch, reasonsById } from "./leave.server";

/** open: the orders go into the service cart; those refused leave (or were paid already). */
export const cartStep: Step = async (ctx, run) => {
  const db = ctx.deps.prisma;
  const { orders } = run;
  const r = await ctx.client.orders.addCart(svcIdsOf(run));
  const added = new Set(r.addSuccessOrders.map(String));
  const refused = orders.filter((o) => !added.has(o.svcOrderId!));
  const paidElsewhere = await adoptPaidAtService(ctx, refused);
  await dropFromBatch(
    ctx,
    refused.filter((o) => !paidElsewhere.has(o.id)),
    "Not added to the service cart",
    reasonsById(r as Record<string, unknown>),
  );
  run.batch = await setBatch(ctx, run.batch.id, { state: "carted" });
  await addTimelineMany(
    db,
    orders.filter((o) => added.has(o.svcOrderId!)).map((o) => o.id),
    {
      step: "cart",
      outcome: "ok",
      message: `Added to the service cart (batch of ${added.size}).`,
    },
  );
  return "carted";
};

/** carted: the cart is confirmed; intercepted orders leave, the rest take the shipmentOrderId. */
export const confirmStep: Step = async (ctx, run) => {
  const db = ctx.deps.prisma;
  const current = run.batch;
  // Lock the batch against a concurrent cancel: what is confirmed now gets paid.
  const confirmIds = await db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT "id" FROM "PaymentBatch" WHERE "id" = ${current.id} FOR UPDATE`;
    await tx.paymentBatch.update({
      where: { id: current.id },
      data: { state: "confirming" },
    });
    return (await batchOrders(tx, current.id)).map((o) => o.svcOrderId!);
  });
  run.at = "confirming";
  if (confirmIds.length === 0) {
    await setBatch(ctx, current.id, { state: "failed", error: "every order left the batch" });
    return "done";
  }
  const r = await ctx.client.orders.addCartConfirm(confirmIds);
  const shipmentOrderId = r.shipmentsId ?? null;
  const why = reasonsById(r as Record<string, unknown>);
  const rows = await batchOrders(db, current.id);
  const intercepted = rows.filter((o) => why.has(o.svcOrderId!));
  await dropFromBatch(ctx, intercepted, "Intercepted by the service at confirmation", why);
  if (!shipmentOrderId)
    throw new SvcError({
      operation: "addCartConfirm",
      message: "no shipmentsId in the confirmation",
    });
  // The confirmed orders (the intercepted ones left the batch above) carry the parent's id.
  [run.batch] = await db.$transaction([
    db.paymentBatch.update({
      where: { id: current.id },
      data: { state: "confirmed", shipmentOrderId },
    }),
    db.shopOrder.updateMany({
      where: { paymentBatchId: current.id, svcOrderId: { in: confirmIds } },
      data: { shipmentOrderId },
    }),
  ]);
  return "confirmed";
};

/**
 * confirming: the confirmation's outcome is unknown. Every order still in the cart → confirm
 * again; some out of it again (CREATED: the cart was emptied) → cart them again first. Confirmed,
 * the shipmentOrderId (only in the lost reply) is unknown: the orders fail for the merchant to
 * pay in the service's console.
 */
export const confirmingStep: Step = async (ctx, run): Promise<Next> => {
  const records = await ctx.client.orders.getOrdersDetail(svcIdsOf(run));
  const statuses = new Set(records.map((r) => r.orderStatus));
  const unconfirmed = [...statuses].every((s) => s === "IN_CART" || s === "CREATED");
  if (unconfirmed && records.length > 0) {
    const next = statuses.has("CREATED") ? "open" : "carted";
    run.batch = await setBatch(ctx, run.batch.id, { state: next });
    return next;
  }
  const ids = idsOf(run);
  const message =
    "The service confirmed the order but its reply was lost, so the parent order is unknown. Pay it in the service's console, then Retry.";
  await transition(ctx.deps.prisma, ids, {
    to: "FAILED",
    reason: "confirm_unknown",
    message,
    set: { paymentBatchId: null },
    timeline: { step: "confirm", outcome: "error", errorCode: "confirm_unknown", message },
  });
  ctx.result.failed += ids.length;
  await setBatch(ctx, run.batch.id, { state: "failed", error: "confirmation outcome unknown" });
  return "done";
};
