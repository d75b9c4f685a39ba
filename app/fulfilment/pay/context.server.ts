/**
 * What every step of a payment run shares: the run's context (account, client, settings, the
 * balance as this run knows it, the tally), the batch states with a step each, and the two
 * small reads and writes of a batch the steps use (the service's statuses: svc/order-statuses.ts).
 */
import type { PaymentBatch, Prisma, ShopOrder } from "@prisma/client";
import type { Db } from "../../db/types";
import type { SvcClient } from "../../svc/client.server";
import type { FulfilmentDeps } from "../../orders/deps.server";
import type { ShopSettings } from "../../settings.server";

/** The states of a batch still running, each with its step; "paid" and "failed" end a batch. */
export const BATCH_STATES = [
  "open",
  "carted",
  "confirming",
  "confirmed",
  "parented",
  "paying",
] as const;
export type BatchState = (typeof BATCH_STATES)[number];

/** Orders a new batch takes: created ones, and those held for a cause the run itself clears. */
export const PAYABLE: Prisma.ShopOrderWhereInput[] = [
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

export interface RunCtx {
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

/** One round of a batch: the batch as last written and its orders as the round began. */
export interface BatchRun {
  batch: PaymentBatch;
  orders: ShopOrder[];
  /** The state the batch is in now (a step that moves it before a call says so here). */
  at: BatchState;
}

/** The next state to run, or "done": this run leaves the batch (paid, failed, held, waiting). */
export type Next = BatchState | "done";
export type Step = (ctx: RunCtx, run: BatchRun) => Promise<Next>;

export async function batchOrders(db: Db, batchId: string) {
  return db.shopOrder.findMany({
    where: { paymentBatchId: batchId, state: { in: ["PAYING", "HELD"] } },
    orderBy: { id: "asc" },
  });
}

export async function setBatch(ctx: RunCtx, id: string, data: Prisma.PaymentBatchUpdateInput) {
  return ctx.deps.prisma.paymentBatch.update({ where: { id }, data });
}

/** The service order ids of a round's orders. */
export function svcIdsOf(run: BatchRun): string[] {
  return [...new Set(run.orders.map((o) => o.svcOrderId!))];
}

export function idsOf(run: BatchRun): string[] {
  return run.orders.map((o) => o.id);
}
