/**
 * `npm run bench:edges`: the compiled server (`node build/server.js`, embedded database) under a
 * storm of oversized bodies to unauthenticated routes, as the hostile probe sent them: N
 * concurrent 50 MB bodies (half declared with Content-Length, half chunked) to the Shopify and
 * service webhook routes, the code receiver and a random path, while /healthz is polled. Prints
 * one JSON object: every status the storm got, /healthz latency (p50, max) during the storm,
 * and the server process's RSS (from /proc) before and at its peak.
 *
 *   npm run build && npm run bench:edges [-- --bodies 16 --mb 50]
 *
 * Goals (issue 13): all 413, /healthz under 100 ms, RSS growth under 50 MB.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { sendBig } from "../test/server/client";

const { values } = parseArgs({
  options: {
    bodies: { type: "string", default: "16" },
    mb: { type: "string", default: "50" },
    port: { type: "string", default: "3918" },
  },
});
const bodies = Number(values.bodies);
const bytes = Number(values.mb) * 1024 * 1024;
const base = `http://127.0.0.1:${values.port}`;
const dir = mkdtempSync(join(tmpdir(), "bench-edges-"));

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"));
  return Number(/(\d+)/.exec(line ?? "")?.[1] ?? 0) / 1024;
}

async function healthMs(): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${base}/healthz`);
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`);
  return performance.now() - t0;
}

const server: ChildProcess = spawn(process.execPath, ["build/server.js"], {
  env: {
    ...process.env,
    NODE_ENV: "production",
    PORT: values.port,
    HOST: "127.0.0.1",
    SHOPIFY_API_KEY: "bench-key",
    SHOPIFY_API_SECRET: randomBytes(16).toString("hex"),
    SHOPIFY_APP_URL: base,
    ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    PGLITE_DATA_DIR: join(dir, "pglite"),
    LOG_LEVEL: "warn",
    DATABASE_URL: "",
  },
  stdio: ["ignore", "ignore", "inherit"],
});

try {
  for (let i = 0; ; i++) {
    if (server.exitCode !== null) throw new Error("the server exited");
    if (i > 600) throw new Error("the server did not become healthy");
    const ok = await healthMs().then(
      () => true,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  // Warm: a few health checks so the baseline is the steady state, not the start.
  for (let i = 0; i < 20; i++) await healthMs();
  const pid = server.pid!;
  const rssBefore = rssMb(pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(pid))), 20);

  const targets = [
    "/webhooks/orders/create",
    `/webhooks/svc/${randomBytes(32).toString("base64url")}`,
    "/svc/auth/callback",
    `/${randomBytes(6).toString("hex")}`,
  ];
  let storming = true;
  const storm = Promise.all(
    Array.from({ length: bodies }, (_, i) =>
      sendBig(`${base}${targets[i % targets.length]}`, { bytes, chunked: i % 2 === 1 }),
    ),
  ).finally(() => (storming = false));
  const health: number[] = [];
  while (storming || health.length < 10) {
    health.push(await healthMs());
    await new Promise((r) => setTimeout(r, 10));
  }
  const outcomes = await storm;
  clearInterval(sampler);
  health.sort((a, b) => a - b);
  const statuses: Record<string, number> = {};
  for (const o of outcomes) statuses[o.status] = (statuses[o.status] ?? 0) + 1;
  console.log(
    JSON.stringify({
      bodies,
      mb_each: Number(values.mb),
      statuses,
      health_checks: health.length,
      health_p50_ms: Number(health[Math.floor(health.length / 2)]!.toFixed(1)),
      health_max_ms: Number(health[health.length - 1]!.toFixed(1)),
      rss_before_mb: Number(rssBefore.toFixed(1)),
      rss_peak_mb: Number(rssPeak.toFixed(1)),
      rss_growth_mb: Number((rssPeak - rssBefore).toFixed(1)),
    }),
  );
} finally {
  server.kill("SIGTERM");
  await new Promise((r) => server.once("exit", r));
  rmSync(dir, { recursive: true, force: true });
}
