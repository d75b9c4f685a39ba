/**
 * The reconciler (a recurring job): per service account, it walks what a lost webhook or a
 * crash could leave behind, inside the account's limits (the client's shared limiter spaces
 * getOrderDetailBatch at 2 per second):
 *
 * - paid, not yet fulfilled (or not yet delivered) orders: fetched in batches of 50; orders
 *   with news get a track job carrying the fresh records (no second fetch);
 * - created orders still without a service order id: looked up by their orderNumber;
 * - payment batches left unfinished, and orders waiting for the balance: a pay run;
 * - held orders whose cause may be gone (paused, unconnected, no account): placed again.
 */
import type { Prisma } from "@prisma/client";
import { countUnheard, type GapCandidate, noteWebhookGaps } from "../svc-account/gaps.server";
import { toMoney } from "../svc/decimal";
import type { OrderRecord } from "../svc/order-shapes";
import type { FulfilmentDeps } from "../orders/deps.server";
import { optionsOf } from "../orders/deps.server";
import { FINISHED_FLAGS } from "./after-payment.server";
import { SELF_RELEASING } from "../orders/states";
import { balanceSeen, recheckHeld } from "../orders/recheck.server";
import { schedulePay, schedulePlace, scheduleTrack } from "../orders/schedule.server";
import { PAID_AT_SERVICE } from "./pay/index.server";
import { addTimeline } from "../orders/timeline.server";
import { hasNews, setServiceOrderId } from "./track.server";

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

const WATCHED = ["PAID", "SHIPPED", "FULFILLED"];
/** A created order is asked about once it has waited this long (a batch usually takes it first). */
export const CREATED_WATCH_AFTER_MS = 60_000;

export async function reconcileAll(deps: FulfilmentDeps): Promise<ReconcileResult> {
  const total: ReconcileResult = {
    accounts: 0,
    queried: 0,
    trackJobs: 0,
    idsFound: 0,
    payRuns: 0,
    replaced: 0,
    gaps: 0,
  };
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
  const db = deps.prisma;
  const { queryBatchSize, staleBatchMs, heldRecheckMs } = optionsOf(deps);
  const result: ReconcileResult = {
    accounts: 1,
    queried: 0,
    trackJobs: 0,
    idsFound: 0,
    payRuns: 0,
    replaced: 0,
    gaps: 0,
  };
  const account = await db.svcAccount.findUnique({ where: { id: accountId } });
  if (!account?.shopDomain) return result;
  const shopDomain = account.shopDomain;
  const now = deps.clock.now();
  const slot = Math.floor(now / 1000);
  let client: Awaited<ReturnType<FulfilmentDeps["svcFor"]>> | undefined;
  const svc = async () => (client ??= await deps.svcFor(accountId));

  // 1. Paid orders not yet fulfilled or delivered, oldest news first.
  const watched = await db.shopOrder.findMany({
    where: {
      svcAccountId: accountId,
      state: { in: WATCHED },
      svcOrderId: { not: null },
      // (`notIn` alone would also drop the rows whose flag is NULL); finished orders are not polled
      OR: [{ flag: null }, { flag: { notIn: ["fulfilment_conflict", ...FINISHED_FLAGS] } }],
    },
    include: { shipments: true },
    orderBy: { updatedAt: "asc" },
    take: opts.maxOrders ?? 5000,
  });
  // Paid orders cost nothing until they move; a batch holds ≤ queryBatchSize ids.
  const groups: (typeof watched)[] = [];
  let cur: typeof watched = [];
  let ids = 0;
  for (const o of watched) {
    const n = 1 + o.shipments.filter((s) => s.svcOrderId !== o.svcOrderId).length;
    if (ids + n > queryBatchSize && cur.length) {
      groups.push(cur);
      cur = [];
      ids = 0;
    }
    cur.push(o);
    ids += n;
  }
  if (cur.length) groups.push(cur);
  const gapCandidates: GapCandidate[] = [];
  for (const group of groups) {
    const idList = [
      ...new Set(group.flatMap((o) => [o.svcOrderId!, ...o.shipments.map((s) => s.svcOrderId)])),
    ];
    const records = await (await svc()).orders.getOrderDetailBatch(idList.slice(0, 100));
    result.queried++;
    const byId = new Map<string, OrderRecord>();
    for (const r of records) {
      if (r.orderId) byId.set(r.orderId, r);
      if (r.svcOrderId) byId.set(r.svcOrderId, r);
    }
    for (const o of group) {
      const mine = [o.svcOrderId!, ...o.shipments.map((s) => s.svcOrderId)]
        .map((id) => byId.get(id))
        .filter((r): r is OrderRecord => r !== undefined);
      if (!mine.some((r) => hasNews(o, r))) continue;
      const tracked = mine.filter((r) => r.trackNumber?.trim() && hasNews(o, r));
      if (tracked.length > 0) {
        gapCandidates.push({
          ids: [o.orderNumber, ...tracked.flatMap((r) => [r.orderId, r.svcOrderId])].filter(
            (x): x is string => Boolean(x),
          ),
          shippedAt: tracked[0]!.outWarehouseTime ?? null,
        });
      }
      await scheduleTrack(db, {
        orderId: o.id,
        shopDomain,
        key: `reconcile:${slot}`,
        records: JSON.parse(JSON.stringify(uniqueRecords(mine))) as Prisma.InputJsonValue,
      });
      result.trackJobs++;
    }
  }

  // A lost webhook delays tracking; a run of them means the service stopped delivering.
  result.gaps = await countUnheard(db, shopDomain, gapCandidates, now);
  await noteWebhookGaps(db, accountId, result.gaps, now);

  // 2. Created without a service order id: look them up by number.
  const missing = await db.shopOrder.findMany({
    where: { svcAccountId: accountId, state: "CREATED", svcOrderId: null },
    orderBy: { updatedAt: "asc" },
    take: 500,
  });
  for (let i = 0; i < missing.length; i += queryBatchSize) {
    const chunk = missing.slice(i, i + queryBatchSize);
    const records = await (await svc()).orders.getOrderDetailBatch(chunk.map((o) => o.orderNumber));
    result.queried++;
    for (const o of chunk) {
      const r = records.find(
        (x) =>
          x.orderNum === o.orderNumber ||
          x.orderNumber === o.orderNumber ||
          x.productList.some((l) => l.orderNumber === o.orderNumber),
      );
      const id = r?.orderId ?? r?.svcOrderId;
      if (!r || !id) continue;
      const set = await setServiceOrderId(
        deps,
        o,
        id,
        "a lookup by its number",
        accountId,
        r.orderAmount ? toMoney(r.orderAmount) : null,
      );
      if (set) result.idsFound++;
    }
  }

  // 2b. Created and waiting for payment (automatic payment off, or a batch not yet formed): one
  // paid in the service's console is tracked from then on.
  const unpaid = await db.shopOrder.findMany({
    where: {
      svcAccountId: accountId,
      state: "CREATED",
      svcOrderId: { not: null },
      paymentBatchId: null,
      updatedAt: { lt: new Date(now - CREATED_WATCH_AFTER_MS) },
    },
    orderBy: { updatedAt: "asc" },
    take: 500,
  });
  for (let i = 0; i < unpaid.length; i += queryBatchSize) {
    const chunk = unpaid.slice(i, i + queryBatchSize);
    const records = await (await svc()).orders.getOrderDetailBatch(chunk.map((o) => o.svcOrderId!));
    result.queried++;
    for (const o of chunk) {
      const r = records.find((x) => x.orderId === o.svcOrderId || x.svcOrderId === o.svcOrderId);
      if (!r || !PAID_AT_SERVICE.includes(r.orderStatus ?? "")) continue;
      const n = await db.shopOrder.updateMany({
        where: { id: o.id, state: "CREATED", paymentBatchId: null },
        data: { state: "PAID", paidAt: new Date(now), reasonCode: null, reasonMessage: null },
      });
      if (n.count === 0) continue;
      await addTimeline(db, o.id, {
        step: "pay",
        outcome: "ok",
        message:
          "Paid at the service (outside the app, e.g. in its console): nothing charged by the app; tracked from now on.",
      });
      await scheduleTrack(db, {
        orderId: o.id,
        shopDomain,
        key: `reconcile:${slot}`,
        records: JSON.parse(JSON.stringify([r])) as Prisma.InputJsonValue,
      });
      result.trackJobs++;
    }
  }

  // 3. Unfinished payment batches, and orders waiting for the balance.
  const stale = await db.paymentBatch.count({
    where: {
      svcAccountId: accountId,
      state: { in: ["open", "carted", "confirming", "confirmed", "parented", "paying"] },
      updatedAt: { lt: new Date(now - staleBatchMs) },
    },
  });
  const waiting = await db.shopOrder.count({
    where: {
      svcAccountId: accountId,
      OR: [
        { state: "HELD", reasonCode: "short_balance" },
        {
          state: "CREATED",
          svcOrderId: { not: null },
          paymentBatchId: null,
          updatedAt: { lt: new Date(now - staleBatchMs) },
        },
      ],
    },
  });
  if (stale > 0 || waiting > 0) {
    await schedulePay(db, {
      accountId,
      shopDomain,
      nowMs: now,
      windowSeconds: 0,
      key: `reconcile:${slot}`,
    });
    result.payRuns++;
  }

  // 3b. Held for a short balance or an unreachable service: one balance read tells both (a
  // top-up made in the service's console, the service answering again).
  const waitingOnService = await db.shopOrder.groupBy({
    by: ["reasonCode"],
    where: {
      shopDomain,
      state: "HELD",
      reasonCode: { in: ["short_balance", "service_unavailable"] },
    },
    _count: true,
  });
  if (waitingOnService.length > 0) {
    const balance = await (await svc()).payment.getBalance();
    await balanceSeen(db, account, String(balance.amount), now);
    if (waitingOnService.some((g) => g.reasonCode === "service_unavailable")) {
      result.replaced += await recheckHeld(
        db,
        shopDomain,
        ["service_unavailable"],
        `reconcile:${slot}`,
      );
    }
  }

  // 4. Held orders whose cause may have gone.
  const held = await db.shopOrder.findMany({
    where: {
      shopDomain,
      state: "HELD",
      reasonCode: { in: SELF_RELEASING },
      updatedAt: { lt: new Date(now - heldRecheckMs) },
    },
    select: { id: true },
    take: 500,
  });
  for (const h of held) {
    await schedulePlace(db, { orderId: h.id, shopDomain, key: `reconcile:${slot}` });
    result.replaced++;
  }
  return result;
}

/** A record reached by two of an order's ids (its orderId and svcOrderId) goes once. */
function uniqueRecords(records: OrderRecord[]): OrderRecord[] {
  return [...new Set(records)];
}
