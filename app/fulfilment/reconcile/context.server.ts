/**
 * What the reconciler's passes share for one service account: its shop, the time of the run
 * (and the job-key slot it gives), the service client (made on first use) and the counts of the
 * run, which each pass adds to.
 */
import type { SvcAccount } from "@prisma/client";
import type { FulfilmentDeps } from "../../orders/deps.server";

export interface ReconcileResult {
  accounts: number;
  queried: number;
  trackJobs: number;
  idsFound: number;
  payRuns: number;
  replaced: number;
  /** Tracking found that no service webhook told of (counted towards re-registration). */
  gaps: number;
}

export function noResult(accounts: number): ReconcileResult {
  return { accounts, queried: 0, trackJobs: 0, idsFound: 0, payRuns: 0, replaced: 0, gaps: 0 };
}

export interface PassCtx {
  deps: FulfilmentDeps;
  account: SvcAccount;
  accountId: string;
  shopDomain: string;
  now: number;
  /** The job key of this run's jobs (`reconcile:<second>`). */
  key: string;
  maxOrders: number;
  svc: () => Promise<Awaited<ReturnType<FulfilmentDeps["svcFor"]>>>;
  result: ReconcileResult;
}

export type Pass = (ctx: PassCtx) => Promise<void>;
