/**
 * `npm run bench:ack`: the webhook acknowledgement under load, through the production server
 * (`node build/server.js`) with the job worker running. Builds nothing: run `npm run build`
 * first. Sends signed Shopify order webhooks and service LOGISTIC webhooks at a fixed rate
 * (open loop: requests go out on schedule whether or not earlier ones have answered), prints
 * one JSON object with p50/p99, and checks that every acknowledged event was stored exactly
 * once with its job, and that the jobs ran.
 *
 *   npm run build && npm run bench:ack -- --rate 200 --seconds 10 [--db postgres]
 *
 * --db embedded (default): the server runs its own PGlite and its jobs (WORKER_IN_PROCESS).
 * --db postgres: a fresh schema on BENCH_DATABASE_URL, and a separate `node build/worker.js`.
 * Both seed an installed shop and a service account (webhook secret stored hashed).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { PrismaClient } from "@prisma/client";
import { PrismaPg } from "@prisma/adapter-pg";
import { startEmbeddedPostgres } from "../app/db/embedded.server";
import { freshSchema } from "../test/helpers/pg";
import { waitHealthy } from "./common";

const { values } = parseArgs({
  options: {
    rate: { type: "string", default: "200" },
    seconds: { type: "string", default: "10" },
    db: { type: "string", default: "embedded" },
    port: { type: "string", default: "3917" },
    /** Seconds the worker gets after the last request, before the jobs are checked. */
    drain: { type: "string", default: "10" },
    /** "0" runs no worker during the measurement (it starts afterwards, for the check). */
    worker: { type: "string", default: "1" },
  },
});
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const port = Number(values.port);
const SECRET = "bench-api-secret";
const SHOP = "bench.myshopify.com";
const base = `http://127.0.0.1:${port}`;

/** A Prisma adapter for a URL with the app's `?schema=` (not app/db.server: it opens a client). */
function adapterFor(url: string) {
  const u = new URL(url);
  const schema = u.searchParams.get("schema");
  u.searchParams.delete("schema");
  return new PrismaPg(
    {
      connectionString: u.toString(),
      max: 1,
      ...(schema ? { options: `-c search_path="${schema}"` } : {}),
    },
    schema ? { schema } : undefined,
  );
}

const encryptionKey = randomBytes(32).toString("base64");
// The seeding below encrypts the webhook secret with the server's key.
process.env.ENCRYPTION_KEY = encryptionKey;
const { webhookSecretColumns } = await import("../app/svc/webhook-secret.server");

const env: Record<string, string> = {
  ...(process.env as Record<string, string>),
  NODE_ENV: "production",
  PORT: String(port),
  HOST: "127.0.0.1",
  SHOPIFY_API_KEY: "bench-key",
  SHOPIFY_API_SECRET: SECRET,
  SHOPIFY_APP_URL: base,
  ENCRYPTION_KEY: encryptionKey,
  LOG_LEVEL: "warn",
  // The server's own view of each acknowledgement, read from /metrics at the end.
  METRICS_TOKEN: randomBytes(24).toString("hex"),
};

/**
 * The server-side acknowledgement times (dropship_webhook_ack_duration_seconds, all webhook
 * routes): the share answered within 25 ms and the bucket bound under which 99% fell. Set
 * beside the client's figures, it tells the server's time from the client's own queueing.
 */
async function serverAckView(): Promise<Record<string, number>> {
  const res = await fetch(`${base}/metrics`, {
    headers: { Authorization: `Bearer ${env.METRICS_TOKEN}` },
  });
  const buckets = new Map<number, number>();
  const gauges: Record<string, number> = {};
  for (const line of (await res.text()).split("\n")) {
    const g = /^nodejs_eventloop_lag_(p99|max)_seconds (\S+)/.exec(line);
    if (g) gauges[`server_eventloop_lag_${g[1]}_ms`] = Number((Number(g[2]) * 1000).toFixed(1));
    const m = /^dropship_webhook_ack_duration_seconds_bucket\{.*le="([^"]+)".*\} (\d+)/.exec(line);
    if (!m) continue;
    const le = m[1] === "+Inf" ? Infinity : Number(m[1]);
    buckets.set(le, (buckets.get(le) ?? 0) + Number(m[2]));
  }
  const bounds = [...buckets.keys()].sort((a, b) => a - b);
  const total = buckets.get(Infinity) ?? 0;
  const within = (le: number) => buckets.get(le) ?? 0;
  const p99 = bounds.find((le) => within(le) >= 0.99 * total) ?? Infinity;
  return {
    server_le_25ms_pct: Number(((100 * within(0.025)) / Math.max(1, total)).toFixed(1)),
    server_p99_le_ms: p99 * 1000,
    ...gauges,
  };
}
const svcSecret = randomBytes(32).toString("base64url");
let cleanup = async () => {};
/** A database URL the bench itself may use while the server is stopped (or always, on PG). */
let openDb: () => Promise<{ db: PrismaClient; close(): Promise<void> }>;

async function seed(db: PrismaClient) {
  await db.shop.create({ data: { domain: SHOP } });
  await db.svcAccount.create({
    data: {
      shopDomain: SHOP,
      baseUrl: "http://svc.invalid",
      authMethod: "apiKey",
      ...webhookSecretColumns(svcSecret),
    },
  });
}

if (values.db === "postgres") {
  const server = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
  const fresh = await freshSchema(server, `bench_${randomBytes(4).toString("hex")}`);
  env.DATABASE_URL = fresh.url;
  env.WORKER_IN_PROCESS = "0";
  openDb = async () => {
    const db = new PrismaClient({ adapter: adapterFor(fresh.url) });
    return { db, close: () => db.$disconnect() };
  };
  cleanup = fresh.drop;
} else {
  const dir = mkdtempSync(join(tmpdir(), "bench-ack-"));
  env.PGLITE_DATA_DIR = join(dir, "pglite");
  env.WORKER_IN_PROCESS = "1";
  delete env.DATABASE_URL;
  openDb = async () => {
    const pg = await startEmbeddedPostgres(env.PGLITE_DATA_DIR!);
    const db = new PrismaClient({ adapter: adapterFor(pg.url) });
    return {
      db,
      close: async () => {
        await db.$disconnect();
        await pg.stop();
      },
    };
  };
  cleanup = async () => rmSync(dir, { recursive: true, force: true });
}
{
  const { db, close } = await openDb();
  await seed(db);
  await close();
}

/** The event key the app stores for each request sent (source:key), to check afterwards. */
function shopifyRequest(i: number): [string, RequestInit, string] {
  const eventId = randomUUID();
  // Shopify's ids are positive: the intake refuses an orders payload without one.
  const id = 1_000_000 + i;
  const body = JSON.stringify({ id, email: `c${id}@example.com`, line_items: [{ id }] });
  return [
    `${base}/webhooks/orders/create`,
    {
      method: "POST",
      body,
      headers: {
        "Content-Type": "application/json",
        "X-Shopify-Topic": "orders/create",
        "X-Shopify-Shop-Domain": SHOP,
        "X-Shopify-Hmac-Sha256": createHmac("sha256", SECRET).update(body).digest("base64"),
        "X-Shopify-Webhook-Id": randomUUID(),
        "X-Shopify-Event-Id": eventId,
        "X-Shopify-API-Version": "2026-10",
      },
    },
    `shopify:${eventId}`,
  ];
}

function svcRequest(i: number): [string, RequestInit, string] {
  const messageId = randomUUID();
  const body = JSON.stringify({
    messageId,
    type: "LOGISTIC",
    params: { orderId: `SO-${i}`, trackingNumber: `T${i}` },
  });
  return [
    `${base}/webhooks/svc/${svcSecret}`,
    { method: "POST", body, headers: { "Content-Type": "application/json" } },
    `svc:${messageId}`,
  ];
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

function start(file: string): ChildProcess {
  return spawn(
    process.execPath,
    // BENCH_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", to profile the processes.
    [...(process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? []), file],
    { env: env as NodeJS.ProcessEnv, stdio: ["ignore", "ignore", "inherit"] },
  );
}
async function stop(child: ChildProcess | undefined) {
  if (!child || child.exitCode !== null) return;
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
}

/** Events stored per key, and jobs by state, for the keys sent. */
async function verify(keys: string[]) {
  const { db, close } = await openDb();
  try {
    const events = await db.$queryRaw<{ source: string; eventKey: string; n: bigint }[]>`
      SELECT "source", "eventKey", count(*) AS n FROM "WebhookEvent" GROUP BY 1, 2`;
    const stored = new Map<string, number>();
    for (const e of events) {
      const key =
        e.source === "svc" ? `svc:${e.eventKey.split(":").pop()}` : `shopify:${e.eventKey}`;
      stored.set(key, (stored.get(key) ?? 0) + Number(e.n));
    }
    const missing = keys.filter((k) => !stored.has(k)).length;
    const duplicated = keys.filter((k) => (stored.get(k) ?? 0) > 1).length;
    const jobs = await db.$queryRaw<{ state: string; attempted: boolean; n: bigint }[]>`
      SELECT "state", "attempts" > 0 AS attempted, count(*) AS n FROM "Job"
      WHERE "idempotencyKey" LIKE 'shopify:%' OR "idempotencyKey" LIKE 'svc:%' GROUP BY 1, 2`;
    const notRun = jobs.filter((j) => !j.attempted).reduce((n, j) => n + Number(j.n), 0);
    const byState = Object.fromEntries(
      jobs.map((j) => [`${j.state}${j.attempted ? "" : " (never run)"}`, Number(j.n)]),
    );
    return { missing, duplicated, notRun, byState };
  } finally {
    await close();
  }
}

const server = start("build/server.js");
const withWorker = values.worker !== "0";
let worker = values.db === "postgres" && withWorker ? start("build/worker.js") : undefined;
const acked: string[] = [];
let report: Record<string, unknown> = {};
try {
  await waitHealthy(server, base, 20_000);
  // Warm up the routes and the database.
  for (let i = 0; i < 20; i++) {
    const [url, init, key] = i % 2 ? svcRequest(-i) : shopifyRequest(-i);
    if ((await fetch(url, init)).status === 200) acked.push(key);
  }
  const total = rate * seconds;
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const start0 = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const [url, init, key] = i % 2 ? svcRequest(i) : shopifyRequest(i);
    const sent = performance.now();
    inflight.push(
      fetch(url, init)
        .then(async (res) => {
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 200) acked.push(key);
        })
        .catch(() => {
          statuses.set(0, (statuses.get(0) ?? 0) + 1);
        })
        .finally(() => latencies.push(performance.now() - sent)),
    );
  }
  await Promise.all(inflight);
  const elapsed = (performance.now() - start0) / 1000;
  latencies.sort((a, b) => a - b);
  const healthStarted = performance.now();
  await fetch(`${base}/healthz`);
  report = {
    bench: "webhook-ack",
    server: "build/server.js",
    database: values.db,
    worker:
      values.db !== "postgres" ? "in process" : withWorker ? "build/worker.js" : "after the run",
    kinds: ["shopify", "svc"],
    target_rps: rate,
    achieved_rps: Math.round(total / elapsed),
    requests: total,
    statuses: Object.fromEntries(statuses),
    p50_ms: Number(percentile(latencies, 50).toFixed(1)),
    p99_ms: Number(percentile(latencies, 99).toFixed(1)),
    max_ms: Number((latencies.at(-1) ?? NaN).toFixed(1)),
    healthz_after_ms: Number((performance.now() - healthStarted).toFixed(1)),
    loadavg_1m: Number(loadavg()[0]!.toFixed(2)),
    ...(await serverAckView()),
  };
  if (values.db === "postgres" && !withWorker) worker = start("build/worker.js");
  // Let the worker take the queue, then stop everything (the embedded database is the server's).
  await new Promise((r) => setTimeout(r, Number(values.drain) * 1000));
} finally {
  await stop(worker);
  await stop(server);
}
try {
  const check = await verify(acked);
  console.log(
    JSON.stringify({
      ...report,
      stored_once: check.missing === 0 && check.duplicated === 0,
      ...check,
    }),
  );
  if (check.missing > 0 || check.duplicated > 0 || check.notRun > 0) process.exitCode = 1;
} finally {
  await cleanup();
}
