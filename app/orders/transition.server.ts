/**
 * The one writer of `ShopOrder.state`. Every state change of an order goes through
 * `transition`: it moves the orders that are still where the caller saw them (compare-and-set on
 * `from`), writes the columns that change with the state, and writes the timeline entry of the
 * change in the same transaction, so a change never lands without its entry nor an entry without
 * its change. test/house/one-state-writer.test.ts fails on any other writer in app/.
 */
import { Prisma } from "@prisma/client";
import type { Db } from "../db/types";
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

/** The columns a move by id writes in its one statement, with their SQL types. */
const COLUMN_TYPES: Partial<Record<keyof MoveColumns, "text" | "timestamp(3)" | "int">> = {
  svcOrderId: "text",
  amount: "text",
  shipmentOrderId: "text",
  logisticName: "text",
  shippingCost: "text",
  paymentBatchId: "text",
  payId: "text",
  orderNumber: "text",
  flag: "text",
  svcAccountId: "text",
  placeAttempt: "int",
  placedAt: "timestamp(3)",
  paidAt: "timestamp(3)",
  payRequestedAt: "timestamp(3)",
  cancelledAt: "timestamp(3)",
  fulfilledAt: "timestamp(3)",
  deliveredAt: "timestamp(3)",
  placeAfter: "timestamp(3)",
};

type Plain = string | number | Date | null;

/** A value the one statement writes as it is: null, text, a number or a time (not `{ set }`). */
const plain = (v: unknown): v is Plain =>
  v === null || typeof v === "string" || typeof v === "number" || v instanceof Date;

/** `timestamp(3)` holds UTC, as Prisma writes it; a time goes as its ISO text. */
const param = (v: Plain) => (v instanceof Date ? v.toISOString() : v);

/**
 * The move of orders named by id as one statement: the update, and the timeline entries of the
 * orders it moved in a data-modifying CTE of the same statement (atomic without BEGIN/COMMIT).
 * Null when a column or value is not one it writes: the caller moves them with Prisma.
 */
function oneStatement(ids: readonly string[], m: Move): Prisma.Sql | null {
  const set: Prisma.Sql[] = [Prisma.sql`"state" = ${m.to}::text`];
  if (m.reason !== undefined) set.push(Prisma.sql`"reasonCode" = ${m.reason}::text`);
  if (m.message !== undefined) set.push(Prisma.sql`"reasonMessage" = ${m.message}::text`);
  for (const [key, value] of Object.entries(m.set ?? {})) {
    const type = COLUMN_TYPES[key as keyof MoveColumns];
    if (value === undefined) continue;
    if (!type || !plain(value)) return null;
    set.push(Prisma.sql`${Prisma.raw(`"${key}"`)} = ${param(value)}::${Prisma.raw(type)}`);
  }
  const now = new Date();
  set.push(Prisma.sql`"updatedAt" = ${now.toISOString()}::timestamp(3)`);
  const from = m.from ? Prisma.sql`AND "state" = ANY(${[...m.from]}::text[])` : Prisma.empty;
  const update = Prisma.sql`UPDATE "ShopOrder" SET ${Prisma.join(set)}
    WHERE "id" = ANY(${[...ids]}::text[]) ${from} RETURNING "id"`;
  if (!m.timeline) return Prisma.sql`${update}`;
  const t = timelineRow("", m.timeline);
  return Prisma.sql`WITH moved AS (${update}), entries AS (
      INSERT INTO "TimelineEntry" ("orderId", "at", "step", "outcome", "requestId", "errorCode", "message")
      SELECT "id", ${(m.timeline.at ?? now).toISOString()}::timestamp(3), ${t.step}::text,
             ${t.outcome}::text, ${t.requestId ?? null}::text, ${t.errorCode ?? null}::text,
             ${t.message ?? null}::text
      FROM moved
    )
    SELECT "id" FROM moved`;
}

/**
 * Moves the target orders to `m.to` and returns the ids that moved (empty when none was still in
 * a `from` state: someone else moved it first). Orders named by id move in one statement with
 * their timeline entries; a filter (a payment batch's orders) joins the caller's transaction, or
 * opens its own when there is a timeline entry to write with the change.
 */
export async function transition(db: Db, target: OrderTarget, m: Move): Promise<string[]> {
  if (Array.isArray(target) && target.length === 0) return [];
  const ids = typeof target === "string" ? [target] : Array.isArray(target) ? target : null;
  const statement = ids ? oneStatement(ids as readonly string[], m) : null;
  if (statement) {
    const rows = await db.$queryRaw<{ id: string }[]>(statement);
    return rows.map((r) => r.id);
  }
  if ("$transaction" in db && m.timeline) {
    return db.$transaction((tx) => move(tx, target, m));
  }
  return move(db as Prisma.TransactionClient, target, m);
}
