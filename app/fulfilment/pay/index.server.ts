/**
 * Paying: per service account, in batches (size and window from the shop's settings), one batch
 * at a time per account (the pay job's concurrency key):
 *
 *   (getBalance) → addCart → addCartConfirm → saveGenerateParentOrder → payBalanceV2
 *
 * so N orders cost N creates + 4 calls per batch. This is the public file of the payment
 * pipeline: `payAccount` finishes the account's unfinished batches, then makes new ones of its
 * waiting orders, sandbox and normal apart, and runs each (run.server.ts: one step per batch
 * state). The balance it goes by is in balance.server.ts, the holds in hold.server.ts.
 */
import type { Prisma } from "@prisma/client";
import { pendingCount } from "../../jobs/enqueue.server";
import { addLogContext } from "../../log-context.server";
import { getSettings, labelModeReason } from "../../settings.server";
import type { FulfilmentDeps } from "../../orders/deps.server";
import { optionsOf } from "../../orders/deps.server";
import {
  CREATING_PAY_WINDOW_SECONDS,
  creatingKinds,
  schedulePay,
} from "../../orders/schedule.server";
import { transition } from "../../orders/transition.server";
import { splitByBalance } from "./balance.server";
import { BATCH_STATES, PAYABLE, type PayRunResult, type RunCtx } from "./context.server";
import { holdLabelMode, holdShort } from "./hold.server";
import { runBatch } from "./run.server";

export type { PayRunResult } from "./context.server";

/** A partial batch waits for creates in flight at most this long after its oldest order. */
export const PAY_DEFER_MAX_MS = 60_000;

/**
 * Are more orders of this shop being created right now (a place job or an order delivery due
 * or running), and has the oldest candidate waited less than PAY_DEFER_MAX_MS?
 */
async function stillCreating(
  ctx: RunCtx,
  candidates: Array<{ placedAt: Date | null }>,
): Promise<boolean> {
  // A window of 0 asks for no waiting at all. (The caller has fewer candidates than the batch
  // size, so the size is at least 2; an account without a shop matches no job.)
  if (ctx.settings.payBatchWindowSeconds === 0) return false;
  const oldest = Math.min(...candidates.map((c) => c.placedAt?.getTime() ?? 0));
  if (ctx.deps.clock.now() - oldest >= PAY_DEFER_MAX_MS) return false;
  const kinds = creatingKinds(ctx.settings.trigger);
  return (await pendingCount(ctx.deps.prisma, { kinds, shopDomain: ctx.shopDomain })) > 0;
}

export async function payAccount(deps: FulfilmentDeps, accountId: string): Promise<PayRunResult> {
  const db = deps.prisma;
  const account = await db.svcAccount.findUnique({ where: { id: accountId } });
  const result: PayRunResult = { batchesPaid: 0, ordersPaid: 0, held: 0, failed: 0 };
  if (!account) return result;
  addLogContext({ shop: account.shopDomain ?? undefined });
  const settings = await getSettings(db, account.shopDomain ?? "");
  const ctx: RunCtx = {
    deps,
    client: await deps.svcFor(accountId),
    accountId,
    shopDomain: account.shopDomain,
    settings,
    balance: null,
    balanceFresh: false,
    // (A null knownBalance stays null whatever its time.)
    storedBalance:
      account.knownBalanceAt !== null &&
      deps.clock.now() - account.knownBalanceAt.getTime() < optionsOf(deps).balanceTrustMs
        ? account.knownBalance
        : null,
    reserved: new Set(),
    result,
  };

  // 1. Batches a crash, a short balance or an unknown outcome left unfinished.
  const unfinished = await db.paymentBatch.findMany({
    where: { svcAccountId: accountId, state: { in: [...BATCH_STATES] } },
    orderBy: { createdAt: "asc" },
  });
  for (const batch of unfinished) await runBatch(ctx, batch);

  // 2. New batches of waiting orders, sandbox and normal apart; with automatic payment off, only
  // the orders the merchant asked to pay (Pay now).
  const requested: Prisma.ShopOrderWhereInput = settings.autoPay
    ? {}
    : { payRequestedAt: { not: null } };
  const labelMode = labelModeReason(settings);
  if (labelMode) {
    await holdLabelMode(ctx, requested, labelMode);
    return result;
  }
  for (const isSandbox of [false, true]) await payNew(ctx, isSandbox, requested);
  return result;
}

/** New batches of one kind (sandbox or normal) until no waiting order is left. */
async function payNew(ctx: RunCtx, isSandbox: boolean, requested: Prisma.ShopOrderWhereInput) {
  const { deps, accountId, settings } = ctx;
  const db = deps.prisma;
  const skip = new Set<string>();
  for (;;) {
    const candidates = await db.shopOrder.findMany({
      where: {
        svcAccountId: accountId,
        isSandbox,
        paymentBatchId: null,
        svcOrderId: { not: null },
        id: { notIn: [...skip] },
        OR: PAYABLE,
        ...requested,
      },
      orderBy: [{ placedAt: "asc" }, { id: "asc" }],
      take: settings.payBatchSize,
    });
    if (candidates.length === 0) break;
    if (candidates.length < settings.payBatchSize && (await stillCreating(ctx, candidates))) {
      // A partial batch while this shop's creates are still going: 5 calls for a few orders
      // would take the create calls' slots. Wait for the batch to fill (the create that fills
      // it runs the account at once) or for the creates to stop; a follow-up run is queued.
      ctx.result.deferred = candidates.length;
      await schedulePay(db, {
        accountId,
        shopDomain: ctx.shopDomain,
        nowMs: deps.clock.now(),
        windowSeconds: 0,
        delayMs: Math.max(settings.payBatchWindowSeconds, CREATING_PAY_WINDOW_SECONDS) * 1000,
        key: "deferred",
      });
      break;
    }
    let chosen = candidates;
    if (!isSandbox) {
      const { fit, short } = await splitByBalance(ctx, candidates);
      for (const o of short) skip.add(o.id);
      await holdShort(ctx, short, (o) => `this order (${o.need} USD)`);
      chosen = fit;
    }
    if (chosen.length > 0) {
      const batch = await db.$transaction(async (tx) => {
        const b = await tx.paymentBatch.create({
          data: { svcAccountId: accountId, isSandbox, state: "open" },
        });
        await transition(
          tx,
          { id: { in: chosen.map((o) => o.id) }, paymentBatchId: null, OR: PAYABLE },
          {
            to: "PAYING",
            reason: null,
            message: null,
            set: { paymentBatchId: b.id },
            timeline: null,
          },
        );
        // None left (taken meanwhile): the batch's run finds no order and fails it.
        return b;
      });
      ctx.reserved.add(batch.id);
      await runBatch(ctx, batch);
    }
    if (candidates.length < settings.payBatchSize) break;
  }
}
