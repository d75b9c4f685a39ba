/**
 * The production build end to end: `npm run build`'s two steps (remix build, then
 * scripts/build-server.mjs), then `node build/server.js` as `npm start` runs it (no tsx, no
 * NODE_ENV given), probed over HTTP; then SIGTERM. Every secret the run used is looked for in
 * everything the process wrote. With TEST_DATABASE_URL, the compiled worker runs too.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exited, waitForLine } from "../helpers/child";
import { freshSchema } from "../helpers/pg";
import { sendBig } from "./client";

const PORT = 3800 + Math.floor(Math.random() * 150);
const base = `http://127.0.0.1:${PORT}`;
const secret = () => randomBytes(24).toString("base64url");
const secrets = {
  apiSecret: secret(),
  encryptionKey: randomBytes(32).toString("base64"),
  webhookPath: secret(),
  idToken: `eyJ${secret()}`,
  hmac: secret(),
  bearer: secret(),
  sign: secret(),
};
const dir = mkdtempSync(join(tmpdir(), "prod-server-"));
let output = "";

function run(file: string, env: Record<string, string>): ChildProcess {
  const { NODE_ENV: _, ...inherited } = process.env;
  const child = spawn(process.execPath, [file], {
    env: { ...inherited, ...env } as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  return child;
}

const appEnv = {
  PORT: String(PORT),
  HOST: "127.0.0.1",
  SHOPIFY_API_KEY: "prod-test-key",
  SHOPIFY_API_SECRET: secrets.apiSecret,
  SHOPIFY_APP_URL: base,
  ENCRYPTION_KEY: secrets.encryptionKey,
  PGLITE_DATA_DIR: join(dir, "pglite"),
  LOG_LEVEL: "info",
};
let server: ChildProcess;

beforeAll(async () => {
  const node = process.execPath;
  execFileSync(node, ["node_modules/@remix-run/dev/dist/cli.js", "build"], { stdio: "ignore" });
  execFileSync(node, ["scripts/build-server.mjs"], { stdio: "ignore" });
  server = run("build/server.js", appEnv);
  await waitForLine(server, /"server listening"/, 60_000);
  // The embedded database starts on first use: wait until it answers.
  for (let i = 0; i < 120; i++) {
    if ((await fetch(`${base}/healthz`)).status === 200) return;
    await new Promise((r) => setTimeout(r, 500));
  }
}, 180_000);

afterAll(async () => {
  if (server.exitCode === null) server.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

describe("node build/server.js", () => {
  it("answers /healthz with a request id, in production mode", async () => {
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(output).not.toMatch(/NODE_ENV|Invalid configuration/);
  });

  it("refuses oversized bodies with 413 and unknown paths with 404", async () => {
    const svc = `${base}/webhooks/svc/${secrets.webhookPath}`;
    expect((await sendBig(svc, { bytes: 50 * 1024 * 1024, chunked: false })).status).toBe(413);
    const code = await fetch(`${base}/svc/auth/callback`, {
      method: "POST",
      body: "x".repeat(9000),
    });
    expect(code.status).toBe(413);
    expect((await fetch(`${base}/webhooks/svc/${secrets.webhookPath}/x`)).status).toBe(404);
  });

  it("logs requests with credentials redacted", async () => {
    const query = `id_token=${secrets.idToken}&hmac=${secrets.hmac}&shop=a.myshopify.com`;
    const svc = await fetch(`${base}/webhooks/svc/${secrets.webhookPath}?${query}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${secrets.bearer}`, sign: secrets.sign },
      body: JSON.stringify({ messageId: "m1", type: "LOGISTIC", params: {} }),
    });
    expect(svc.status).toBe(404); // no account has this secret
    await fetch(`${base}/app?${query}`, { headers: { Authorization: `Bearer ${secrets.bearer}` } });
    await new Promise((r) => setTimeout(r, 200));
    expect(output).toContain('"path":"/webhooks/svc/[redacted]?id_token=[redacted]');
  });

  it("drains and exits 0 on SIGTERM; nothing it wrote holds a secret", async () => {
    server.kill("SIGTERM");
    expect(await exited(server)).toBe(0);
    expect(output).toContain("HTTP server closed");
    for (const [name, value] of Object.entries(secrets)) {
      expect(output.includes(value), `${name} is in the output`).toBe(false);
    }
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)("node build/worker.js", () => {
  it("runs compiled against PostgreSQL and stops cleanly on SIGTERM", async () => {
    const db = await freshSchema(
      process.env.TEST_DATABASE_URL!,
      `worker_${randomBytes(4).toString("hex")}`,
    );
    try {
      const worker = run("build/worker.js", { ...appEnv, DATABASE_URL: db.url });
      await waitForLine(worker, /"job worker started"/, 60_000);
      worker.kill("SIGTERM");
      expect(await exited(worker)).toBe(0);
    } finally {
      await db.drop();
    }
  });
});
