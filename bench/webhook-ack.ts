/**
 * `npm run bench:ack`: the webhook acknowledgement under load. Builds nothing: run
 * `npm run build` first. Starts the production server (`remix-serve`), sends signed Shopify
 * order webhooks and service LOGISTIC webhooks at a fixed rate (open loop: requests go out on
 * schedule whether or not earlier ones have answered), and prints one JSON object with p50/p99.
 *
 *   npm run build && npm run bench:ack -- --rate 200 --seconds 10 [--db postgres]
 *
 * --db embedded (default): the server runs its own PGlite; only Shopify webhooks are sent.
 * --db postgres: a fresh schema on BENCH_DATABASE_URL; a service account is seeded so both
 *   kinds are sent.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { PrismaClient } from "@prisma/client";
import { pgAdapterFor } from "../app/db.server";
import { freshSchema } from "../test/helpers/pg";

const { values } = parseArgs({
  options: {
    rate: { type: "string", default: "200" },
    seconds: { type: "string", default: "10" },
    db: { type: "string", default: "embedded" },
    port: { type: "string", default: "3917" },
  },
});
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const port = Number(values.port);
const SECRET = "bench-api-secret";
const SHOP = "bench.myshopify.com";
const base = `http://127.0.0.1:${port}`;

const env: Record<string, string> = {
  ...(process.env as Record<string, string>),
  NODE_ENV: "production",
  PORT: String(port),
  SHOPIFY_API_KEY: "bench-key",
  SHOPIFY_API_SECRET: SECRET,
  SHOPIFY_APP_URL: base,
  ENCRYPTION_KEY: randomBytes(32).toString("base64"),
  LOG_LEVEL: "warn",
  WORKER_IN_PROCESS: "0",
};
let cleanup = async () => {};
let svcSecret: string | undefined;

if (values.db === "postgres") {
  const server = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
  const fresh = await freshSchema(server, `bench_${randomBytes(4).toString("hex")}`);
  env.DATABASE_URL = fresh.url;
  svcSecret = randomBytes(32).toString("base64url");
  const db = new PrismaClient({ adapter: pgAdapterFor(fresh.url, 1) });
  await db.svcAccount.create({
    data: {
      shopDomain: SHOP,
      baseUrl: "http://svc",
      authMethod: "apiKey",
      webhookSecret: svcSecret,
    },
  });
  await db.$disconnect();
  cleanup = fresh.drop;
} else {
  const dir = mkdtempSync(join(tmpdir(), "bench-ack-"));
  env.PGLITE_DATA_DIR = join(dir, "pglite");
  delete env.DATABASE_URL;
  cleanup = async () => rmSync(dir, { recursive: true, force: true });
}

async function waitHealthy(child: ChildProcess): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error("the server exited");
    try {
      if ((await fetch(`${base}/healthz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the server did not become healthy");
}

function shopifyRequest(i: number): [string, RequestInit] {
  const body = JSON.stringify({ id: i, email: `c${i}@example.com`, line_items: [{ id: i }] });
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
        "X-Shopify-Event-Id": randomUUID(),
        "X-Shopify-API-Version": "2026-10",
      },
    },
  ];
}

function svcRequest(i: number): [string, RequestInit] {
  const body = JSON.stringify({
    messageId: randomUUID(),
    type: "LOGISTIC",
    params: { orderId: `SO-${i}`, trackingNumber: `T${i}` },
  });
  return [
    `${base}/webhooks/svc/${svcSecret}`,
    { method: "POST", body, headers: { "Content-Type": "application/json" } },
  ];
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

const server: ChildProcess = spawn(
  process.execPath,
  // BENCH_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", to profile the server.
  [
    ...(process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
    "node_modules/@remix-run/serve/dist/cli.js",
    "build/index.js",
  ],
  { env: env as NodeJS.ProcessEnv, stdio: ["ignore", "ignore", "inherit"] },
);
try {
  await waitHealthy(server);
  // Warm up the routes and the database.
  for (let i = 0; i < 20; i++) await fetch(...shopifyRequest(-i));
  const total = rate * seconds;
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const start = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const [url, init] = svcSecret && i % 2 ? svcRequest(i) : shopifyRequest(i);
    const sent = performance.now();
    inflight.push(
      fetch(url, init)
        .then(async (res) => {
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        })
        .catch(() => {
          statuses.set(0, (statuses.get(0) ?? 0) + 1);
        })
        .finally(() => latencies.push(performance.now() - sent)),
    );
  }
  await Promise.all(inflight);
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      bench: "webhook-ack",
      database: values.db,
      kinds: svcSecret ? ["shopify", "svc"] : ["shopify"],
      target_rps: rate,
      achieved_rps: Math.round(total / elapsed),
      requests: total,
      statuses: Object.fromEntries(statuses),
      p50_ms: Number(percentile(latencies, 50).toFixed(1)),
      p99_ms: Number(percentile(latencies, 99).toFixed(1)),
      max_ms: Number((latencies.at(-1) ?? NaN).toFixed(1)),
    }),
  );
} finally {
  server.kill("SIGTERM");
  await new Promise((r) => server.once("exit", r));
  await cleanup();
}
