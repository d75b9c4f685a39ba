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
 * Goals (issue 13): all 413 (404 for the service webhook's unknown secret, answered before a
 * byte is read), /healthz under 100 ms, RSS growth under 50 MB.
 *
 * Then the authenticated case (issue 37): `--uploads` concurrent dispute posts of one
 * `--upload-mb` file each (half chunked) to /app/disputes/new, each with a session token of
 * an installed shop (signed with the server's secret; its offline session seeded before the
 * server starts, so nothing leaves the machine). Each read stops at the file's 10 MB (or is
 * turned away past four at a time); the JSON gains their statuses, the RSS growth and what the
 * page answered one more such post (read whole: the refusal that names the file).
 * Goal: none buffered whole (RSS growth under 150 MB for 16 × 60 MB, where buffering would
 * take 960 MB).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { PrismaClient } from "@prisma/client";
import { PrismaPg } from "@prisma/adapter-pg";
import { startEmbeddedPostgres } from "../app/db/embedded.server";
import { sendBig } from "../test/server/client";
import { signJwtHs256 } from "../test/sim/shop/oauth";

const { values } = parseArgs({
  options: {
    bodies: { type: "string", default: "16" },
    mb: { type: "string", default: "50" },
    port: { type: "string", default: "3918" },
    uploads: { type: "string", default: "16" },
    "upload-mb": { type: "string", default: "60" },
  },
});
const bodies = Number(values.bodies);
const bytes = Number(values.mb) * 1024 * 1024;
const base = `http://127.0.0.1:${values.port}`;
const dir = mkdtempSync(join(tmpdir(), "bench-edges-"));
const API_KEY = "bench-key";
const API_SECRET = randomBytes(16).toString("hex");
const SHOP = "bench-edges.myshopify.com";
const MB = 1024 * 1024;
/** The admin's browser (Shopify's library answers a bot's user agent 410). */
const BROWSER =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15";
const encryptionKey = randomBytes(32).toString("base64");
process.env.ENCRYPTION_KEY = encryptionKey; // the seeded token is sealed with the server's key

/** An installed shop with its offline session, in the server's data directory before it starts. */
async function seedShop(dataDir: string) {
  const { sealToken } = await import("../app/shop/session-crypto.server");
  const pg = await startEmbeddedPostgres(dataDir);
  const db = new PrismaClient({ adapter: new PrismaPg({ connectionString: pg.url, max: 1 }) });
  try {
    await db.shop.create({ data: { domain: SHOP } });
    await db.session.create({
      data: {
        id: `offline_${SHOP}`,
        shop: SHOP,
        state: "bench",
        isOnline: false,
        scope: "read_orders",
        accessToken: sealToken(`bench-token-${randomBytes(8).toString("hex")}`),
      },
    });
  } finally {
    await db.$disconnect();
    await pg.stop();
  }
}

/** A session token as Shopify's admin signs it for the app (App Bridge). */
function sessionToken(): string {
  const now = Math.floor(Date.now() / 1000);
  return signJwtHs256(
    {
      iss: `https://${SHOP}/admin`,
      dest: `https://${SHOP}`,
      aud: API_KEY,
      sub: "1",
      exp: now + 60,
      nbf: now,
      iat: now,
      jti: randomBytes(12).toString("hex"),
      sid: randomBytes(12).toString("hex"),
    },
    API_SECRET,
  );
}

await seedShop(join(dir, "pglite"));

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
    SHOPIFY_API_KEY: API_KEY,
    SHOPIFY_API_SECRET: API_SECRET,
    SHOPIFY_APP_URL: base,
    ENCRYPTION_KEY: encryptionKey,
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

  // The authenticated dispute uploads, after the storm has settled.
  await new Promise((r) => setTimeout(r, 2000));
  const uploadRssBefore = rssMb(pid);
  let uploadRssPeak = uploadRssBefore;
  const uploadSampler = setInterval(
    () => (uploadRssPeak = Math.max(uploadRssPeak, rssMb(pid))),
    20,
  );
  const boundary = "----bench-dispute";
  const uploads = await Promise.all(
    Array.from({ length: Number(values.uploads) }, (_, i) =>
      sendBig(`${base}/app/disputes/new?order=bench&_data=routes%2Fapp.disputes.new`, {
        bytes: Number(values["upload-mb"]) * MB,
        chunked: i % 2 === 1,
        headers: {
          "content-type": `multipart/form-data; boundary=${boundary}`,
          authorization: `Bearer ${sessionToken()}`,
          "user-agent": BROWSER,
        },
        prefix: Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="big-${i}.png"\r\nContent-Type: image/png\r\n\r\n`,
        ),
      }),
    ),
  );
  clearInterval(uploadSampler);
  // One more, read whole: what the page answers (the refusal names the file and its limit).
  const answer = await fetch(
    `${base}/app/disputes/new?order=bench&_data=routes%2Fapp.disputes.new`,
    {
      method: "POST",
      headers: {
        "content-type": `multipart/form-data; boundary=${boundary}`,
        authorization: `Bearer ${sessionToken()}`,
        "user-agent": BROWSER,
      },
      body: Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="answer.png"\r\nContent-Type: image/png\r\n\r\n`,
        ),
        Buffer.alloc(12 * MB, 1),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
    },
  );
  const uploadAnswer = `${answer.status} ${(await answer.text()).slice(0, 200)}`;
  const uploadStatuses: Record<string, number> = {};
  for (const o of uploads) uploadStatuses[o.status] = (uploadStatuses[o.status] ?? 0) + 1;
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
      uploads: Number(values.uploads),
      upload_mb_each: Number(values["upload-mb"]),
      upload_statuses: uploadStatuses,
      upload_rss_before_mb: Number(uploadRssBefore.toFixed(1)),
      upload_rss_peak_mb: Number(uploadRssPeak.toFixed(1)),
      upload_rss_growth_mb: Number((uploadRssPeak - uploadRssBefore).toFixed(1)),
      upload_answer: uploadAnswer,
    }),
  );
} finally {
  server.kill("SIGTERM");
  await new Promise((r) => server.once("exit", r));
  rmSync(dir, { recursive: true, force: true });
}
