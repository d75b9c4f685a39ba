/**
 * The balance a payment run goes by. The account's known balance (SvcAccount.knownBalance: the
 * last answer minus what was committed since) is trusted for `balanceTrustMs`; it is asked for
 * again when older, when it does not cover an order, or when a payment refused it. What a run
 * commits is taken off at once, here and in the database, so the next batch sees what is left.
 */
import { compareMoney, subtractMoney, toMoney } from "../../svc/decimal";
import type { RunCtx } from "./context.server";

/** Asks the service for the balance and stores it as the account's known balance. */
export async function fetchBalance(ctx: RunCtx): Promise<string> {
  ctx.balance = toMoney((await ctx.client.payment.getBalance()).amount);
  ctx.balanceFresh = true;
  await ctx.deps.prisma.svcAccount.update({
    where: { id: ctx.accountId },
    data: { knownBalance: ctx.balance, knownBalanceAt: new Date(ctx.deps.clock.now()) },
  });
  return ctx.balance;
}

/** The balance this run goes by: the trusted stored one, else the service's. */
export async function currentBalance(ctx: RunCtx): Promise<string> {
  if (ctx.balance !== null) return ctx.balance;
  if (ctx.storedBalance !== null) return (ctx.balance = ctx.storedBalance);
  return fetchBalance(ctx);
}

/** What is left once this run's commitments are paid, here and in the database. */
export async function setLeft(ctx: RunCtx, left: string) {
  ctx.balance = left;
  await ctx.deps.prisma.svcAccount.update({
    where: { id: ctx.accountId },
    data: { knownBalance: left },
  });
}

/** Does the balance cover `amount`? A stored balance that says no is checked with the service. */
export async function covers(ctx: RunCtx, amount: string): Promise<boolean> {
  if (compareMoney(amount, await currentBalance(ctx)) <= 0) return true;
  if (ctx.balanceFresh) return false;
  return compareMoney(amount, await fetchBalance(ctx)) <= 0;
}

/** Orders that the known balance covers, oldest first; the rest are short. */
export async function splitByBalance<T extends { id: string; amount: string | null }>(
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
