/**
 * Applies the SQL migrations of `prisma/migrations` in order, recording them in Prisma's own
 * `_prisma_migrations` table (same columns, same sha256 checksum), so that `prisma migrate
 * deploy` and this migrator agree on what has been applied. Used at start by the embedded
 * database and by the tests (Prisma's CLI lingers ~10 s after its work, too slow per test file).
 */
import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";

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
