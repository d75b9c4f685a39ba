/**
 * The reconciler (a recurring job): per service account, it walks what a lost webhook or a
 * crash could leave behind, inside the account's limits (the client's shared limiter spaces
 * getOrderDetailBatch at 2 per second), one function per numbered pass:
 *
 * 1. paid, not yet fulfilled (or not yet delivered) orders: fetched in batches of 50; orders
 *    with news get a track job carrying the fresh records (no second fetch);
 * 2. created orders still without a service order id: looked up by their orderNumber;
 *    2b. created orders paid in the service's console: tracked from then on;
 * 3. payment batches left unfinished, and orders waiting for the balance: a pay run;
 *    3b. orders held for the balance or an unreachable service: one balance read;
 * 4. held orders whose cause may be gone (paused, unconnected, no account): placed again.
 */
import type { FulfilmentDeps } from "../../orders/deps.server";
import { noResult, type Pass, type PassCtx, type ReconcileResult } from "./context.server";
import { heldAgain, payRuns, waitingOnService } from "./passes-pay.server";
import { createdUnpaid, missingIds, paidWatched } from "./passes-track.server";

export type { ReconcileResult } from "./context.server";
export { CREATED_WATCH_AFTER_MS } from "./passes-track.server";

/** The passes in their order. */
export const PASSES: readonly Pass[] = [
  paidWatched,
  missingIds,
  createdUnpaid,
  payRuns,
  waitingOnService,
  heldAgain,
];

export async function reconcileAll(deps: FulfilmentDeps): Promise<ReconcileResult> {
  const total = noResult(0);
  const accounts = await deps.prisma.svcAccount.findMany({
    where: { shopDomain: { not: null } },
    select: { id: true },
  });
  for (const a of accounts) {
    const r = await reconcileAccount(deps, a.id);
    for (const k of Object.keys(total) as (keyof ReconcileResult)[]) total[k] += r[k];
  }
  total.accounts = accounts.length;
  return total;
}

export async function reconcileAccount(
  deps: FulfilmentDeps,
  accountId: string,
  opts: { maxOrders?: number } = {},
): Promise<ReconcileResult> {
  const result = noResult(1);
  const account = await deps.prisma.svcAccount.findUnique({ where: { id: accountId } });
  if (!account?.shopDomain) return result;
  const now = deps.clock.now();
  let client: Awaited<ReturnType<FulfilmentDeps["svcFor"]>> | undefined;
  const ctx: PassCtx = {
    deps,
    account,
    accountId,
    shopDomain: account.shopDomain,
    now,
    key: `reconcile:${Math.floor(now / 1000)}`,
    maxOrders: opts.maxOrders ?? 5000,
    svc: async () => (client ??= await deps.svcFor(accountId)),
    result,
  };
  for (const pass of PASSES) await pass(ctx);
  return result;
}
