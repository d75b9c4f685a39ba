/**
 * The one writer of `ShopOrder.state`. Every state change of an order goes through
 * `transition`: it moves the orders that are still where the caller saw them (compare-and-set on
 * `from`), writes the columns that change with the state, and writes the timeline entry of the
 * change in the same transaction, so a change never lands without its entry nor an entry without
 * its change. test/house/one-state-writer.test.ts fails on any other writer in app/.
 */
import type { Prisma } from "@prisma/client";
import type { Db } from "../jobs/queue.server";
import type { OrderState, ReasonCode } from "./states";
import { timelineRow, type TimelineInput } from "./timeline.server";

/** Which orders move: one id, a list of ids, or a filter (a payment batch's orders). */
export type OrderTarget = string | readonly string[] | Prisma.ShopOrderWhereInput;

/** The columns that change with the state; the state and its reason are the move's own fields. */
export type MoveColumns = Omit<
  Prisma.ShopOrderUpdateManyMutationInput,
  "state" | "reasonCode" | "reasonMessage"
>;

export interface Move {
  to: OrderState;
  /** Only orders in one of these states move; omitted, an order moves from any state. */
  from?: readonly OrderState[];
  /** Why (HELD, FAILED); `null` clears it, omitted leaves it as it is. */
  reason?: ReasonCode | null;
  /** The sentence for the merchant; `null` clears it, omitted leaves it. */
  message?: string | null;
  /** Other columns written with the state (placeAfter, paidAt, paymentBatchId, …). */
  set?: MoveColumns;
  /**
   * The timeline entry of the change, one per order moved. `null` writes none, for a caller that
   * repeats a change it already recorded (a hold re-checked for the same reason).
   */
  timeline: TimelineInput | null;
}

function whereOf(target: OrderTarget, from: readonly OrderState[] | undefined) {
  const base: Prisma.ShopOrderWhereInput =
    typeof target === "string"
      ? { id: target }
      : Array.isArray(target)
        ? { id: { in: [...(target as readonly string[])] } }
        : (target as Prisma.ShopOrderWhereInput);
  return from ? { AND: [base, { state: { in: [...from] } }] } : base;
}

async function move(tx: Prisma.TransactionClient, target: OrderTarget, m: Move) {
  const data: Prisma.ShopOrderUpdateManyMutationInput = { ...m.set, state: m.to };
  if (m.reason !== undefined) data.reasonCode = m.reason;
  if (m.message !== undefined) data.reasonMessage = m.message;
  const moved = await tx.shopOrder.updateManyAndReturn({
    where: whereOf(target, m.from),
    data,
    select: { id: true },
  });
  const ids = moved.map((o) => o.id);
  const e = m.timeline;
  if (e && ids.length > 0) {
    await tx.timelineEntry.createMany({ data: ids.map((id) => timelineRow(id, e)) });
  }
  return ids;
}

/**
 * Moves the target orders to `m.to` and returns the ids that moved (empty when none was still in
 * a `from` state: someone else moved it first). Inside a caller's transaction it joins it;
 * otherwise it opens its own when there is a timeline entry to write with the change.
 */
export async function transition(db: Db, target: OrderTarget, m: Move): Promise<string[]> {
  if (Array.isArray(target) && target.length === 0) return [];
  if ("$transaction" in db && m.timeline) {
    return db.$transaction((tx) => move(tx, target, m));
  }
  return move(db as Prisma.TransactionClient, target, m);
}
