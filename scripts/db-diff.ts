/**
 * `npm run db:diff -- <name>`: writes prisma/migrations/<timestamp>_<name>/migration.sql with
 * the SQL that takes a database from the last migration to prisma/schema.prisma.
 *
 * The schema as of the last migration is kept in prisma/migrations/schema.snapshot.prisma
 * (Prisma's introspection cannot read PGlite's catalogs, and with a driver adapter it cannot
 * diff from a migrations folder). Prisma's JS schema engine needs a live connection even for a
 * datamodel-to-datamodel diff: an in-memory PGlite serves it, so no server is needed.
 */
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { MEMORY, startEmbeddedPostgres } from "../app/db/embedded.server";
import { MIGRATIONS_DIR } from "../app/db/migrations.server";

const SNAPSHOT = join(MIGRATIONS_DIR, "schema.snapshot.prisma");
const name = (process.argv[2] ?? "").replace(/[^a-z0-9_]/gi, "_").toLowerCase();
if (!name) {
  console.error("Usage: npm run db:diff -- <migration_name>");
  process.exit(2);
}

const db = await startEmbeddedPostgres(MEMORY);
try {
  // Asynchronous on purpose: the embedded database answers from this process's event loop.
  const { stdout: sql } = await promisify(execFile)(
    "npx",
    [
      "prisma",
      "migrate",
      "diff",
      ...(existsSync(SNAPSHOT) ? ["--from-schema-datamodel", SNAPSHOT] : ["--from-empty"]),
      "--to-schema-datamodel",
      "prisma/schema.prisma",
      "--script",
    ],
    { env: { ...process.env, DATABASE_URL: db.url }, encoding: "utf8" },
  );
  if (/^\s*(-- This is an empty migration\.)?\s*$/.test(sql)) {
    console.log("The schema matches the migrations: nothing to write.");
  } else {
    const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
    const dir = join(MIGRATIONS_DIR, `${stamp}_${name}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "migration.sql"), sql);
    copyFileSync("prisma/schema.prisma", SNAPSHOT);
    console.log(`Wrote ${join(dir, "migration.sql")}`);
  }
} finally {
  await db.stop();
}
