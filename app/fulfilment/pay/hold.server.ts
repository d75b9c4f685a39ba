/**
 * Orders a payment run holds back: short of balance (a new batch's candidates that the balance
 * does not cover, or a whole batch whose parent order it does not cover), told once and
 * re-checked on a timer; and the created orders of a shop whose warehouse mode needs a label the
 * app cannot send.
 */
import type { Prisma } from "@prisma/client";
import { transition } from "../../orders/transition.server";
import { optionsOf } from "../../orders/deps.server";
import { schedulePay } from "../../orders/schedule.server";
import type { BatchRun, RunCtx } from "./context.server";

/**
 * Holds `orders` for a short balance, each with the sentence `what(o)` names (the order, or its
 * batch), and asks for a re-check. Told once: an order already held for a short balance gets
 * no second timeline entry (a created candidate has no reason).
 */
export async function holdShort<T extends { id: string; reasonCode?: string | null }>(
  ctx: RunCtx,
  orders: T[],
  what: (o: T) => string,
) {
  if (orders.length === 0) return;
  const balance = ctx.balance;
  for (const o of orders) {
    const message = `The service balance (${balance} USD available) does not cover ${what(o)}. It is paid automatically once the balance is topped up.`;
    await transition(ctx.deps.prisma, o.id, {
      to: "HELD",
      reason: "short_balance",
      message,
      timeline:
        o.reasonCode === "short_balance"
          ? null
          : { step: "pay", outcome: "held", errorCode: "short_balance", message },
    });
  }
  ctx.result.held += orders.length;
  await scheduleRecheck(ctx);
}

/** The whole batch waits for a top-up: its parent order is paid in one piece or not at all. */
export async function holdBatchShort(ctx: RunCtx, run: BatchRun) {
  const n = run.orders.length;
  await holdShort(
    ctx,
    run.orders,
    () => `this payment batch (${run.batch.amount} USD for ${n} order(s))`,
  );
}

async function scheduleRecheck(ctx: RunCtx) {
  const { balanceRecheckMs } = optionsOf(ctx.deps);
  const now = ctx.deps.clock.now();
  ctx.result.recheckAt = new Date(now + balanceRecheckMs);
  await schedulePay(ctx.deps.prisma, {
    accountId: ctx.accountId,
    shopDomain: ctx.shopDomain,
    nowMs: now,
    windowSeconds: 0,
    delayMs: balanceRecheckMs,
    key: `recheck:${Math.floor(now / balanceRecheckMs)}`,
  });
}

/**
 * The shop's warehouse mode needs a label after payment that the app cannot send: its created
 * orders are held out of every new batch, with the reason, until the mode is changed (the
 * settings save re-checks them, app/orders/recheck.server.ts).
 */
export async function holdLabelMode(
  ctx: RunCtx,
  requested: Prisma.ShopOrderWhereInput,
  message: string,
) {
  const db = ctx.deps.prisma;
  const waiting = await db.shopOrder.findMany({
    where: {
      svcAccountId: ctx.accountId,
      paymentBatchId: null,
      svcOrderId: { not: null },
      OR: [{ state: "CREATED" }, { state: "HELD", reasonCode: "short_balance" }],
      ...requested,
    },
    select: { id: true },
  });
  if (waiting.length === 0) return;
  const ids = waiting.map((o) => o.id);
  await transition(db, ids, {
    to: "HELD",
    reason: "warehouse_mode",
    message,
    timeline: { step: "pay", outcome: "held", errorCode: "warehouse_mode", message },
  });
  ctx.result.held += ids.length;
}
