/**
 * Gives each test file its own database, before any app module reads the configuration:
 * - default: an embedded PGlite in memory (the app's own embedded mode, started on first use);
 * - TEST_DATABASE_URL set: a fresh schema on that PostgreSQL server, migrated here, dropped
 *   after the file.
 */
import { randomBytes } from "node:crypto";
import { afterAll } from "vitest";
import { applyMigrations } from "../app/db/migrations.server";
import { pgRunner, withPgClient } from "./helpers/pg";

const serverUrl = process.env.TEST_DATABASE_URL;
let schema: string | undefined;

if (serverUrl) {
  schema = `test_${process.pid}_${randomBytes(4).toString("hex")}`;
  await withPgClient(serverUrl, async (client) => {
    await client.query(`CREATE SCHEMA "${schema}"`);
    await client.query(`SET search_path TO "${schema}"`);
    await applyMigrations(pgRunner(client));
  });
  const url = new URL(serverUrl);
  url.searchParams.set("schema", schema);
  process.env.DATABASE_URL = url.toString();
  process.env.DATABASE_POOL_MAX = "4";
} else {
  delete process.env.DATABASE_URL;
  process.env.PGLITE_DATA_DIR = "memory://";
}

afterAll(async () => {
  const { closeDatabase } = await import("../app/db.server");
  await closeDatabase();
  if (serverUrl && schema) {
    await withPgClient(serverUrl, (c) => c.query(`DROP SCHEMA "${schema}" CASCADE`));
  }
});
