/**
 * Gives each test file its own database, before any app module reads the configuration:
 * - default: an embedded PGlite in memory (the app's own embedded mode, started on first use);
 * - TEST_DATABASE_URL set: a fresh schema on that PostgreSQL server, migrated here, dropped
 *   after the file.
 */
import { randomBytes } from "node:crypto";
import { afterAll } from "vitest";
import { freshSchema } from "./helpers/pg";

const serverUrl = process.env.TEST_DATABASE_URL;
let dropSchema: (() => Promise<void>) | undefined;

if (serverUrl) {
  const fresh = await freshSchema(
    serverUrl,
    `test_${process.pid}_${randomBytes(4).toString("hex")}`,
  );
  dropSchema = fresh.drop;
  process.env.DATABASE_URL = fresh.url;
  process.env.DATABASE_POOL_MAX = "4";
} else {
  delete process.env.DATABASE_URL;
  process.env.PGLITE_DATA_DIR = "memory://";
}

afterAll(async () => {
  const { closeDatabase } = await import("../app/db.server");
  await closeDatabase();
  await dropSchema?.();
});
