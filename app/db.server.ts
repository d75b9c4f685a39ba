/**
 * One PrismaClient per process.
 *
 * - `DATABASE_URL` set: that PostgreSQL server, through the pg driver adapter with a pool of
 *   `DATABASE_POOL_MAX` connections. Migrations are a deploy step (`npm run db:migrate`).
 * - `DATABASE_URL` unset: an embedded PGlite with its data in `PGLITE_DATA_DIR`
 *   (`memory://` keeps it in memory), started on first use, migrated before the first query,
 *   and reached through a pool of exactly one connection (see app/db/embedded.server.ts).
 *   After the schema migrations, the secrets migration runs too (app/db/secrets-migration).
 *
 * A `?schema=NAME` on the URL selects a schema (the tests give each file its own).
 */
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@prisma/client";
import type pg from "pg";
import { config } from "./config.server";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "./db/embedded.server";
import { type SecretsMigrationResult, migrateSecrets } from "./db/secrets-migration.server";
import { logger } from "./logger.server";
import { onShutdown } from "./shutdown.server";

type AdapterFactory = NonNullable<ConstructorParameters<typeof PrismaClient>[0]>["adapter"] &
  object;

/** Builds the pg adapter for a connection string, honouring a `schema` query parameter. */
export function pgAdapterFor(url: string, poolMax: number): PrismaPg {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get("schema") ?? undefined;
  parsed.searchParams.delete("schema");
  const poolConfig: pg.PoolConfig = {
    connectionString: parsed.toString(),
    max: poolMax,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
  };
  if (schema) {
    if (!/^[a-z_][a-z0-9_]*$/i.test(schema)) throw new Error("Invalid schema name in the URL");
    poolConfig.options = `-c search_path="${schema}"`;
  }
  return new PrismaPg(poolConfig, schema ? { schema } : undefined);
}

let embedded: Promise<EmbeddedPostgres> | undefined;
let startSecrets: Promise<SecretsMigrationResult> | undefined;

/** The embedded database's secrets migration at start (undefined on a PostgreSQL server). */
export function secretsMigratedAtStart(): Promise<SecretsMigrationResult> | undefined {
  return startSecrets;
}

/**
 * Encrypts what is still clear and re-encrypts what is under an old key, through a client of
 * its own that is closed before the app's one connection opens.
 */
async function migrateSecretsAtStart(db: EmbeddedPostgres): Promise<EmbeddedPostgres> {
  const client = new PrismaClient({ adapter: pgAdapterFor(db.url, 1) });
  try {
    startSecrets = migrateSecrets(client, {
      log: (level, msg, data) => logger[level]({ source: "secrets-migration", ...data }, msg),
    });
    await startSecrets;
  } catch (error) {
    await client.$disconnect();
    await db.stop();
    throw error;
  }
  await client.$disconnect();
  return db;
}

/** The embedded database of this process, started on first call. */
export function embeddedDatabase(): Promise<EmbeddedPostgres> {
  if (!embedded) {
    embedded = startEmbeddedPostgres(config.PGLITE_DATA_DIR).then(migrateSecretsAtStart);
    if (config.NODE_ENV !== "test") {
      // PGlite writes its files as it goes, but a clean close is what guarantees the last
      // transactions are on disk and the folder's lock is released.
      onShutdown("database", 90, closeDatabase);
    }
  }
  return embedded;
}

/**
 * An adapter factory that starts the embedded database on the first connection, so importing
 * this module never blocks and a failed start surfaces as a query error, not a crash at import.
 */
function embeddedAdapter(): AdapterFactory {
  let inner: Promise<PrismaPg> | undefined;
  return {
    provider: "postgres",
    adapterName: "@prisma/adapter-pg",
    async connect() {
      inner ??= embeddedDatabase().then(({ url }) => pgAdapterFor(url, 1));
      return (await inner).connect();
    },
  };
}

function createClient(): PrismaClient {
  const adapter = config.DATABASE_URL
    ? pgAdapterFor(config.DATABASE_URL, config.DATABASE_POOL_MAX)
    : embeddedAdapter();
  return new PrismaClient({ adapter });
}

// Remix's dev server re-imports modules on change; keep one client per process.
const globalForPrisma = globalThis as unknown as { __prisma?: PrismaClient };
export const prisma: PrismaClient = (globalForPrisma.__prisma ??= createClient());

/** Closes the client and, in the embedded mode, flushes and closes PGlite. */
export async function closeDatabase(): Promise<void> {
  await prisma.$disconnect();
  if (embedded) await (await embedded).stop();
}

export default prisma;
