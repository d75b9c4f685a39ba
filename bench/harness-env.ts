/**
 * The benches that drive the e2e harness in-process: a fresh schema on BENCH_DATABASE_URL
 * (default: the local server's `test` database), and the app's environment pointed at it. Call
 * before importing anything of the app (its configuration is read at import).
 */
import { randomBytes } from "node:crypto";
import { freshSchema } from "../test/helpers/pg";

/** The app's environment in a bench process (no secret of any real shop or service). */
export const BENCH_APP_ENV = {
  NODE_ENV: "test",
  SHOPIFY_API_KEY: "bench-api-key",
  SHOPIFY_API_SECRET: "test-api-secret",
  SHOPIFY_APP_URL: "https://app.test",
  ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
  LOG_LEVEL: "error",
} as const;

export async function benchSchema(prefix: string) {
  const server = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
  const fresh = await freshSchema(server, `${prefix}_${randomBytes(4).toString("hex")}`);
  Object.assign(process.env, { ...BENCH_APP_ENV, DATABASE_URL: fresh.url, DATABASE_POOL_MAX: "8" });
  return fresh;
}
