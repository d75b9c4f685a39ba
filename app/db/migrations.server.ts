/**
 * Applies the SQL migrations of `prisma/migrations` in order, recording them in Prisma's own
 * `_prisma_migrations` table (same columns, same sha256 checksum), so that Prisma's tools and
 * this migrator agree on what has been applied. Used at start by the embedded database, by
 * `npm run db:migrate` (scripts/migrate.ts, through `migrateDatabase`), and by the tests.
 *
 * Why not `prisma migrate deploy`: with the JS engine and the pg adapter it ignores `?schema=`
 * (it migrates `public` whatever the URL says) and splits scripts at a `;` inside a comment.
 * This migrator sends each migration whole, in one transaction, to the schema the URL names.
 */
import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";
import pg from "pg";

/** The two things the migrator needs from a connection (PGlite and node-postgres both fit). */
export interface SqlRunner {
  /** Runs one or more statements without parameters. */
  exec(sql: string): Promise<unknown>;
  /** Runs one parameterised statement and returns its rows. */
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export const MIGRATIONS_DIR = resolve("prisma/migrations");

export function readMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  if (!existsSync(dir)) throw new Error(`No migrations folder at ${dir}`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/** The advisory lock key Prisma Migrate itself takes, so the two never run at once. */
const LOCK_KEY = 72707369;

/**
 * Applies every migration not yet recorded. Returns the names it applied. Refuses to go on
 * when an applied migration's file has changed since (the checksums differ).
 */
export async function applyMigrations(
  db: SqlRunner,
  migrations: Migration[] = readMigrations(),
): Promise<string[]> {
  await db.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
  try {
    await db.exec(CREATE_TABLE);
    const { rows } = await db.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations"
        WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const applied = new Map(rows.map((r) => [r.migration_name, r.checksum]));
    const done: string[] = [];
    for (const m of migrations) {
      const seen = applied.get(m.name);
      if (seen !== undefined) {
        if (seen !== m.checksum) {
          throw new Error(`Migration ${m.name} was changed after it was applied`);
        }
        continue;
      }
      await db.exec("BEGIN");
      try {
        await db.exec(m.sql);
        await db.query(
          `INSERT INTO "_prisma_migrations"
             (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), m.checksum, m.name],
        );
        await db.exec("COMMIT");
      } catch (error) {
        await db.exec("ROLLBACK");
        throw new Error(`Migration ${m.name} failed: ${(error as Error).message}`, {
          cause: error,
        });
      }
      done.push(m.name);
    }
    return done;
  } finally {
    await db.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]);
  }
}

/** What the database lacks compared with the migrations folder. */
export interface MigrationGap {
  /** In the folder, not (successfully) applied. */
  pending: string[];
  /** Applied, but the file has changed since (checksums differ). */
  changed: string[];
}

/**
 * Compares the applied migrations (rows of `_prisma_migrations` that finished and were not
 * rolled back) with the folder. Migrations the database has and the folder does not are fine:
 * a database one release ahead still serves the code of the release before.
 */
export function compareMigrations(
  applied: { migration_name: string; checksum: string }[],
  migrations: Migration[],
): MigrationGap {
  const byName = new Map(applied.map((r) => [r.migration_name, r.checksum]));
  const gap: MigrationGap = { pending: [], changed: [] };
  for (const m of migrations) {
    const seen = byName.get(m.name);
    if (seen === undefined) gap.pending.push(m.name);
    else if (seen !== m.checksum) gap.changed.push(m.name);
  }
  return gap;
}

/** One plain sentence for a gap, or null when there is none. Never names the server. */
export function describeGap(gap: MigrationGap): string | null {
  const parts: string[] = [];
  const list = (names: string[]) =>
    names.slice(0, 3).join(", ") + (names.length > 3 ? ` and ${names.length - 3} more` : "");
  if (gap.pending.length > 0) {
    parts.push(`${gap.pending.length} migration(s) not applied (${list(gap.pending)})`);
  }
  if (gap.changed.length > 0) {
    parts.push(`${gap.changed.length} migration(s) changed since applied (${list(gap.changed)})`);
  }
  return parts.length > 0 ? parts.join("; ") : null;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/i;

/**
 * Splits the app's `?schema=NAME` convention off a PostgreSQL URL (node-postgres ignores the
 * parameter; Prisma's URLs use it). Refuses a schema name that is not a plain identifier.
 */
export function splitSchema(url: string): { connectionString: string; schema?: string } {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get("schema") ?? undefined;
  parsed.searchParams.delete("schema");
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new Error("Invalid schema name in the URL (letters, digits and _ only)");
  }
  return { connectionString: parsed.toString(), schema };
}

/**
 * `npm run db:migrate`: connects to the URL's server, creates the URL's schema if it is missing
 * and applies the pending migrations there (without `?schema=`: the server's default search
 * path, as the app itself uses). Returns the schema and the migrations it applied.
 */
export async function migrateDatabase(
  url: string,
  migrations: Migration[] = readMigrations(),
): Promise<{ schema: string; applied: string[] }> {
  const { connectionString, schema } = splitSchema(url);
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    if (schema) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      await client.query(`SET search_path TO "${schema}"`);
    }
    const runner: SqlRunner = {
      exec: (sql) => client.query(sql),
      query: async <T>(sql: string, params?: unknown[]) => ({
        rows: (await client.query(sql, params)).rows as T[],
      }),
    };
    const applied = await applyMigrations(runner, migrations);
    const current = await client.query<{ s: string }>("SELECT current_schema() AS s");
    return { schema: current.rows[0]?.s ?? schema ?? "public", applied };
  } finally {
    await client.end();
  }
}
