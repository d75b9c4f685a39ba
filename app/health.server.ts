/**
 * Health of this process for load balancers and orchestrators, and the start-up gate.
 *
 * - liveness (`/healthz`): the database answers a real query AND every migration of
 *   prisma/migrations is applied. A process whose database lacks tables is not healthy, even
 *   though `SELECT 1` works.
 * - readiness (`/readyz`): liveness AND the process is not draining (SIGTERM received: the
 *   balancer should stop sending new requests while in-flight ones finish).
 * - `refuseUnlessMigrated`: `npm start` and `npm run worker` call it first and exit with one
 *   line when the database lacks migrations, instead of crashing later on a missing table.
 *
 * Answers carry a plain reason, never a stack trace or the database URL.
 */
import type { PrismaClient } from "@prisma/client";
import { prisma } from "./db.server";
import { isDraining } from "./draining.server";
import { logger } from "./logger.server";
import {
  compareMigrations,
  describeGap,
  type Migration,
  readMigrations,
} from "./db/migrations.server";

const TIMEOUT_MS = 3000;
/** How long a migrations verdict is reused: readiness is polled every few seconds per instance. */
const MIGRATIONS_CACHE_MS = 5000;

type Db = Pick<PrismaClient, "$queryRaw">;

/**
 * How long the start-up gate waits for the first answer: the embedded database starts and
 * applies its migrations on the first query, which takes seconds on a loaded machine.
 */
const STARTUP_TIMEOUT_MS = 60_000;

function withTimeout<T>(work: Promise<T>, what: string, ms = TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Runs a real query against the database; "ok" or "unavailable", never a stack trace. */
export async function checkDatabase(db: Db = prisma): Promise<"ok" | "unavailable"> {
  try {
    const rows = await withTimeout(
      db.$queryRaw<{ ok: number }[]>`SELECT 1 AS ok`,
      "database health check",
    );
    return rows[0]?.ok === 1 ? "ok" : "unavailable";
  } catch (error) {
    logger.warn({ err: (error as Error).message }, "health check: database unavailable");
    return "unavailable";
  }
}

export type MigrationsVerdict =
  | { state: "ok" }
  | { state: "missing"; reason: string }
  | { state: "unavailable"; reason: string };

let folder: Migration[] | undefined;
/** The migrations folder, read once per process (it never changes under a running process). */
function folderMigrations(): Migration[] {
  return (folder ??= readMigrations());
}

let cache = new WeakMap<object, { at: number; verdict: MigrationsVerdict }>();

/** Drops the reused verdicts (after migrating from within the same process, and in tests). */
export function forgetMigrationsVerdict(): void {
  cache = new WeakMap();
}

/**
 * Whether every migration of the folder is applied, with the same checksum, in the schema the
 * connection uses. A verdict is reused for a few seconds (`maxAgeMs`), per client.
 */
export async function checkMigrations(
  db: Db = prisma,
  opts: { migrations?: Migration[]; maxAgeMs?: number } = {},
): Promise<MigrationsVerdict> {
  const maxAge = opts.maxAgeMs ?? MIGRATIONS_CACHE_MS;
  const hit = cache.get(db);
  if (hit && Date.now() - hit.at < maxAge) return hit.verdict;
  const verdict = await readVerdict(db, opts.migrations);
  if (verdict.state !== "unavailable") cache.set(db, { at: Date.now(), verdict });
  return verdict;
}

async function readVerdict(db: Db, given?: Migration[]): Promise<MigrationsVerdict> {
  let migrations: Migration[];
  try {
    migrations = given ?? folderMigrations();
  } catch {
    // Started from another working directory than the one holding prisma/migrations.
    return { state: "unavailable", reason: "no prisma/migrations folder in the working directory" };
  }
  try {
    const [table] = await withTimeout(
      db.$queryRaw<{ present: boolean }[]>`
        SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS present`,
      "migrations check",
    );
    const applied = table?.present
      ? await withTimeout(
          db.$queryRaw<{ migration_name: string; checksum: string }[]>`
            SELECT migration_name, checksum FROM "_prisma_migrations"
             WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
          "migrations check",
        )
      : [];
    const reason = describeGap(compareMigrations(applied, migrations));
    return reason ? { state: "missing", reason } : { state: "ok" };
  } catch (error) {
    logger.warn({ err: (error as Error).message }, "health check: migrations unreadable");
    return { state: "unavailable", reason: "the migrations table is unreadable" };
  }
}

export interface HealthReport {
  ok: boolean;
  body: {
    db: "ok" | "unavailable";
    migrations?: "ok" | "missing" | "unknown";
    draining?: boolean;
    reason?: string;
  };
}

/** Liveness: the database answers and has every migration. */
export async function liveness(db: Db = prisma): Promise<HealthReport> {
  const dbState = await checkDatabase(db);
  if (dbState !== "ok") {
    return { ok: false, body: { db: dbState, reason: "the database does not answer" } };
  }
  const migrations = await checkMigrations(db);
  if (migrations.state === "ok") return { ok: true, body: { db: "ok", migrations: "ok" } };
  if (migrations.state === "missing") {
    return {
      ok: false,
      body: { db: "ok", migrations: "missing", reason: `database ${migrations.reason}` },
    };
  }
  return {
    ok: false,
    body: { db: "ok", migrations: "unknown", reason: migrations.reason },
  };
}

/** Readiness: liveness, and this process is not draining. */
export async function readiness(db: Db = prisma, draining = isDraining()): Promise<HealthReport> {
  const live = await liveness(db);
  if (draining) {
    return { ok: false, body: { ...live.body, draining: true, reason: "shutting down" } };
  }
  return { ok: live.ok, body: { ...live.body, draining: false } };
}

/** The JSON answer of a health route: 200 or 503, never cached. */
export function healthResponse(report: HealthReport): Response {
  return Response.json(report.body, {
    status: report.ok ? 200 : 503,
    headers: { "Cache-Control": "no-store" },
  });
}

/**
 * The start-up gate of `npm start` and `npm run worker`: returns when the database has every
 * migration; otherwise prints one line to stderr and exits with status 1 (a database that does
 * not answer exits too: the platform restarts the process once it does).
 */
export async function refuseUnlessMigrated(
  what: string,
  db: Db = prisma,
  exit: (code: number) => never = process.exit,
): Promise<void> {
  // The first query may start the database (embedded: and migrate it): give it its time, so
  // that the health checks' short time-out below is not taken for a missing database.
  await withTimeout(db.$queryRaw`SELECT 1`, "database start", STARTUP_TIMEOUT_MS).catch(
    () => undefined,
  );
  const report = await liveness(db);
  if (report.ok) return;
  const hint = report.body.migrations === "missing" ? "; run `npm run db:migrate` first" : "";
  console.error(`${what} refuses to start: ${report.body.reason ?? "database not ready"}${hint}`);
  exit(1);
}
