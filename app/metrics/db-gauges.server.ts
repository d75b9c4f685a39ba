/**
 * Gauges read from the database at scrape time: the job queue by kind and the orders by state
 * (held and failed ones by reason). Two cheap GROUP BY queries (the queue's by its (state,
 * runAt) index, finished jobs excluded), run together at most once per `CACHE_MS`; concurrent
 * scrapes share one read. The queue and the orders are shared by every process: each process
 * reports the same values, so aggregate them with max(), not sum().
 *
 * A failed read never fails the scrape: the gauges keep their last values and
 * dropship_metrics_db_up says 0.
 */
import type { PrismaClient } from "@prisma/client";
import { Gauge } from "prom-client";
import { STATES } from "../orders/states";
import { jobKindLabel, knownJobKindList, registry } from "./registry.server";

const CACHE_MS = 5_000;
const SHARED =
  " Read from the database, shared by all processes: every process reports the same value.";

const registers = [registry];

/**
 * prom-client collects all metrics of a scrape in parallel: every gauge here awaits the same
 * shared read (set by dbGauges below) before it reports.
 */
let refreshHook: (() => Promise<void>) | undefined;
const collect = async () => {
  await refreshHook?.();
};

const queueDue = new Gauge({
  name: "dropship_queue_due_jobs",
  help: `Jobs due now and waiting for a worker, by kind.${SHARED}`,
  labelNames: ["kind"] as const,
  registers,
  collect,
});
const queueScheduled = new Gauge({
  name: "dropship_queue_scheduled_jobs",
  help: `Jobs waiting for a later time (a retry's backoff, a schedule), by kind.${SHARED}`,
  labelNames: ["kind"] as const,
  registers,
  collect,
});
const queueRunning = new Gauge({
  name: "dropship_queue_running_jobs",
  help: `Jobs held by a worker (running, or held by a worker that died until its lease expires), by kind.${SHARED}`,
  labelNames: ["kind"] as const,
  registers,
  collect,
});
const queueOldestDue = new Gauge({
  name: "dropship_queue_oldest_due_age_seconds",
  help: `Age of the oldest due job not yet started (now - runAt), by kind; 0 when none.${SHARED}`,
  labelNames: ["kind"] as const,
  registers,
  collect,
});
const queueDead = new Gauge({
  name: "dropship_queue_dead_jobs",
  help: `Jobs that failed for good and are kept with their last error, by kind.${SHARED}`,
  labelNames: ["kind"] as const,
  registers,
  collect,
});
const ordersByState = new Gauge({
  name: "dropship_orders",
  help: `Shop orders by pipeline state.${SHARED}`,
  labelNames: ["state"] as const,
  registers,
  collect,
});
const ordersByReason = new Gauge({
  name: "dropship_orders_held_failed",
  help: `Held and failed shop orders by state and reason code ("none" when unset).${SHARED}`,
  labelNames: ["state", "reason"] as const,
  registers,
  collect,
});
const dbUp = new Gauge({
  name: "dropship_metrics_db_up",
  help: "1 when the last read of the database gauges succeeded, 0 when it failed.",
  registers,
  collect,
});

/** Reason codes of app/orders/states.ts's ReasonCode (a type only, so listed here). */
const REASONS = new Set([
  "unconnected_lines",
  "review_window",
  "fraud_risk",
  "paused",
  "invalid_address",
  "protected_data",
  "no_account",
  "settings_incomplete",
  "merchant_hold",
  "short_balance",
  "intercepted",
  "payment_failed",
  "create_failed",
  "confirm_unknown",
  "nothing_to_ship",
  "cancelled_in_shop",
  "waiting_connection",
  "no_shipping_method",
  "no_fx_rate",
  "service_unavailable",
  "cost_guard",
]);
const STATE_SET = new Set<string>(STATES);

interface QueueRow {
  kind: string;
  due: number;
  scheduled: number;
  running: number;
  dead: number;
  oldest: number | null;
}
interface OrderRow {
  state: string;
  reason: string | null;
  n: number;
}

async function readQueue(db: PrismaClient): Promise<QueueRow[]> {
  return db.$queryRaw<QueueRow[]>`
    SELECT "kind",
      count(*) FILTER (WHERE "state" = 'available' AND "runAt" <= now())::int AS due,
      count(*) FILTER (WHERE "state" = 'available' AND "runAt" > now())::int AS scheduled,
      count(*) FILTER (WHERE "state" = 'running')::int AS running,
      count(*) FILTER (WHERE "state" = 'dead')::int AS dead,
      EXTRACT(EPOCH FROM now() - min("runAt") FILTER (
        WHERE "state" = 'available' AND "runAt" <= now()))::float8 AS oldest
    FROM "Job" WHERE "state" IN ('available', 'running', 'dead')
    GROUP BY "kind"`;
}

async function readOrders(db: PrismaClient): Promise<OrderRow[]> {
  return db.$queryRaw<OrderRow[]>`
    SELECT "state",
      CASE WHEN "state" IN ('HELD', 'FAILED') THEN COALESCE("reasonCode", 'none') END AS reason,
      count(*)::int AS n
    FROM "ShopOrder" GROUP BY 1, 2`;
}

function setQueue(rows: QueueRow[]): void {
  for (const g of [queueDue, queueScheduled, queueRunning, queueOldestDue, queueDead]) g.reset();
  // Every known kind reports 0 rather than nothing, so an alert sees "empty", not "absent".
  for (const kind of knownJobKindList()) {
    for (const g of [queueDue, queueScheduled, queueRunning, queueOldestDue, queueDead]) {
      g.set({ kind }, 0);
    }
  }
  // Unknown kinds (from old code, or events nothing handles) add up under "other".
  const sums = new Map<string, QueueRow>();
  for (const r of rows) {
    const kind = jobKindLabel(r.kind);
    const s = sums.get(kind) ?? { kind, due: 0, scheduled: 0, running: 0, dead: 0, oldest: null };
    s.due += Number(r.due);
    s.scheduled += Number(r.scheduled);
    s.running += Number(r.running);
    s.dead += Number(r.dead);
    if (r.oldest !== null) s.oldest = Math.max(s.oldest ?? 0, Number(r.oldest));
    sums.set(kind, s);
  }
  for (const s of sums.values()) {
    queueDue.set({ kind: s.kind }, s.due);
    queueScheduled.set({ kind: s.kind }, s.scheduled);
    queueRunning.set({ kind: s.kind }, s.running);
    queueDead.set({ kind: s.kind }, s.dead);
    queueOldestDue.set({ kind: s.kind }, Math.max(0, s.oldest ?? 0));
  }
}

function setOrders(rows: OrderRow[]): void {
  ordersByState.reset();
  ordersByReason.reset();
  for (const state of STATES) ordersByState.set({ state }, 0);
  for (const r of rows) {
    const state = STATE_SET.has(r.state) ? r.state : "other";
    ordersByState.inc({ state }, Number(r.n));
    if (r.reason !== null) {
      const reason = r.reason === "none" || REASONS.has(r.reason) ? r.reason : "other";
      ordersByReason.inc({ state, reason }, Number(r.n));
    }
  }
}

export interface DbGauges {
  /** Refreshes the gauges if the last read is older than the cache time. */
  refresh(): Promise<void>;
  /** Forgets the last read: the next scrape reads again. */
  invalidate(): void;
}

/**
 * Wires the gauges to a database (once per process; metrics.server.ts does it): every scrape
 * then refreshes them through their collect hook.
 */
export function dbGauges(
  db: () => PrismaClient,
  onError: (error: unknown) => void,
  cacheMs = CACHE_MS,
): DbGauges {
  let readAt = 0;
  let inFlight: Promise<void> | undefined;
  const read = async () => {
    try {
      const [queue, orders] = await Promise.all([readQueue(db()), readOrders(db())]);
      setQueue(queue);
      setOrders(orders);
      dbUp.set(1);
    } catch (error) {
      dbUp.set(0);
      onError(error);
    } finally {
      readAt = Date.now();
    }
  };
  const gauges: DbGauges = {
    async refresh() {
      if (inFlight) return inFlight;
      if (readAt !== 0 && Date.now() - readAt < cacheMs) return;
      inFlight = read().finally(() => (inFlight = undefined));
      return inFlight;
    },
    invalidate() {
      readAt = 0;
    },
  };
  refreshHook = () => gauges.refresh();
  return gauges;
}
