/**
 * The order pipeline under faults and crashes (`npm run bench -- --chaos`): PostgreSQL, worker
 * processes, injected service faults, duplicated webhooks, workers killed with SIGKILL. Prints
 * one JSON object on stdout (diagnostics on stderr).
 *
 *   npx tsx bench/fulfilment.ts --chaos --orders 300 --shops 2
 *
 * This process hosts a fresh schema on BENCH_DATABASE_URL (default: the local server's `test`
 * database, dropped afterwards) and, per shop, the e2e harness of test/fulfilment (a service
 * simulator, a shop simulator and the app's webhook routes over real HTTP); its in-process
 * worker never starts. Jobs run in `--workers` child processes (bench/chaos-worker.ts). The
 * bench sends the shop's orders/paid webhooks (a share of them twice, with the same ids, as
 * Shopify redelivers), ships every order at the service once the app has paid it, kills
 * `--kills` workers holding jobs (a replacement starts each time), plays the merchant where the
 * app asks for one (a confirmation whose reply died with its worker: pay the parent in the
 * service's console, then Retry; counted in `merchant_actions`), and waits until every order
 * is fulfilled or nothing has moved for `--stall` minutes (or `--deadline` minutes passed).
 */
import { randomUUID } from "node:crypto";
import type { ChildProcess } from "node:child_process";
import { parseArgs } from "node:util";
import { BENCH_APP_ENV, benchSchema } from "./harness-env";
import { spawnTs, waitForLine } from "../test/helpers/child";
import { createRng } from "../test/sim/service/prng";

export async function runChaos(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      chaos: { type: "boolean" },
      orders: { type: "string", default: "10000" },
      shops: { type: "string", default: "4" },
      calls: { type: "string", default: "50" },
      latency: { type: "string", default: "20" },
      batch: { type: "string", default: "50" },
      workers: { type: "string", default: "4" },
      concurrency: { type: "string", default: "4" },
      kills: { type: "string", default: "3" },
      seed: { type: "string", default: "42" },
      "client-timeout": { type: "string", default: "5000" },
      "sim-timeout": { type: "string", default: "8000" },
      deadline: { type: "string", default: "30" },
      stall: { type: "string", default: "8" },
    },
  });
  const ORDERS = Number(values.orders);
  const SHOPS = Number(values.shops);
  const CALLS = Number(values.calls);
  const LATENCY = Number(values.latency);
  const BATCH = Number(values.batch);
  const WORKERS = Number(values.workers);
  const CONCURRENCY = Number(values.concurrency);
  const KILLS = Number(values.kills);
  const SEED = Number(values.seed);
  const CLIENT_TIMEOUT_MS = Number(values["client-timeout"]);
  const DEADLINE_MS = Number(values.deadline) * 60_000;
  const STALL_MS = Number(values.stall) * 60_000;
  const FAULTS = {
    rate5xx: 0.05,
    rateTimeout: 0.02,
    rateLimited: 0.01,
    duplicateWebhook: 0.2,
    // Longer than the client's time-out, so that a time-out is one (addCartConfirm waits longer
    // than this for its reply by design).
    timeoutMs: Number(values["sim-timeout"]),
  };
  const SHOP_DUPLICATE_RATE = 0.2;
  if (FAULTS.timeoutMs <= CLIENT_TIMEOUT_MS)
    throw new Error("--sim-timeout must be longer than --client-timeout");

  const fresh = await benchSchema("bench_chaos");
  const appEnv = BENCH_APP_ENV;

  const { startHarness, prisma } = await import("../test/fulfilment/harness");
  const { startServiceSim } = await import("../test/sim/service/index");
  const { closeDatabase } = await import("../app/db.server");
  const { retryOrder } = await import("../app/fulfilment/actions.server");
  type Harness = Awaited<ReturnType<typeof startHarness>>;

  const js = (v: unknown) =>
    JSON.stringify(v, (_, x: unknown) => (typeof x === "bigint" ? String(x) : x));
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const log = (msg: string) => console.error(`[chaos +${elapsed()}s] ${msg}`);
  const t0 = Date.now();
  const elapsed = () => Math.round((Date.now() - t0) / 1000);

  const harnesses: Harness[] = [];
  // One service for every shop's account, as in production (order ids never repeat).
  const svc = await startServiceSim({ allowLoopbackWebhooks: true, latencyMs: LATENCY });
  const children = new Set<ChildProcess>();
  const crashes: { pid: number | undefined; code: number | null; signal: string | null }[] = [];
  const killed = new Set<ChildProcess>();
  let stopping = false;

  const spawnWorker = async () => {
    const child = spawnTs("bench/chaos-worker.ts", {
      ...appEnv,
      DATABASE_URL: fresh.url,
      // 4 workers of (concurrency + 2) and this process's 8 stay far below max_connections.
      DATABASE_POOL_MAX: String(CONCURRENCY + 2),
      CHAOS_SHOP_SIMS: JSON.stringify(
        Object.fromEntries(harnesses.map((h) => [h.shopDomain, h.shop.url])),
      ),
      CHAOS_CONCURRENCY: String(CONCURRENCY),
      CHAOS_CLIENT_TIMEOUT_MS: String(CLIENT_TIMEOUT_MS),
    });
    children.add(child);
    child.once("exit", (code, signal) => {
      children.delete(child);
      if (killed.has(child) || stopping) return;
      // A worker that dies on its own is a finding: record it, keep the count of workers.
      crashes.push({ pid: child.pid, code, signal });
      log(`worker ${child.pid} exited on its own (code ${code}, signal ${signal}); replacing it`);
      void spawnWorker();
    });
    await waitForLine(child, /^ready$/, 60_000);
    return child;
  };

  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    stopping = true;
    for (const c of children) c.kill("SIGKILL");
    for (const h of harnesses) await h.close().catch(() => {});
    await svc.close().catch(() => {});
    await closeDatabase().catch(() => {});
    await fresh.drop().catch((e: unknown) => log(`could not drop ${fresh.schema}: ${String(e)}`));
  };
  const onSignal = () => {
    log("interrupted; cleaning up");
    void cleanup().finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  try {
    // --- setup: one harness (service sim, shop sim, app routes) and account per shop -------------
    const svcMessages = new Set<string>();
    let svcWebhooksDuplicated = 0;
    const onAppRequest = (path: string, body: string) => {
      if (!path.startsWith("/webhooks/svc/")) return;
      try {
        const id = (JSON.parse(body) as { messageId?: string }).messageId;
        if (!id) return;
        if (svcMessages.has(id)) svcWebhooksDuplicated++;
        else svcMessages.add(id);
      } catch {
        // not JSON: the route answers 400
      }
    };
    for (let i = 0; i < SHOPS; i++) {
      harnesses.push(
        await startHarness({
          shopDomain: `chaos-${i}.myshopify.com`,
          balance: "1000000.00",
          callsPerSecond: CALLS,
          svc,
          clientTimeoutMs: CLIENT_TIMEOUT_MS,
          // Plus-sized Admin API buckets: the chaos run measures the app under faults, not
          // Shopify's per-shop limit (see --plan in bench/fulfilment.ts).
          shopifyRestoreRate: 1000,
          settings: { payBatchSize: BATCH, payBatchWindowSeconds: 1 },
          onAppRequest,
        }),
      );
    }
    const products = await Promise.all(
      harnesses.map((h) => h.connectedProduct("Chaos Tee", "10.00")),
    );
    // Faults from here on (setup's token and webhook/set went through cleanly).
    svc.setFaults({ ...FAULTS, seed: SEED });

    // --- workers -----------------------------------------------------------------------------
    await Promise.all(Array.from({ length: WORKERS }, spawnWorker));
    log(
      `${WORKERS} workers (concurrency ${CONCURRENCY}) on ${fresh.schema}; ${ORDERS} orders over ${SHOPS} shops`,
    );

    // --- orders: orders/paid webhooks through the shop simulator, 20% sent twice -----------
    const start = Date.now();
    const rng = createRng(SEED);
    const placed: { h: Harness; legacyId: number; shopOrderId: string }[] = [];
    const redeliveries: Promise<void>[] = [];
    let shopWebhooksDuplicated = 0;
    let webhookRetries = 0;
    const deliver = async (h: Harness, payload: unknown, ids: object) => {
      for (let attempt = 1; ; attempt++) {
        // Shopify retries a delivery that did not get a 200, with the same ids.
        const status = await h.shop
          .sendWebhook(h.shopDomain, "orders/paid", payload, ids)
          .then((r) => r.status)
          .catch(() => 0);
        if (status === 200) return;
        webhookRetries++;
        if (attempt >= 10) throw new Error(`orders/paid answered ${status} ${attempt} times`);
        await sleep(500 * attempt);
      }
    };
    const perShop = Array.from(
      { length: SHOPS },
      (_, i) => Math.floor(ORDERS / SHOPS) + (i < ORDERS % SHOPS ? 1 : 0),
    );
    const sending = Promise.all(
      harnesses.map(async (h, i) => {
        for (let n = 0; n < perShop[i]!; n++) {
          const o = h.shop.placeOrder(h.shopDomain, {
            lines: [{ variantId: products[i]!.variants[0]!.id, quantity: 1 }],
          });
          const payload = h.shop.orderWebhookPayload(h.shopDomain, o.id);
          const ids = { eventId: randomUUID(), webhookId: randomUUID() };
          await deliver(h, payload, ids);
          placed.push({ h, legacyId: o.legacyId, shopOrderId: o.id });
          if (rng.next() < SHOP_DUPLICATE_RATE) {
            shopWebhooksDuplicated++;
            const delay = Math.floor(rng.next() * 2_000);
            redeliveries.push(sleep(delay).then(() => deliver(h, payload, ids)));
          }
        }
      }),
    ).then(() => log(`all ${ORDERS} orders sent in ${Math.round((Date.now() - start) / 1000)} s`));

    // --- shipping: every order the app has paid ships at the service --------------------------
    const shipped = new Set<string>();
    const shipRefused: string[] = [];
    const shipPaid = async () => {
      const rows = await prisma.shopOrder.findMany({
        where: { state: "PAID", svcOrderId: { not: null } },
        select: { svcOrderId: true, shopDomain: true },
      });
      for (const r of rows) {
        const id = r.svcOrderId!;
        if (shipped.has(id)) continue;
        shipped.add(id);
        try {
          svc.ship(id, { trackNumber: `CT-${id}` });
        } catch (e) {
          shipRefused.push(id);
          log(`ship ${id} refused by the service: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    };

    // --- kills: SIGKILL a worker holding jobs at 20%, 50%, 80% of paid orders ---------------
    const thresholds =
      KILLS === 3
        ? [0.2, 0.5, 0.8]
        : Array.from({ length: KILLS }, (_, k) => (k + 1) / (KILLS + 1));
    const kills: { at_paid: number; pid: number | undefined; holding: Record<string, number> }[] =
      [];
    let killWaitSince = 0;
    const maybeKill = async (paid: number) => {
      const next = thresholds[kills.length];
      if (next === undefined || paid < next * ORDERS) return;
      const running = await prisma.job.findMany({
        where: { state: "running" },
        select: { kind: true, lockedBy: true },
      });
      const holding = (c: ChildProcess) =>
        running.filter((j) => j.lockedBy?.split(":")[1] === String(c.pid));
      const live = [...children].filter((c) => !killed.has(c));
      killWaitSince ||= Date.now();
      // Prefer a worker in the middle of a payment, then any worker holding a job.
      let victim =
        live.find((c) => holding(c).some((j) => j.kind === "fulfilment.pay")) ??
        live.find((c) => holding(c).length > 0);
      if (!victim && Date.now() - killWaitSince < 10_000) return;
      victim ??= live[0];
      if (!victim) return;
      killWaitSince = 0;
      const held: Record<string, number> = {};
      for (const j of holding(victim)) held[j.kind] = (held[j.kind] ?? 0) + 1;
      killed.add(victim);
      victim.kill("SIGKILL");
      kills.push({ at_paid: paid, pid: victim.pid, holding: held });
      log(`SIGKILL worker ${victim.pid} at ${paid} paid, holding ${JSON.stringify(held)}`);
      await spawnWorker();
    };

    // --- the merchant: a confirmation whose reply was lost (a worker killed while the service
    // confirmed) leaves its orders FAILED/confirm_unknown, asking the merchant to pay the parent
    // in the service's console and press Retry. The bench does both, and counts them.
    const merchant = { confirm_unknown_orders: 0, console_payments: 0, retries: 0 };
    const seenUnknown = new Set<string>();
    const actAsMerchant = async () => {
      const failed = await prisma.shopOrder.findMany({
        where: { state: "FAILED", reasonCode: "confirm_unknown" },
        select: { id: true, svcOrderId: true, shopDomain: true },
      });
      const paidParents = new Set<string>();
      for (const f of failed) {
        if (!seenUnknown.has(f.id)) merchant.confirm_unknown_orders++;
        seenUnknown.add(f.id);
        const parent = f.svcOrderId ? svc.order(f.svcOrderId)?.shipmentOrderId : undefined;
        if (parent && !paidParents.has(parent)) {
          svc.payInConsole(f.svcOrderId!);
          paidParents.add(parent);
          merchant.console_payments++;
        }
        const h = harnesses.find((x) => x.shopDomain === f.shopDomain)!;
        const r = await retryOrder(h.deps, f.id);
        if (r.ok) merchant.retries++;
        else log(`retry of ${f.id} refused: ${r.error}`);
      }
      if (failed.length) log(`merchant: console-paid and retried ${failed.length} order(s)`);
    };

    // --- wait until every order is fulfilled, or nothing moves ---------------------------------
    const ACTIVE = ["RECEIVED", "HELD", "CREATED", "PAYING", "PAID", "SHIPPED"];
    let lastPrint = 0;
    let fingerprint = "";
    let movedAt = Date.now();
    let settledSince = 0;
    let endReason = "deadline";
    let lastFulfilledAt = Date.now();
    let fulfilledBefore = 0;
    let sendingDone = false;
    void sending.then(() => (sendingDone = true));
    while (Date.now() - start < DEADLINE_MS) {
      await sleep(1_000);
      const byState = await prisma.shopOrder.groupBy({ by: ["state"], _count: true });
      const counts = Object.fromEntries(byState.map((r) => [r.state, r._count]));
      const paid = await prisma.shopOrder.count({ where: { paidAt: { not: null } } });
      await shipPaid();
      await maybeKill(paid);
      await actAsMerchant();
      const fulfilled = counts.FULFILLED ?? 0;
      if (fulfilled > fulfilledBefore) lastFulfilledAt = Date.now();
      fulfilledBefore = fulfilled;
      const jobs = await prisma.job.groupBy({
        by: ["state"],
        where: { kind: { notIn: ["fulfilment.reconcile", "fulfilment.reconcileAccount"] } },
        _count: true,
      });
      const jobCounts = Object.fromEntries(jobs.map((r) => [r.state, r._count]));
      const fp = JSON.stringify([counts, placed.length]);
      if (fp !== fingerprint) {
        fingerprint = fp;
        movedAt = Date.now();
      }
      if (Date.now() - lastPrint > 10_000) {
        lastPrint = Date.now();
        log(
          `sent ${placed.length} paid ${paid} shipped ${shipped.size} states ${JSON.stringify(counts)} jobs ${JSON.stringify(jobCounts)}`,
        );
      }
      if (!sendingDone) continue;
      if (fulfilled >= ORDERS) {
        endReason = "all fulfilled";
        break;
      }
      // Every order at rest (fulfilled, or failed/cancelled: the merchant's turn) and no job of
      // the pipeline left to run: wait 30 s more for a late change, then stop.
      const active = ACTIVE.reduce((a, s) => a + (counts[s] ?? 0), 0);
      const rows = byState.reduce((a, r) => a + r._count, 0);
      const busy = (jobCounts.available ?? 0) + (jobCounts.running ?? 0);
      if (rows >= ORDERS && active === 0 && busy === 0) {
        settledSince ||= Date.now();
        if (Date.now() - settledSince > 30_000) {
          endReason = "every order at rest, no job left";
          break;
        }
      } else settledSince = 0;
      if (Date.now() - movedAt > STALL_MS) {
        endReason = `nothing moved for ${values.stall} min`;
        break;
      }
    }
    log(`stopping: ${endReason}`);
    await sending.catch((e: unknown) => log(`sending failed: ${String(e)}`));
    await Promise.all(redeliveries).catch((e: unknown) => log(`redelivery failed: ${String(e)}`));
    stopping = true;
    for (const c of children) c.kill("SIGTERM");
    await sleep(1_000);
    const seconds = (lastFulfilledAt - start) / 1000;

    // --- figures -------------------------------------------------------------------------------
    const injected = { http_5xx: 0, timeouts: 0, rate_limited_1600200_injected: 0 };
    let limiterRejected = 0;
    const callsByOp: Record<string, number> = {};
    const faultsByOp: Record<string, Record<string, number>> = {};
    for (const c of svc.calls()) {
      if (c.at < start) continue;
      callsByOp[c.op] = (callsByOp[c.op] ?? 0) + 1;
      if (c.fault) {
        const f = (faultsByOp[c.op] ??= {});
        f[c.fault] = (f[c.fault] ?? 0) + 1;
      }
      if (c.fault === "5xx") injected.http_5xx++;
      else if (c.fault === "timeout") injected.timeouts++;
      else if (c.fault === "limited") injected.rate_limited_1600200_injected++;
      else if (c.code === 1600200) limiterRejected++;
    }
    console.error(`faults by operation: ${JSON.stringify(faultsByOp)}`);

    const orders = await prisma.shopOrder.findMany({
      select: {
        id: true,
        shopDomain: true,
        shopifyOrderId: true,
        state: true,
        reasonCode: true,
        orderNumber: true,
        svcOrderId: true,
        amount: true,
      },
    });
    const rowOf = new Map(orders.map((o) => [`${o.shopDomain}/${o.shopifyOrderId}`, o]));
    const notFulfilled: Record<string, number> = {};
    const lostRows: typeof orders = [];
    let missing = 0;
    for (const p of placed) {
      const row = rowOf.get(`${p.h.shopDomain}/${p.legacyId}`);
      if (!row) {
        missing++;
        notFulfilled["(no row)"] = (notFulfilled["(no row)"] ?? 0) + 1;
        continue;
      }
      if (row.state === "FULFILLED") continue;
      lostRows.push(row);
      const key = row.reasonCode ? `${row.state}/${row.reasonCode}` : row.state;
      notFulfilled[key] = (notFulfilled[key] ?? 0) + 1;
    }

    let duplicateOrders = 0;
    let doublePayments = 0;
    const payments: Record<string, { spent: string; paid_orders_sum: string }> = {};
    for (const h of harnesses) {
      const byNumber = new Map<string, number>();
      for (const o of svc.orders({ accountId: h.simAccountId }))
        byNumber.set(o.orderNumber, (byNumber.get(o.orderNumber) ?? 0) + 1);
      duplicateOrders += [...byNumber.values()].filter((n) => n > 1).length;
      const expected = orders
        .filter(
          (o) =>
            o.shopDomain === h.shopDomain &&
            ["PAID", "SHIPPED", "FULFILLED", "DELIVERED"].includes(o.state),
        )
        .reduce((a, r) => a + Math.round(Number(r.amount) * 100), 0);
      const spent = 100_000_000 - Math.round(Number(svc.getBalance(h.simAccountId)) * 100);
      payments[h.shopDomain] = {
        spent: (spent / 100).toFixed(2),
        paid_orders_sum: (expected / 100).toFixed(2),
      };
      if (spent !== expected) doublePayments += 1;
    }

    let trackingWritten = 0;
    let extraFulfilments = 0;
    for (const p of placed) {
      const fs = p.h.shop.fulfillments(p.h.shopDomain, p.shopOrderId);
      const tracked = fs.filter((f) => f.tracking[0]?.number).length;
      trackingWritten += Math.min(1, tracked);
      extraFulfilments += Math.max(0, fs.length - 1);
    }

    const dead = await prisma.job.findMany({
      where: { state: "dead" },
      select: { id: true, kind: true, lastError: true, payload: true },
    });
    const deadByKind: Record<string, number> = {};
    for (const j of dead) deadByKind[j.kind] = (deadByKind[j.kind] ?? 0) + 1;
    for (const j of dead.slice(0, 10))
      console.error(`dead job ${j.id} ${j.kind} ${js(j.payload)}: ${j.lastError}`);

    // Evidence for the orders that did not make it: timeline, jobs, service calls.
    for (const row of lostRows.slice(0, 5)) {
      const timeline = await prisma.timelineEntry.findMany({
        where: { orderId: row.id },
        orderBy: { id: "asc" },
      });
      console.error(
        `not fulfilled: ${row.shopDomain} #${row.shopifyOrderId} ${row.state}/${row.reasonCode ?? ""} ${row.orderNumber} svc ${row.svcOrderId ?? "-"}`,
      );
      for (const t of timeline) console.error(`  timeline ${js(t)}`);
      const jobs = await prisma.job.findMany({
        where: { payload: { path: ["orderId"], equals: row.id } },
        select: { id: true, kind: true, state: true, attempts: true, lastError: true },
      });
      for (const j of jobs) console.error(`  job ${js(j)}`);
      const needles = [row.orderNumber, row.svcOrderId].filter(Boolean) as string[];
      for (const c of svc.calls()) {
        const text = JSON.stringify(c.body ?? "");
        if (!needles.some((n) => text.includes(n))) continue;
        console.error(
          `  call +${c.at - start} ms ${c.op} http ${c.httpStatus} code ${c.code ?? "-"} fault ${c.fault ?? "-"}`,
        );
      }
    }

    const fulfilledCount = placed.length - lostRows.length - missing;
    console.log(
      JSON.stringify({
        mode: "chaos",
        orders: placed.length,
        shops: SHOPS,
        accounts: SHOPS,
        account_calls_per_sec: CALLS,
        simulated_latency_ms: LATENCY,
        batch_size: BATCH,
        workers: WORKERS,
        worker_concurrency: CONCURRENCY,
        client_timeout_ms: CLIENT_TIMEOUT_MS,
        seed: SEED,
        kills,
        workers_crashed: crashes.length,
        faults_configured: { ...FAULTS, shopDuplicateWebhook: SHOP_DUPLICATE_RATE },
        faults_seen: {
          ...injected,
          rate_limited_1600200_by_limit: limiterRejected,
          svc_webhooks_duplicated: svcWebhooksDuplicated,
          shop_webhooks_duplicated: shopWebhooksDuplicated,
          shop_webhook_retries: webhookRetries,
        },
        end: endReason,
        seconds: Math.round(seconds),
        orders_per_sec: Math.round((fulfilledCount / seconds) * 100) / 100,
        svc_calls_by_op: callsByOp,
        lost: placed.length - fulfilledCount,
        merchant_actions: merchant,
        not_fulfilled_by_state: notFulfilled,
        duplicate_orders: duplicateOrders,
        double_payments: doublePayments,
        payments,
        ship_refused: shipRefused.length,
        tracking_written: trackingWritten,
        extra_fulfilments: extraFulfilments,
        jobs_dead: dead.length,
        jobs_dead_by_kind: deadByKind,
      }),
    );
    return 0;
  } finally {
    await cleanup();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
