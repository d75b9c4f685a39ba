/**
 * `npm run bench:scale`: many shops at the service's real rate, in production wiring. Prints one
 * JSON object.
 *
 *   npm run build && npm run bench:scale -- --shops 100 --orders 10000 [--chaos]
 *
 * - The app as deployed: the compiled web server (`build/server.js`) and `--workers` worker
 *   processes (`build/worker.js`), on a fresh PostgreSQL schema (BENCH_DATABASE_URL, default the
 *   local server's `test` database). The only addition is bench/scale-route.mjs, preloaded to
 *   send the Shopify library's Admin API requests to the shop simulator.
 * - The simulators in a process of their own (bench/scale-sims.ts): every shop's account at one
 *   service simulator at `--calls` per second per operation (the contract: 1) and 2 per second
 *   for batch queries, every shop at one shop simulator with Shopify's per-shop GraphQL bucket
 *   (`--plan`: standard 100 points/s, advanced 200, plus 1000).
 * - Orders arrive as signed orders/paid webhooks through the real route, open loop at `--rate`
 *   per second (default: twice the ceiling); once all are paid, every service order ships and
 *   its LOGISTIC webhook goes to the real route.
 * - `--chaos`: service faults (5xx, time-outs, 1600200), duplicated webhooks from both sides,
 *   and 3 worker processes killed with SIGKILL (and started again) while orders are paid.
 * - What an order costs: CPU per process kind, PostgreSQL's transactions, the jobs, and every SQL
 *   statement the app processes sent (bench/scale-census.mjs, preloaded, counts them by text);
 *   `--profile FILE` writes that census (text, calls, total time) beside the JSON, and each
 *   explicit transaction's shape (its statement kinds in order) with how often it ran.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Agent, fetch as undiciFetch } from "undici";
import { waitForLine } from "../test/helpers/child";
import { percentile as pct, waitHealthy } from "./common";
import { benchSchema } from "./harness-env";

const { values } = parseArgs({
  options: {
    shops: { type: "string", default: "100" },
    orders: { type: "string", default: "10000" },
    calls: { type: "string", default: "1" },
    workers: { type: "string", default: "3" },
    concurrency: { type: "string", default: "32" },
    rate: { type: "string" },
    plan: { type: "string", default: "standard" },
    latency: { type: "string", default: "20" },
    batch: { type: "string", default: "50" },
    port: { type: "string", default: "3931" },
    deadline: { type: "string", default: "30" },
    chaos: { type: "boolean", default: false },
    profile: { type: "string" },
  },
});
const SHOPS = Number(values.shops);
const PER_SHOP = Math.max(1, Math.round(Number(values.orders) / SHOPS));
const ORDERS = PER_SHOP * SHOPS;
const CALLS = Number(values.calls);
const QUERY_CALLS = Math.max(2, CALLS);
const WORKERS = Number(values.workers);
const CEILING = CALLS * SHOPS;
const RATE = values.rate ? Number(values.rate) : 2 * CEILING;
const PLANS: Record<string, number> = { standard: 100, advanced: 200, plus: 1000 };
const RESTORE = PLANS[values.plan!];
if (!RESTORE) throw new Error(`--plan is one of ${Object.keys(PLANS).join(", ")}`);
const CHAOS = values.chaos!;
const DEADLINE = Date.now() + Number(values.deadline) * 60_000;
const PORT = Number(values.port);
const APP_URL = `http://127.0.0.1:${PORT}`;
const API_SECRET = "scale-api-secret";
/** The node flags production runs the app with: those of `npm start` (package.json). */
const NODE_FLAGS = (
  JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }
).scripts
  .start!.split(" ")
  .filter((a) => a.startsWith("--"));

if (!existsSync("build/server.js") || !existsSync("build/worker.js")) {
  console.error("No production build: run `npm run build` first.");
  process.exit(1);
}

const fresh = await benchSchema("bench_scale");
// The bench's own seeding encrypts with the key the app processes get.
const encryptionKey = randomBytes(32).toString("base64");
process.env.ENCRYPTION_KEY = encryptionKey;
process.env.SHOPIFY_API_SECRET = API_SECRET;
const { prisma, closeDatabase } = await import("../app/db.server");
const { sessionStorage } = await import("../app/shopify.server");
const { Session } = await import("@shopify/shopify-api");
const { updateSettings } = await import("../app/settings.server");
const { saveApiKeyAccount } = await import("../app/svc/tokens.server");
const { webhookSecretColumns } = await import("../app/svc/webhook-secret.server");
const { productionDeps } = await import("../app/orders/deps.server");
const { retryOrder } = await import("../app/fulfilment/actions.server");

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (msg: string) =>
  console.error(`[scale +${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}`);
const t0 = Date.now();
const children: ChildProcess[] = [];
/** Where each app process writes its statement census when it exits. */
const CENSUS_DIR = mkdtempSync(join(tmpdir(), "scale-census-"));

interface CensusRow {
  text: string;
  calls: number;
  total_ms: number;
}

/** A statement's kind: BEGIN/COMMIT, or its verb and first table ("SELECT ShopOrder"). */
function kindOf(text: string): string {
  const verb = text.split(" ")[0]!.toUpperCase();
  if (["BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE"].includes(verb)) return verb;
  const table = /\b(?:FROM|INTO|UPDATE)\s+(?:"[^"]+"\.)?"([^"]+)"/i.exec(text)?.[1];
  return `${verb} ${table ?? "(other)"}`;
}

/** Each explicit transaction's shape (its statement kinds in order), counted over the processes. */
const transactionShapes = new Map<string, number>();

/** The census of every app process that exited (a SIGKILLed one leaves none), merged by text. */
function readCensus(): CensusRow[] {
  const merged = new Map<string, CensusRow>();
  for (const f of readdirSync(CENSUS_DIR)) {
    const { statements, transactions } = JSON.parse(readFileSync(join(CENSUS_DIR, f), "utf8")) as {
      statements: CensusRow[];
      transactions?: Record<string, number>;
    };
    for (const [shape, n] of Object.entries(transactions ?? {}))
      transactionShapes.set(shape, (transactionShapes.get(shape) ?? 0) + n);
    for (const r of statements) {
      const m = merged.get(r.text) ?? { text: r.text, calls: 0, total_ms: 0 };
      m.calls += r.calls;
      m.total_ms = Math.round((m.total_ms + r.total_ms) * 10) / 10;
      merged.set(r.text, m);
    }
  }
  return [...merged.values()].sort((a, b) => b.calls - a.calls);
}

/** Stops the processes (SIGTERM: the app's own shutdown) and waits for each to exit. */
async function stop(procs: ChildProcess[]) {
  for (const c of procs) if (c.exitCode === null && c.signalCode === null) c.kill("SIGTERM");
  await Promise.all(
    procs.map((c) =>
      c.exitCode !== null || c.signalCode !== null ? null : new Promise((r) => c.once("exit", r)),
    ),
  );
}

/** CPU milliseconds (user + system) and peak RSS (MB) of a live process, from /proc. */
function usage(pid: number): { cpuMs: number; rssPeakMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return { cpuMs: ticks * 10, rssPeakMb: Math.round(Number(hwm?.[1] ?? 0) / 1024) };
}

/**
 * CPU milliseconds of PostgreSQL on this machine: every live `postgres` process plus what the
 * postmaster has reaped from backends that ended (their time is added to its children's fields).
 */
function postgresCpuMs(): number {
  let ticks = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (!stat.includes("(postgres)")) continue;
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(f[11]) + Number(f[12]);
      if (f[1] === "1" || !readFileSync(`/proc/${f[1]}/stat`, "utf8").includes("(postgres)"))
        ticks += Number(f[13]) + Number(f[14]);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return ticks * 10;
}

/** CPU milliseconds the whole machine spent (all cores, not idle), from /proc/stat. */
function machineCpuMs(): number {
  const f = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1);
  const n = f.map(Number);
  return (n.reduce((a, b) => a + b, 0) - n[3]! - n[4]!) * 10;
}

async function dbTransactions(): Promise<number> {
  const rows = await prisma.$queryRaw<{ n: bigint }[]>`
    SELECT (xact_commit + xact_rollback)::bigint AS n FROM pg_stat_database
    WHERE datname = current_database()`;
  return Number(rows[0]!.n);
}

try {
  // 1. The simulators.
  const sims = spawn(process.execPath, ["--import", "tsx", "bench/scale-sims.ts"], {
    env: {
      ...process.env,
      SCALE_APP_URL: APP_URL,
      SCALE_API_SECRET: API_SECRET,
      SCALE_LATENCY_MS: values.latency,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(sims);
  const simUrls = JSON.parse(await waitForLine(sims, /^\{"control"/)) as Record<string, string>;
  // No time limit: /orders answers once every webhook is in, Shopify's retries included.
  const patient = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
  const control = async <T>(path: string, body?: unknown): Promise<T> => {
    const res = await undiciFetch(`${simUrls.control}${path}`, {
      method: body === undefined ? "GET" : "POST",
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: patient,
    });
    if (!res.ok) throw new Error(`sims ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const shops = await control<
    {
      domain: string;
      accessToken: string;
      apiKey: string;
      openId: string;
      webhookSecret: string;
      productId: string;
      variantId: string;
      sku: string;
      vid: string;
    }[]
  >("/setup", { shops: SHOPS, calls: CALLS, queryCalls: QUERY_CALLS, restoreRate: RESTORE });

  // 2. What installing and connecting left in the database: session, settings, account, mapping.
  for (const s of shops) {
    await sessionStorage.storeSession(
      new Session({
        id: `offline_${s.domain}`,
        shop: s.domain,
        state: "state",
        isOnline: false,
        accessToken: s.accessToken,
        scope: "read_orders,write_merchant_managed_fulfillment_orders",
      }),
    );
    await updateSettings(prisma, s.domain, {
      trigger: "orders/paid",
      logisticName: "SvcPacket Ordinary",
      fromCountryCode: "CN",
      payBatchSize: Number(values.batch),
      payBatchWindowSeconds: 1,
    });
    const account = await saveApiKeyAccount(prisma, {
      baseUrl: simUrls.svc!,
      apiKey: s.apiKey,
      shopDomain: s.domain,
      callsPerSecond: CALLS,
      queryCallsPerSecond: QUERY_CALLS,
    });
    await prisma.svcAccount.update({
      where: { id: account.id },
      data: { ...webhookSecretColumns(s.webhookSecret), openId: s.openId },
    });
    await prisma.productConnection.create({
      data: {
        shopDomain: s.domain,
        shopifyProductId: s.productId,
        shopifyVariantId: s.variantId,
        sku: s.sku,
        svcVid: s.vid,
      },
    });
  }
  log(`${SHOPS} shops seeded`);

  // 3. The app: one web server, WORKERS worker processes.
  const appEnv: Record<string, string> = {
    ...(process.env as Record<string, string>),
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: String(PORT),
    DATABASE_URL: fresh.url,
    DATABASE_POOL_MAX: "10",
    WORKER_IN_PROCESS: "0",
    WORKER_CONCURRENCY: values.concurrency!,
    SHOPIFY_API_KEY: "scale-api-key",
    SHOPIFY_API_SECRET: API_SECRET,
    SHOPIFY_APP_URL: APP_URL,
    ENCRYPTION_KEY: encryptionKey,
    SVC_BASE_URL: simUrls.svc!,
    SCALE_SHOP_SIM_URL: simUrls.shop!,
    FX_RATES_URL: "off",
    LOG_LEVEL: "error",
    SCALE_CENSUS_DIR: CENSUS_DIR,
  };
  const startApp = (file: string): ChildProcess => {
    // SCALE_PROFILE_DIR: each app process writes a V8 CPU profile there when it stops.
    const profile = process.env.SCALE_PROFILE_DIR
      ? ["--cpu-prof", `--cpu-prof-dir=${process.env.SCALE_PROFILE_DIR}`]
      : [];
    const child = spawn(
      process.execPath,
      [
        ...NODE_FLAGS,
        ...profile,
        "--import",
        "./bench/scale-route.mjs",
        "--import",
        "./bench/scale-census.mjs",
        file,
      ],
      {
        env: appEnv as NodeJS.ProcessEnv,
        stdio: ["ignore", "ignore", "inherit"],
      },
    );
    children.push(child);
    return child;
  };
  const web = startApp("build/server.js");
  const workers = Array.from({ length: WORKERS }, () => startApp("build/worker.js"));
  await waitHealthy(web, APP_URL);
  log(`web ${web.pid} and ${WORKERS} workers up`);

  // 4. Orders → paid.
  if (CHAOS) {
    await control("/faults", {
      rate5xx: 0.05,
      rateTimeout: 0.02,
      rateLimited: 0.01,
      duplicateWebhook: 0.2,
      timeoutMs: 40_000,
      seed: 7,
    });
  }
  const txBefore = await dbTransactions();
  const cpuBefore = { sims: usage(sims.pid!).cpuMs, pg: postgresCpuMs(), machine: machineCpuMs() };
  const started = Date.now();
  const sending = control<{ sent: number; seconds: number }>("/orders", {
    rate: RATE,
    perShop: PER_SHOP,
    duplicateRate: CHAOS ? 0.2 : 0,
  });
  const killed: number[] = [];
  const killAt = CHAOS ? [0.2, 0.5, 0.8].map((f) => Math.round(f * ORDERS)) : [];
  const paidStates = ["PAID", "SHIPPED", "FULFILLED", "DELIVERED"];
  /**
   * The merchant's part under chaos: a confirmation whose reply was lost (a worker killed, or a
   * time-out, while the service confirmed) leaves its orders FAILED/confirm_unknown, asking the
   * merchant to pay the parent in the service's console and press Retry. Done here as the
   * merchant would (Retry is the app's own use case), and counted.
   */
  const merchant = { confirm_unknown_orders: 0, console_payments: 0, retries: 0 };
  const deps = await productionDeps(prisma);
  let lastMerchant = 0;
  const actAsMerchant = async () => {
    if (!CHAOS || Date.now() - lastMerchant < 5_000) return;
    lastMerchant = Date.now();
    const failed = await prisma.shopOrder.findMany({
      where: { state: "FAILED", reasonCode: "confirm_unknown" },
      select: { id: true, svcOrderId: true },
    });
    if (failed.length === 0) return;
    merchant.confirm_unknown_orders += failed.length;
    const { paid: parents } = await control<{ paid: number }>("/pay-in-console", {
      orderIds: failed.flatMap((f) => (f.svcOrderId ? [f.svcOrderId] : [])),
    });
    merchant.console_payments += parents;
    for (const f of failed) if ((await retryOrder(deps, f.id)).ok) merchant.retries++;
    log(`merchant: console-paid ${parents} parent(s), retried ${failed.length} order(s)`);
  };
  let paid = 0;
  let lastLog = 0;
  while (Date.now() < DEADLINE) {
    paid = await prisma.shopOrder.count({ where: { state: { in: paidStates } } });
    if (killAt.length && paid >= killAt[0]!) {
      killAt.shift();
      const victim = workers.shift()!;
      victim.kill("SIGKILL");
      killed.push(victim.pid!);
      workers.push(startApp("build/worker.js"));
      log(`SIGKILL worker ${victim.pid} at ${paid} paid; a new one started`);
    }
    if (paid >= ORDERS) break;
    await actAsMerchant();
    if (Date.now() - lastLog > 10_000) {
      lastLog = Date.now();
      log(`${paid}/${ORDERS} paid`);
    }
    await sleep(250);
  }
  const paidMs = Date.now() - started;
  const sent = await sending;
  log(`${paid} paid in ${(paidMs / 1000).toFixed(1)} s (webhooks sent in ${sent.seconds} s)`);
  const statsAtPaid = await control<Record<string, unknown>>("/stats");

  // 5. Ship every service order; LOGISTIC webhooks → fulfilments in the shops.
  const rows = await prisma.shopOrder.findMany({
    where: { svcOrderId: { not: null } },
    select: { id: true, svcOrderId: true },
  });
  const shipStarted = Date.now();
  const shippedAt = new Map<string, number>();
  for (let i = 0; i < rows.length; i += 500) {
    const part = rows.slice(i, i + 500);
    const { shippedAt: at } = await control<{ shippedAt: Record<string, number> }>("/ship", {
      orderIds: part.map((r) => r.svcOrderId),
    });
    for (const r of part) shippedAt.set(r.id, at[r.svcOrderId!]!);
  }
  let fulfilled = 0;
  while (Date.now() < DEADLINE) {
    fulfilled = await prisma.shopOrder.count({ where: { state: "FULFILLED" } });
    if (fulfilled >= rows.length) break;
    if (Date.now() - lastLog > 10_000) {
      lastLog = Date.now();
      log(`${fulfilled}/${rows.length} fulfilled`);
    }
    await sleep(250);
  }
  const fulfilMs = Date.now() - shipStarted;
  log(`${fulfilled} fulfilled in ${(fulfilMs / 1000).toFixed(1)} s`);
  if (CHAOS) await control("/faults", {});

  // 6. Measure, then stop.
  const procs = [web, ...workers];
  const use = procs.map((p) => ({ pid: p.pid!, ...usage(p.pid!) }));
  const cpuAfter = { sims: usage(sims.pid!).cpuMs, pg: postgresCpuMs(), machine: machineCpuMs() };
  const perOrder = (ms: number) => Math.round((ms / ORDERS) * 100) / 100;
  const txAfter = await dbTransactions();
  const stats = await control<{
    svc_calls_by_op: Record<string, number>;
    svc_rate_limited: Record<string, number>;
    duplicate_orders: number;
    spent_cents_by_shop: Record<string, number>;
    tracking_written: number;
    shopify_calls: number;
    shopify_throttled: number;
    shopify_actual_cost: number;
    shop_webhooks_duplicated: number;
    shop_webhooks_refused: number;
  }>("/stats");
  const orders = await prisma.shopOrder.findMany({
    select: {
      id: true,
      shopDomain: true,
      state: true,
      amount: true,
      createdAt: true,
      paidAt: true,
      fulfilledAt: true,
    },
  });
  const toPaid = orders.filter((o) => o.paidAt).map((o) => +o.paidAt! - +o.createdAt);
  const toFulfil = orders
    .filter((o) => o.fulfilledAt && shippedAt.has(o.id))
    .map((o) => +o.fulfilledAt! - shippedAt.get(o.id)!);
  // Paid = what the app recorded it paid per shop; a difference with the service's ledger is a
  // double (or missing) payment.
  const expected = new Map<string, number>();
  for (const o of orders)
    if (paidStates.includes(o.state))
      expected.set(
        o.shopDomain,
        (expected.get(o.shopDomain) ?? 0) + Math.round(Number(o.amount) * 100),
      );
  const doublePayments = Object.entries(stats.spent_cents_by_shop).filter(
    ([d, cents]) => cents !== (expected.get(d) ?? 0),
  ).length;
  const jobs = await prisma.job.count();
  const jobsByKind = await prisma.job.groupBy({ by: ["kind"], _count: { _all: true } });
  const ordersPerSec = ORDERS / (paidMs / 1000);
  const fulfilPerSec = fulfilled / (fulfilMs / 1000);
  // Fulfilment ceilings: the service's batch queries (each reads up to 100 orders) and the
  // shops' GraphQL buckets at the actual cost per fulfilment measured in this run.
  const trackingCost =
    (stats.shopify_actual_cost -
      (statsAtPaid as { shopify_actual_cost: number }).shopify_actual_cost) /
    Math.max(1, fulfilled);
  const svcFulfilCeiling = SHOPS * QUERY_CALLS * 100;
  const shopifyFulfilCeiling = (SHOPS * RESTORE) / Math.max(1, trackingCost);
  const binding = Math.min(svcFulfilCeiling, shopifyFulfilCeiling);
  const cpu = (list: typeof use) => list.reduce((n, u) => n + u.cpuMs, 0);
  // The statements: every app process stopped first, so each wrote its census.
  await stop(procs);
  const census = readCensus();
  const statements = census.reduce((n, r) => n + r.calls, 0);
  const byKind = new Map<string, number>();
  for (const r of census) byKind.set(kindOf(r.text), (byKind.get(kindOf(r.text)) ?? 0) + r.calls);
  const round2 = (n: number) => Math.round(n * 100) / 100;
  if (values.profile) {
    writeFileSync(
      values.profile,
      JSON.stringify(
        {
          orders: ORDERS,
          statements,
          by_kind: Object.fromEntries(
            [...byKind].sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, round2(n / ORDERS)]),
          ),
          census: census.map((r) => ({ ...r, per_order: round2(r.calls / ORDERS) })),
          transactions: [...transactionShapes]
            .sort((a, b) => b[1] - a[1])
            .map(([shape, calls]) => ({ shape, calls, per_order: round2(calls / ORDERS) })),
        },
        null,
        2,
      ),
    );
    log(`statement census written to ${values.profile}`);
  }
  console.log(
    JSON.stringify({
      bench: "scale",
      shops: SHOPS,
      orders: ORDERS,
      chaos: CHAOS,
      workers: WORKERS,
      worker_concurrency: Number(values.concurrency),
      account_calls_per_sec: CALLS,
      account_query_calls_per_sec: QUERY_CALLS,
      shopify_plan: values.plan,
      shopify_restore_rate: RESTORE,
      arrival_rate: RATE,
      service_ceiling_orders_per_sec: CEILING,
      orders_per_sec_to_paid: Math.round(ordersPerSec * 100) / 100,
      pct_of_service_ceiling: Math.round((ordersPerSec / CEILING) * 1000) / 10,
      fulfilments_per_sec: Math.round(fulfilPerSec * 100) / 100,
      fulfilment_ceiling_service_batch_queries: svcFulfilCeiling,
      fulfilment_ceiling_shopify_throttle: Math.round(shopifyFulfilCeiling),
      fulfilment_binding_limit: svcFulfilCeiling < shopifyFulfilCeiling ? "service" : "shopify",
      fulfilment_pct_of_binding_limit: Math.round((fulfilPerSec / binding) * 1000) / 10,
      shopify_actual_cost_per_fulfilment: Math.round(trackingCost),
      shopify_throttled: stats.shopify_throttled,
      svc_calls_by_op: stats.svc_calls_by_op,
      svc_rate_limited: stats.svc_rate_limited,
      p50_order_to_paid_ms: pct(toPaid, 50),
      p99_order_to_paid_ms: pct(toPaid, 99),
      p50_logistics_webhook_to_fulfilment_ms: pct(toFulfil, 50),
      p99_logistics_webhook_to_fulfilment_ms: pct(toFulfil, 99),
      cpu_ms_per_order_app: perOrder(cpu(use)),
      cpu_ms_per_order_web: Math.round((use[0]!.cpuMs / ORDERS) * 100) / 100,
      cpu_ms_per_order_workers: Math.round((cpu(use.slice(1)) / ORDERS) * 100) / 100,
      // From the first order sent to the last fulfilment (web and workers count their whole life).
      cpu_ms_per_order_simulators: perOrder(cpuAfter.sims - cpuBefore.sims),
      cpu_ms_per_order_postgres: perOrder(cpuAfter.pg - cpuBefore.pg),
      cpu_ms_per_order_machine: perOrder(cpuAfter.machine - cpuBefore.machine),
      rss_mb_by_process: Object.fromEntries(
        use.map((u, i) => [i === 0 ? "web" : `worker_${i}`, u.rssPeakMb]),
      ),
      rss_mb_max_per_process: Math.max(...use.map((u) => u.rssPeakMb)),
      jobs_per_order: Math.round((jobs / ORDERS) * 100) / 100,
      jobs_per_order_by_kind: Object.fromEntries(
        jobsByKind
          .sort((a, b) => b._count._all - a._count._all)
          .map((k) => [k.kind, round2(k._count._all / ORDERS)]),
      ),
      transactions_per_order: Math.round(((txAfter - txBefore) / ORDERS) * 10) / 10,
      // Sent by the app processes that exited (web and workers; not one SIGKILLed under chaos).
      statements_per_order: round2(statements / ORDERS),
      statements_per_order_by_kind: Object.fromEntries(
        [...byKind]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 15)
          .map(([k, n]) => [k, round2(n / ORDERS)]),
      ),
      workers_killed: killed.length,
      merchant_actions: merchant,
      shop_webhooks_duplicated: stats.shop_webhooks_duplicated,
      // Deliveries the web did not answer 200 (retried as Shopify does, up to 8 times).
      shop_webhooks_refused: stats.shop_webhooks_refused,
      webhooks_sent_seconds: sent.seconds,
      lost: ORDERS - fulfilled,
      duplicate_orders: stats.duplicate_orders,
      double_payments: doublePayments,
      tracking_written: stats.tracking_written,
    }),
  );
} finally {
  // Those killed by a signal (the chaos run's SIGKILLed workers) have exited already.
  await stop(children);
  await closeDatabase().catch(() => {});
  // BENCH_KEEP_SCHEMA=1 keeps the run's rows for a look afterwards (the schema is named here).
  if (process.env.BENCH_KEEP_SCHEMA) log(`schema kept: ${fresh.schema}`);
  else await fresh.drop();
  rmSync(CENSUS_DIR, { recursive: true, force: true });
}
