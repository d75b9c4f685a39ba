/**
 * Bulk actions of the orders work queue: Retry, Pay now, Hold, Release or Cancel a selection.
 * A run is a BulkRun row and a job: the job works the orders one by one (Pay now as one request)
 * and writes each order's result as it goes, so the page shows progress and per-order results
 * that survive a reload, and a rerun after a crash skips the orders already done. The form's
 * one-time key makes a double submit find the run the first one started.
 */
import { orderName } from "../orders/shop-time";
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { enqueue } from "../jobs/enqueue.server";
import { type JobHandler, PermanentJobError } from "../jobs/handler";
import { productionDeps, type FulfilmentDeps } from "../orders/deps.server";
import { requestPayment } from "../fulfilment/pay-now.server";
import { runOrderAction, type SingleIntent } from "./order-actions.server";
import { BULK_INTENTS, BULK_LABELS, type BulkIntent } from "./order-fit";

export const BULK_ORDERS_JOB = "orders.bulk";
export const MAX_BULK = 250;

const bulkForm = z.object({
  intent: z.enum(BULK_INTENTS, "Unknown action"),
  clientKey: z.string().regex(/^[\w-]{8,64}$/, "Reload the page and try again"),
  orderId: z
    .array(z.string().regex(/^[\w-]{1,64}$/))
    .min(1, "Select the orders first")
    .max(MAX_BULK, `At most ${MAX_BULK} orders at once`),
});

export type BulkStart =
  | { ok: true; runId: string; message: string }
  | { ok: false; errors: Record<string, string> };

/** A run's request: the orders list's form, or the same fields from an extension. */
export type BulkInput = FormData | { intent: string; clientKey: string; orderIds: string[] };

/** The orders list's form: a run started, or why not, as the page's FormStatus shows it. */
export async function bulkOrdersAction(db: PrismaClient, shop: string, form: FormData) {
  const r = await startBulkRun(db, shop, form);
  return r.ok
    ? { ok: true as const, intent: "bulk", message: r.message }
    : { ok: false as const, intent: "bulk", errors: r.errors };
}

/** Starts a run (or finds the one this key already started). Changes nothing if refused. */
export async function startBulkRun(
  db: PrismaClient,
  shop: string,
  input: BulkInput,
): Promise<BulkStart> {
  const parsed = bulkForm.safeParse(
    input instanceof FormData
      ? {
          intent: input.get("intent"),
          clientKey: input.get("clientKey"),
          orderId: input.getAll("orderId").map(String),
        }
      : { intent: input.intent, clientKey: input.clientKey, orderId: input.orderIds },
  );
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, errors: { form: issue.message } };
  }
  const { intent, clientKey } = parsed.data;
  const ids = [...new Set(parsed.data.orderId)];
  const owned = await db.shopOrder.findMany({
    where: { shopDomain: shop, id: { in: ids } },
    select: { id: true },
  });
  if (owned.length !== ids.length) {
    return { ok: false, errors: { form: "Some selected orders are not this shop's. Reload." } };
  }
  const label = BULK_LABELS[intent];
  const findExisting = () =>
    db.bulkRun.findUnique({ where: { shopDomain_clientKey: { shopDomain: shop, clientKey } } });
  const already = (id: string): BulkStart => ({
    ok: true,
    runId: id,
    message: `${label} is already running.`,
  });
  const existing = await findExisting();
  if (existing) return already(existing.id);
  const run = await db
    .$transaction(async (tx) => {
      const created = await tx.bulkRun.create({
        data: { shopDomain: shop, intent, clientKey, orderIds: ids, total: ids.length },
      });
      await enqueue(tx, {
        kind: BULK_ORDERS_JOB,
        payload: { runId: created.id },
        shopDomain: shop,
        idempotencyKey: `${BULK_ORDERS_JOB}:${created.id}`,
        maxAttempts: 5,
      });
      return created;
    })
    .catch(async (error: unknown) => {
      // The same key sent twice at once: the second create meets the unique key; the first won.
      if ((error as { code?: string }).code !== "P2002") throw error;
      return null;
    });
  if (!run) {
    const winner = await findExisting();
    if (!winner) throw new Error("bulk run: unique key met but no run found");
    return already(winner.id);
  }
  const n = ids.length;
  return {
    ok: true,
    runId: run.id,
    message: `${label}: ${n} order${n === 1 ? "" : "s"} on their way. Results appear below.`,
  };
}

interface OrderResult {
  ok: boolean;
  message: string;
}

/** Writes one order's result, once (a rerun does not count it twice). */
async function record(db: PrismaClient, runId: string, orderId: string, r: OrderResult) {
  const entry = JSON.stringify({ [orderId]: r });
  await db.$executeRaw`
    UPDATE "BulkRun" SET "results" = "results" || ${entry}::jsonb, "done" = "done" + 1
    WHERE "id" = ${runId} AND NOT ("results" ? ${orderId})`;
}

export const bulkOrdersHandler = (
  depsFor: (db: PrismaClient) => Promise<FulfilmentDeps> = productionDeps,
): JobHandler => {
  return async (ctx) => {
    const { runId } = z.object({ runId: z.string() }).parse(ctx.payload);
    const run = await ctx.prisma.bulkRun.findUnique({ where: { id: runId } });
    if (!run) throw new PermanentJobError("bulk run gone");
    const done = new Set(Object.keys((run.results ?? {}) as object));
    const ids = (run.orderIds as string[]).filter((id) => !done.has(id));
    const deps = await depsFor(ctx.prisma);
    const opts = { shopDomain: run.shopDomain };
    if (run.intent === "pay-now") {
      const r = await requestPayment(deps, ids, opts);
      const refused = new Map(r.refused.map((x) => [x.orderId, x.why]));
      for (const id of ids) {
        const why = refused.get(id);
        await record(
          ctx.prisma,
          runId,
          id,
          why
            ? { ok: false, message: `Not paid: the order ${why}.` }
            : { ok: true, message: "Being paid now." },
        );
      }
    } else {
      for (const id of ids) {
        if (ctx.signal.aborted) throw new Error("stopped: the run goes on at the next attempt");
        const r = await runOrderAction(deps, run.shopDomain, id, run.intent as SingleIntent);
        await record(
          ctx.prisma,
          runId,
          id,
          r.ok
            ? { ok: true, message: r.message }
            : {
                ok: false,
                message: r.error,
              },
        );
      }
    }
    await ctx.prisma.bulkRun.update({ where: { id: runId }, data: { finishedAt: new Date() } });
    return { runId, orders: ids.length };
  };
};

export interface BulkRunView {
  id: string;
  intent: BulkIntent;
  label: string;
  total: number;
  done: number;
  finished: boolean;
  finishedAt: string | null;
  failed: number;
  createdAt: string;
  results: Array<{
    orderId: string;
    /** Shopify's numeric order id ("" if the order is gone). */
    shopifyOrderId: string;
    name: string;
    ok: boolean;
    message: string;
  }>;
}

/** The shop's latest run, for the page (results named by order). */
export async function latestBulkRun(
  db: PrismaClient,
  shop: string,
  now: number = Date.now(),
): Promise<BulkRunView | null> {
  const run = await bulkRunView(db, shop, {});
  // A finished run's outcome is news for a while, not for the rest of the session.
  if (run?.finishedAt && now - Date.parse(run.finishedAt) > BULK_RESULT_SHOWN_MS) return null;
  return run;
}

/** How long the orders page shows a finished bulk run's outcome. */
export const BULK_RESULT_SHOWN_MS = 10 * 60_000;

/** The shop's run `id`, or its latest one: never another shop's. */
export async function bulkRunView(
  db: PrismaClient,
  shop: string,
  which: { id?: string },
): Promise<BulkRunView | null> {
  const run = await db.bulkRun.findFirst({
    where: { shopDomain: shop, ...(which.id ? { id: which.id } : {}) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  if (!run) return null;
  const results = (run.results ?? {}) as unknown as Record<string, OrderResult>;
  const ids = run.orderIds as string[];
  const orders = new Map(
    (
      await db.shopOrder.findMany({
        where: { shopDomain: shop, id: { in: ids } },
        select: { id: true, shopifyOrderName: true, shopifyOrderId: true },
      })
    ).map((o) => [o.id, o]),
  );
  const list = ids
    .filter((id) => results[id])
    .map((id) => {
      const o = orders.get(id);
      return {
        orderId: id,
        shopifyOrderId: o?.shopifyOrderId ?? "",
        name: o ? orderName(o) : id,
        ...results[id]!,
      };
    });
  return {
    id: run.id,
    intent: run.intent as BulkIntent,
    label: BULK_LABELS[run.intent as BulkIntent] ?? run.intent,
    total: run.total,
    done: run.done,
    finished: run.finishedAt !== null,
    finishedAt: run.finishedAt?.toISOString() ?? null,
    failed: list.filter((r) => !r.ok).length,
    createdAt: run.createdAt.toISOString(),
    results: list,
  };
}
