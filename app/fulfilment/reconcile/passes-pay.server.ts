/**
 * The reconciler's passes on payment and held orders (3, 3b, 4): a pay run for unfinished
 * batches and orders waiting for the balance, one balance read for the orders waiting on the
 * service, and held orders whose cause may have gone placed again.
 */
import { optionsOf } from "../../orders/deps.server";
import { balanceSeen, recheckHeld } from "../../orders/recheck.server";
import { schedulePay, schedulePlace } from "../../orders/schedule.server";
import { SELF_RELEASING } from "../../orders/states";
import type { Pass } from "./context.server";

/** 3. Unfinished payment batches, and orders waiting for the balance. */
export const payRuns: Pass = async (ctx) => {
  const db = ctx.deps.prisma;
  const { staleBatchMs } = optionsOf(ctx.deps);
  const stale = await db.paymentBatch.count({
    where: {
      svcAccountId: ctx.accountId,
      state: { in: ["open", "carted", "confirming", "confirmed", "parented", "paying"] },
      updatedAt: { lt: new Date(ctx.now - staleBatchMs) },
    },
  });
  const waiting = await db.shopOrder.count({
    where: {
      svcAccountId: ctx.accountId,
      OR: [
        { state: "HELD", reasonCode: "short_balance" },
        {
          state: "CREATED",
          svcOrderId: { not: null },
          paymentBatchId: null,
          updatedAt: { lt: new Date(ctx.now - staleBatchMs) },
        },
      ],
    },
  });
  if (stale > 0 || waiting > 0) {
    await schedulePay(db, {
      accountId: ctx.accountId,
      shopDomain: ctx.shopDomain,
      nowMs: ctx.now,
      windowSeconds: 0,
      key: ctx.key,
    });
    ctx.result.payRuns++;
  }
};

/**
 * 3b. Held for a short balance or an unreachable service: one balance read tells both (a
 * top-up made in the service's console, the service answering again).
 */
export const waitingOnService: Pass = async (ctx) => {
  const db = ctx.deps.prisma;
  const groups = await db.shopOrder.groupBy({
    by: ["reasonCode"],
    where: {
      shopDomain: ctx.shopDomain,
      state: "HELD",
      reasonCode: { in: ["short_balance", "service_unavailable"] },
    },
    _count: true,
  });
  if (groups.length === 0) return;
  const balance = await (await ctx.svc()).payment.getBalance();
  await balanceSeen(db, ctx.account, String(balance.amount), ctx.now);
  if (groups.some((g) => g.reasonCode === "service_unavailable")) {
    ctx.result.replaced += await recheckHeld(db, ctx.shopDomain, ["service_unavailable"], ctx.key);
  }
};

/** 4. Held orders whose cause may have gone. */
export const heldAgain: Pass = async (ctx) => {
  const held = await ctx.deps.prisma.shopOrder.findMany({
    where: {
      shopDomain: ctx.shopDomain,
      state: "HELD",
      reasonCode: { in: SELF_RELEASING },
      updatedAt: { lt: new Date(ctx.now - optionsOf(ctx.deps).heldRecheckMs) },
    },
    select: { id: true },
    take: 500,
  });
  for (const h of held) {
    await schedulePlace(ctx.deps.prisma, {
      orderId: h.id,
      shopDomain: ctx.shopDomain,
      key: ctx.key,
    });
    ctx.result.replaced++;
  }
};
