/**
 * Paying: per service account, in batches (size and window from the shop's settings), one batch
 * at a time per account (the pay job's concurrency key):
 *
 *   (getBalance) → addCart → addCartConfirm → saveGenerateParentOrder → payBalanceV2
 *
 * so N orders cost N creates + 4 calls per batch. The balance is asked for when the account's
 * known balance (SvcAccount.knownBalance: the last answer minus what was committed since) is
 * older than `balanceTrustMs`, does not cover an order, or was refused by a payment. Every step's result is persisted on the
 * PaymentBatch (state, shipmentOrderId, payId) and its orders before the next, so a crash
 * resumes the batch where it stopped; a payment whose outcome is unknown is checked with
 * getOrderDetailBatch before paying again, and the parent keeps its payId (the service does not
 * deduct twice for one parent). Sandbox and normal orders never share a batch.
 */
import type { PaymentBatch, Prisma } from "@prisma/client";
import { pendingCount } from "../jobs/queue.server";
import { addLogContext } from "../log-context.server";
import { getSettings, labelModeReason, type ShopSettings } from "../settings.server";
import { compareMoney, subtractMoney, toMoney } from "../svc/decimal";
import {
  SvcCartError,
  SvcError,
  SvcInsufficientBalanceError,
  SvcPaymentError,
  SvcParamError,
} from "../svc/errors";
import type { SvcClient } from "../svc/client.server";
import type { FulfilmentDeps } from "../orders/deps.server";
import { optionsOf } from "../orders/deps.server";
import { JOB, schedulePay, scheduleSandboxTrack } from "../orders/schedule.server";
import { addTimelineMany, errorFields } from "../orders/timeline.server";

const UNPAID_STATUSES = ["CREATED", "IN_CART", "UNPAID"];
/** Statuses of an order the service has been paid for. */
/** Service statuses of an order that is paid. */
export const PAID_AT_SERVICE = ["UNSHIPPED", "PENDING", "PROCESSING", "SHIPPED", "DELIVERED"];
const OPEN_BATCH_STATES = ["open", "carted", "confirming", "confirmed", "parented", "paying"];
/** Orders a new batch takes: created ones, and those held for a cause the run itself clears. */
const PAYABLE: Prisma.ShopOrderWhereInput[] = [
  { state: "CREATED" },
  { state: "HELD", reasonCode: { in: ["short_balance", "warehouse_mode"] } },
];

export interface PayRunResult {
  batchesPaid: number;
  ordersPaid: number;
  held: number;
  failed: number;
  /** When the run wants to be called again (short balance). */
  recheckAt?: Date;
  /** Orders left for a fuller batch (creates still in flight). */
  deferred?: number;
}

/** A partial batch waits for creates in flight at most this long after its oldest order. */
export const PAY_DEFER_MAX_MS = 60_000;

/**
 * Are more orders of this shop being created right now (a place job due or running), and has
 * the oldest candidate waited less than PAY_DEFER_MAX_MS?
 */
async function stillCreating(
  ctx: RunCtx,
  candidates: Array<{ placedAt: Date | null }>,
  settings: ShopSettings,
): Promise<boolean> {
  // A window of 0 asks for no waiting at all. (The caller has fewer candidates than the batch
  // size, so the size is at least 2; an account without a shop matches no job.)
  if (settings.payBatchWindowSeconds === 0) return false;
  const oldest = Math.min(...candidates.map((c) => c.placedAt?.getTime() ?? 0));
  if (ctx.deps.clock.now() - oldest >= PAY_DEFER_MAX_MS) return false;
  return (await pendingCount(ctx.deps.prisma, { kind: JOB.place, shopDomain: ctx.shopDomain })) > 0;
}

interface RunCtx {
  deps: FulfilmentDeps;
  client: SvcClient;
  accountId: string;
  shopDomain: string | null;
  settings: ShopSettings;
  /** Balance known in this run (null: not read yet). */
  balance: string | null;
  /** `balance` comes from getBalance in this run (not from the stored known balance). */
  balanceFresh: boolean;
  /** The stored known balance, if still trusted. */
  storedBalance: string | null;
  /** Batches whose amount this run has already taken off `balance` (sandbox ones cost nothing). */
  reserved: Set<string>;
  result: PayRunResult;
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
    where: { svcAccountId: accountId, state: { in: OPEN_BATCH_STATES } },
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
  for (const isSandbox of [false, true]) {
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
      if (
        candidates.length < settings.payBatchSize &&
        (await stillCreating(ctx, candidates, settings))
      ) {
        // A partial batch while this shop's creates are still going: 5 calls for a few orders
        // would take the create calls' slots. Wait for the batch to fill (the create that fills
        // it runs the account at once) or for the creates to stop; a follow-up run is queued.
        result.deferred = candidates.length;
        await schedulePay(db, {
          accountId,
          shopDomain: ctx.shopDomain,
          nowMs: deps.clock.now(),
          windowSeconds: 0,
          delayMs: settings.payBatchWindowSeconds * 1000,
          key: "deferred",
        });
        break;
      }
      let chosen = candidates;
      if (!isSandbox) {
        const { fit, short } = await splitByBalance(ctx, candidates);
        for (const o of short) skip.add(o.id);
        await holdShort(ctx, short);
        chosen = fit;
      }
      if (chosen.length > 0) {
        const batch = await db.$transaction(async (tx) => {
          const b = await tx.paymentBatch.create({
            data: { svcAccountId: accountId, isSandbox, state: "open" },
          });
          await tx.shopOrder.updateMany({
            where: {
              id: { in: chosen.map((o) => o.id) },
              paymentBatchId: null,
              OR: PAYABLE,
            },
            data: { paymentBatchId: b.id, state: "PAYING", reasonCode: null, reasonMessage: null },
          });
          // None left (taken meanwhile): the batch's run finds no order and fails it.
          return b;
        });
        ctx.reserved.add(batch.id);
        await runBatch(ctx, batch);
      }
      if (candidates.length < settings.payBatchSize) break;
    }
  }
  return result;
}

/** Asks the service for the balance and stores it as the account's known balance. */
async function fetchBalance(ctx: RunCtx): Promise<string> {
  ctx.balance = toMoney((await ctx.client.payment.getBalance()).amount);
  ctx.balanceFresh = true;
  await ctx.deps.prisma.svcAccount.update({
    where: { id: ctx.accountId },
    data: { knownBalance: ctx.balance, knownBalanceAt: new Date(ctx.deps.clock.now()) },
  });
  return ctx.balance;
}

/** The balance this run goes by: the trusted stored one, else the service's. */
async function currentBalance(ctx: RunCtx): Promise<string> {
  if (ctx.balance !== null) return ctx.balance;
  if (ctx.storedBalance !== null) return (ctx.balance = ctx.storedBalance);
  return fetchBalance(ctx);
}

/** What is left once this run's commitments are paid, here and in the database. */
async function setLeft(ctx: RunCtx, left: string) {
  ctx.balance = left;
  await ctx.deps.prisma.svcAccount.update({
    where: { id: ctx.accountId },
    data: { knownBalance: left },
  });
}

/** Does the balance cover `amount`? A stored balance that says no is checked with the service. */
async function covers(ctx: RunCtx, amount: string): Promise<boolean> {
  if (compareMoney(amount, await currentBalance(ctx)) <= 0) return true;
  if (ctx.balanceFresh) return false;
  return compareMoney(amount, await fetchBalance(ctx)) <= 0;
}

/** Orders that the known balance covers, oldest first; the rest are short. */
async function splitByBalance<T extends { id: string; amount: string | null }>(
  ctx: RunCtx,
  orders: T[],
) {
  const split = (balance: string) => {
    const fit: T[] = [];
    const short: Array<T & { need: string }> = [];
    let left = balance;
    for (const o of orders) {
      const need = o.amount ? toMoney(o.amount) : "0.00";
      if (compareMoney(need, left) <= 0) {
        fit.push(o);
        left = subtractMoney(left, need);
      } else short.push({ ...o, need });
    }
    return { fit, short, left };
  };
  let result = split(await currentBalance(ctx));
  // A stored balance may predate a top-up: ask before holding anything.
  if (result.short.length > 0 && !ctx.balanceFresh) result = split(await fetchBalance(ctx));
  // What this run will spend is no longer available to the next batch.
  await setLeft(ctx, result.left);
  return { fit: result.fit, short: result.short };
}

/**
 * The shop's warehouse mode needs a label after payment that the app cannot send: its created
 * orders are held out of every new batch, with the reason, until the mode is changed (the
 * settings save re-checks them, app/orders/recheck.server.ts).
 */
async function holdLabelMode(ctx: RunCtx, requested: Prisma.ShopOrderWhereInput, message: string) {
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
  await db.shopOrder.updateMany({
    where: { id: { in: ids } },
    data: { state: "HELD", reasonCode: "warehouse_mode", reasonMessage: message },
  });
  await addTimelineMany(db, ids, {
    step: "pay",
    outcome: "held",
    errorCode: "warehouse_mode",
    message,
  });
  ctx.result.held += ids.length;
}

async function holdShort(
  ctx: RunCtx,
  short: Array<{ id: string; need: string; reasonCode?: string | null }>,
) {
  if (short.length === 0) return;
  const db = ctx.deps.prisma;
  const balance = ctx.balance;
  for (const o of short) {
    const message = `The service balance (${balance} USD available) does not cover this order (${o.need} USD). It is paid automatically once the balance is topped up.`;
    // Told once: a candidate already held for a short balance is not told again (a created
    // candidate has no reason).
    const already = o.reasonCode === "short_balance";
    await db.shopOrder.update({
      where: { id: o.id },
      data: { state: "HELD", reasonCode: "short_balance", reasonMessage: message },
    });
    if (!already) {
      await addTimelineMany(db, [o.id], {
        step: "pay",
        outcome: "held",
        errorCode: "short_balance",
        message,
      });
    }
  }
  ctx.result.held += short.length;
  await scheduleRecheck(ctx);
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

// ---------------------------------------------------------------------------------------------
// One batch, step by step

async function batchOrders(
  db: Prisma.TransactionClient | FulfilmentDeps["prisma"],
  batchId: string,
) {
  return db.shopOrder.findMany({
    where: { paymentBatchId: batchId, state: { in: ["PAYING", "HELD"] } },
    orderBy: { id: "asc" },
  });
}

async function setBatch(ctx: RunCtx, id: string, data: Prisma.PaymentBatchUpdateInput) {
  return ctx.deps.prisma.paymentBatch.update({ where: { id }, data });
}

/** Orders leave the batch (intercepted, refused): FAILED with the service's reason. */
async function dropFromBatch(
  ctx: RunCtx,
  ids: string[],
  reason: string,
  why: Map<string, string>,
  error?: unknown,
) {
  if (ids.length === 0) return;
  const db = ctx.deps.prisma;
  const f = error ? errorFields(error) : undefined;
  for (const id of ids) {
    const own = why.get(id);
    // Stryker disable next-line StringLiteral: message
    const message = `${reason}${own ? `: ${own}` : f ? `: ${f.message}` : ""}. Correct the cause, then Retry.`;
    await db.shopOrder.update({
      where: { id },
      data: {
        state: "FAILED",
        reasonCode: "intercepted",
        reasonMessage: message.slice(0, 500),
        paymentBatchId: null,
      },
    });
    await addTimelineMany(db, [id], {
      step: "pay",
      outcome: "error",
      errorCode: f?.errorCode ?? "intercepted",
      requestId: f?.requestId,
      message,
    });
  }
  ctx.result.failed += ids.length;
}

/**
 * Orders the cart refused may have been paid at the service outside the app: the merchant paid
 * a parent order in the service's console (what the app asks after a confirmation whose reply
 * was lost), then pressed Retry. The service's status says so; those are PAID, nothing charged
 * by the app, and the stored known balance is no longer trusted (the next run asks the service).
 * Returns their row ids.
 */
async function adoptPaidAtService(
  ctx: RunCtx,
  refused: Array<{ id: string; svcOrderId: string | null }>,
): Promise<Set<string>> {
  const out = new Set<string>();
  if (refused.length === 0) return out;
  const db = ctx.deps.prisma;
  const rowBySvc = new Map(refused.map((o) => [o.svcOrderId!, o.id]));
  const records = await ctx.client.orders.getOrdersDetail([...rowBySvc.keys()]);
  for (const r of records) {
    const row = rowBySvc.get(r.orderId ?? r.svcOrderId ?? "");
    if (row && PAID_AT_SERVICE.includes(r.orderStatus ?? "")) out.add(row);
  }
  if (out.size === 0) return out;
  const ids = [...out];
  await db.$transaction([
    db.shopOrder.updateMany({
      where: { id: { in: ids } },
      data: {
        state: "PAID",
        paidAt: new Date(ctx.deps.clock.now()),
        paymentBatchId: null,
        reasonCode: null,
        reasonMessage: null,
      },
    }),
    db.svcAccount.update({ where: { id: ctx.accountId }, data: { knownBalanceAt: null } }),
  ]);
  await addTimelineMany(db, ids, {
    step: "pay",
    outcome: "ok",
    message:
      "Already paid at the service (outside the app, e.g. in its console): nothing charged by the app.",
  });
  ctx.result.ordersPaid += ids.length;
  return out;
}

/** Reasons the service gave per order id, from the several shapes it uses. */
function reasonsById(data: Record<string, unknown>): Map<string, string> {
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

async function runBatch(ctx: RunCtx, batch: PaymentBatch): Promise<void> {
  const db = ctx.deps.prisma;
  let state = batch.state;
  let current = batch;
  for (let guard = 0; guard < 8; guard++) {
    const orders = await batchOrders(db, current.id);
    if (orders.length === 0) {
      await setBatch(ctx, current.id, { state: "failed", error: "no order left in the batch" });
      return;
    }
    const bySvc = new Map(orders.map((o) => [o.svcOrderId!, o.id]));
    const svcIds = [...bySvc.keys()];
    try {
      switch (state) {
        case "open": {
          const r = await ctx.client.orders.addCart(svcIds);
          const added = new Set(r.addSuccessOrders.map(String));
          const why = reasonsById(r as Record<string, unknown>);
          const refused = orders.filter((o) => !added.has(o.svcOrderId!));
          const paidElsewhere = await adoptPaidAtService(ctx, refused);
          const out = refused.filter((o) => !paidElsewhere.has(o.id)).map((o) => o.id);
          const whyByRow = new Map(
            [...why].flatMap(([svc, m]) => (bySvc.get(svc) ? [[bySvc.get(svc)!, m]] : [])),
          );
          await dropFromBatch(ctx, out, "Not added to the service cart", whyByRow);
          current = await setBatch(ctx, current.id, { state: "carted" });
          await addTimelineMany(
            db,
            orders.filter((o) => added.has(o.svcOrderId!)).map((o) => o.id),
            {
              step: "cart",
              outcome: "ok",
              message: `Added to the service cart (batch of ${added.size}).`,
            },
          );
          state = "carted";
          break;
        }
        case "carted": {
          // Lock the batch against a concurrent cancel: what is confirmed now gets paid.
          const confirmIds = await db.$transaction(async (tx) => {
            await tx.$queryRaw`SELECT "id" FROM "PaymentBatch" WHERE "id" = ${current.id} FOR UPDATE`;
            await tx.paymentBatch.update({
              where: { id: current.id },
              data: { state: "confirming" },
            });
            return (await batchOrders(tx, current.id)).map((o) => o.svcOrderId!);
          });
          state = "confirming";
          if (confirmIds.length === 0) {
            await setBatch(ctx, current.id, {
              state: "failed",
              error: "every order left the batch",
            });
            return;
          }
          const r = await ctx.client.orders.addCartConfirm(confirmIds);
          const shipmentOrderId = r.shipmentsId ?? null;
          const why = reasonsById(r as Record<string, unknown>);
          const intercepted = new Set(why.keys());
          const rows = await batchOrders(db, current.id);
          const out = rows.filter((o) => intercepted.has(o.svcOrderId!)).map((o) => o.id);
          const whyByRow = new Map(
            rows.filter((o) => why.has(o.svcOrderId!)).map((o) => [o.id, why.get(o.svcOrderId!)!]),
          );
          await dropFromBatch(ctx, out, "Intercepted by the service at confirmation", whyByRow);
          if (!shipmentOrderId)
            throw new SvcError({
              operation: "addCartConfirm",
              message: "no shipmentsId in the confirmation",
            });
          await db.$transaction([
            db.paymentBatch.update({
              where: { id: current.id },
              data: { state: "confirmed", shipmentOrderId },
            }),
            db.shopOrder.updateMany({
              where: {
                paymentBatchId: current.id,
                svcOrderId: { in: confirmIds.filter((id) => !intercepted.has(id)) },
              },
              data: { shipmentOrderId },
            }),
          ]);
          current = { ...current, state: "confirmed", shipmentOrderId };
          state = "confirmed";
          break;
        }
        case "confirming": {
          // The confirmation's outcome is unknown: still in the cart → confirm again.
          const records = await ctx.client.orders.getOrdersDetail(svcIds);
          const inCart = records.filter(
            (r) => r.orderStatus === "IN_CART" || r.orderStatus === "CREATED",
          );
          if (inCart.length === records.length && records.length > 0) {
            current = await setBatch(ctx, current.id, { state: "carted" });
            state = "carted";
            break;
          }
          // Confirmed, but the shipmentOrderId (only in the lost reply) is unknown.
          const ids = orders.map((o) => o.id);
          const message =
            "The service confirmed the order but its reply was lost, so the parent order is unknown. Pay it in the service's console, then Retry.";
          await db.shopOrder.updateMany({
            where: { id: { in: ids } },
            data: {
              state: "FAILED",
              reasonCode: "confirm_unknown",
              reasonMessage: message,
              paymentBatchId: null,
            },
          });
          await addTimelineMany(db, ids, {
            step: "confirm",
            outcome: "error",
            errorCode: "confirm_unknown",
            message,
          });
          ctx.result.failed += ids.length;
          await setBatch(ctx, current.id, {
            state: "failed",
            error: "confirmation outcome unknown",
          });
          return;
        }
        case "confirmed": {
          const parent = await ctx.client.orders.saveGenerateParentOrder(current.shipmentOrderId!);
          const payId = parent.payId ?? null;
          const amount = parent.payAmount ?? parent.amount ?? parent.orderMoney ?? null;
          await db.$transaction([
            db.paymentBatch.update({
              where: { id: current.id },
              data: { state: "parented", payId, amount: amount ? toMoney(amount) : null },
            }),
            db.shopOrder.updateMany({ where: { paymentBatchId: current.id }, data: { payId } }),
          ]);
          current = {
            ...current,
            state: "parented",
            payId,
            amount: amount ? toMoney(amount) : null,
          };
          await addTimelineMany(
            db,
            orders.map((o) => o.id),
            {
              step: "parent",
              outcome: "ok",
              // Stryker disable next-line StringLiteral: message
              message: `Parent order ${parent.parentOrderId ?? parent.parentOrderNumber ?? current.shipmentOrderId} generated${amount ? `: ${toMoney(amount)} USD payable` : ""}.`,
            },
          );
          state = "parented";
          break;
        }
        case "parented": {
          if (!current.isSandbox && current.amount && !ctx.reserved.has(current.id)) {
            if (!(await covers(ctx, current.amount))) {
              await holdBatchShort(
                ctx,
                current,
                orders.map((o) => o.id),
              );
              return;
            }
            await setLeft(ctx, subtractMoney(await currentBalance(ctx), current.amount));
            ctx.reserved.add(current.id);
          }
          current = await setBatch(ctx, current.id, { state: "paying" });
          state = "paying";
          await payOnce(
            ctx,
            current,
            orders.map((o) => o.id),
            false,
          );
          return;
        }
        case "paying": {
          await payOnce(
            ctx,
            current,
            orders.map((o) => o.id),
            true,
          );
          return;
        }
        default:
          return;
      }
    } catch (error) {
      if (error instanceof SvcCartError || error instanceof SvcParamError) {
        // Nothing in the batch could go on: every order leaves, paid at the service already
        // (a cart refuses those too) or with the service's message.
        const paidElsewhere =
          state === "open" ? await adoptPaidAtService(ctx, orders) : new Set<string>();
        await dropFromBatch(
          ctx,
          orders.filter((o) => !paidElsewhere.has(o.id)).map((o) => o.id),
          "Refused by the service",
          new Map(),
          error,
        );
        await setBatch(ctx, current.id, {
          state: "failed",
          error: errorFields(error).message,
        });
        return;
      }
      if (error instanceof SvcError && error.outcomeUnknown && state === "confirming") {
        // Resumed on the next run through the "confirming" check.
        throw error;
      }
      const f = errorFields(error);
      await addTimelineMany(
        db,
        orders.map((o) => o.id),
        {
          step: `pay:${state}`,
          outcome: "error",
          errorCode: f.errorCode,
          requestId: f.requestId,
          message: `Will try again: ${f.message}`,
        },
      );
      throw error;
    }
  }
}

async function holdBatchShort(ctx: RunCtx, batch: PaymentBatch, orderIds: string[]) {
  const db = ctx.deps.prisma;
  const message = `The service balance (${ctx.balance} USD available) does not cover this payment batch (${batch.amount} USD for ${orderIds.length} order(s)). It is paid automatically once the balance is topped up.`;
  const already = await db.shopOrder.count({
    where: { id: { in: orderIds }, state: "HELD", reasonCode: "short_balance" },
  });
  await db.shopOrder.updateMany({
    where: { id: { in: orderIds } },
    data: { state: "HELD", reasonCode: "short_balance", reasonMessage: message },
  });
  if (already < orderIds.length) {
    await addTimelineMany(db, orderIds, {
      step: "pay",
      outcome: "held",
      errorCode: "short_balance",
      message,
    });
  }
  ctx.result.held += orderIds.length;
  await scheduleRecheck(ctx);
}

/**
 * payBalanceV2 at most once in effect. `resumed`: a previous attempt's outcome is unknown, so the
 * orders' pay state is checked first.
 */
async function payOnce(ctx: RunCtx, batch: PaymentBatch, orderIds: string[], resumed: boolean) {
  const db = ctx.deps.prisma;
  const svcIds = (
    await db.shopOrder.findMany({ where: { id: { in: orderIds } }, select: { svcOrderId: true } })
  ).map((o) => o.svcOrderId!);
  const allPaid = async () => {
    const records = await ctx.client.orders.getOrdersDetail(svcIds);
    return (
      records.length > 0 && records.every((r) => !UNPAID_STATUSES.includes(r.orderStatus ?? ""))
    );
  };
  if (resumed && (await allPaid())) {
    await markPaid(ctx, batch, orderIds, "found paid after an unknown outcome");
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
      await holdBatchShort(ctx, batch, orderIds);
      return;
    }
    if (error instanceof SvcError && error.outcomeUnknown) {
      if (await allPaid()) {
        await markPaid(ctx, batch, orderIds, "confirmed by a query after an unknown outcome");
        return;
      }
      // Not paid: the batch stays "paying" and the next run checks again before paying.
      throw error;
    }
    if (error instanceof SvcPaymentError) {
      const f = errorFields(error);
      const message = `The service refused the payment: ${f.message}. Check the account, then Retry.`;
      await db.shopOrder.updateMany({
        where: { id: { in: orderIds } },
        data: {
          state: "FAILED",
          reasonCode: "payment_failed",
          reasonMessage: message,
        },
      });
      await addTimelineMany(db, orderIds, {
        step: "pay",
        outcome: "error",
        errorCode: f.errorCode,
        requestId: f.requestId,
        message,
      });
      await setBatch(ctx, batch.id, { state: "failed", error: f.message });
      ctx.result.failed += orderIds.length;
      return;
    }
    throw error;
  }
  await markPaid(ctx, batch, orderIds);
}

async function markPaid(ctx: RunCtx, batch: PaymentBatch, orderIds: string[], note?: string) {
  const db = ctx.deps.prisma;
  const now = new Date(ctx.deps.clock.now());
  const flagged = await db.shopOrder.findMany({
    where: { id: { in: orderIds }, flag: "cancel_requested" },
    select: { id: true },
  });
  await db.$transaction([
    db.paymentBatch.update({ where: { id: batch.id }, data: { state: "paid", paidAt: now } }),
    db.shopOrder.updateMany({
      where: { id: { in: orderIds } },
      data: { state: "PAID", paidAt: now, reasonCode: null, reasonMessage: null },
    }),
    db.shopOrder.updateMany({
      where: { id: { in: flagged.map((f) => f.id) } },
      data: {
        flag: "cancelled_after_payment",
        reasonMessage:
          "Cancelled in the shop while it was being paid: the service order is paid and will ship. The contract has no cancel call; open a dispute or contact the service.",
      },
    }),
  ]);
  await addTimelineMany(db, orderIds, {
    step: "pay",
    outcome: "ok",
    // Stryker disable next-line StringLiteral: message
    message: `Paid from the balance${batch.isSandbox ? " (sandbox: nothing charged)" : ""} with parent ${batch.shipmentOrderId}${batch.amount ? ` (${batch.amount} USD for ${orderIds.length} order(s))` : ""}${note ? `, ${note}` : ""}.`,
  });
  // In sandbox mode nothing ships: the service takes a test tracking number instead.
  if (batch.isSandbox) await scheduleSandboxTrack(db, orderIds, ctx.shopDomain);
  ctx.result.batchesPaid += 1;
  ctx.result.ordersPaid += orderIds.length;
}
