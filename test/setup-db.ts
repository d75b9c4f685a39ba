/**
 * Gives each test file its own database, before any app module reads the configuration:
 * - default: an embedded PGlite in memory (the app's own embedded mode, started on first use);
 * - TEST_DATABASE_URL set: a fresh schema on that PostgreSQL server, migrated here, dropped
 *   after the file.
 */
import { randomBytes } from "node:crypto";
import { afterAll } from "vitest";

const serverUrl = process.env.TEST_DATABASE_URL;
let dropSchema: (() => Promise<void>) | undefined;

if (serverUrl) {
  // Imported here: pg and the migrations are not needed by a file on the embedded database.
  const { freshSchema } = await import("./helpers/pg");
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
  // Only a file that loaded the app's database module has a client (and, embedded, a PGlite)
  // to close: importing the module here would start one, seconds of work for a pure test file.
  if ((globalThis as { __prisma?: unknown }).__prisma) {
    const { closeDatabase } = await import("../app/db.server");
    await closeDatabase();
  }
  await dropSchema?.();
});
