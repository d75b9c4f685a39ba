/**
 * The embedded PostgreSQL: PGlite (Postgres compiled to WASM, in this process) served over
 * the Postgres wire protocol on a loopback port, so Prisma talks to it through the same pg
 * driver adapter it uses for a real server: one SQL dialect from laptop to cluster.
 *
 * The socket server interleaves wire messages when more than two clients are connected, so
 * it accepts at most two, and the app's Prisma pool holds exactly one connection. Everything
 * of the process (web, worker, session storage) shares that connection; Postgres' own
 * transaction semantics keep it correct, the pool queues the rest.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { applyMigrations, type Migration, readMigrations } from "./migrations.server";

export const MEMORY = "memory://";

export interface EmbeddedPostgres {
  /** A connection string for node-postgres (pool size must stay at 1). */
  url: string;
  pglite: PGlite;
  stop(): Promise<void>;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Two processes on one PGlite data folder would corrupt it; a lock file with the owner's pid
 * refuses the second one (a stale lock of a dead process is taken over).
 */
function takeLock(dataDir: string): () => void {
  const lockFile = `${resolve(dataDir)}.lock`;
  mkdirSync(dirname(lockFile), { recursive: true });
  try {
    const owner = Number(readFileSync(lockFile, "utf8"));
    if (owner && owner !== process.pid && isAlive(owner)) {
      throw new Error(
        `The embedded database in ${dataDir} is in use by process ${owner}. ` +
          "Stop it, or set DATABASE_URL to share a PostgreSQL server between processes.",
      );
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  writeFileSync(lockFile, String(process.pid));
  return () => rmSync(lockFile, { force: true });
}

export async function startEmbeddedPostgres(
  dataDir: string,
  migrations: Migration[] = readMigrations(),
): Promise<EmbeddedPostgres> {
  const inMemory = dataDir === MEMORY;
  const release = inMemory ? () => {} : takeLock(dataDir);
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  const pglite = inMemory ? new PGlite() : new PGlite(resolve(dataDir));
  await pglite.waitReady;
  // Migrate in-process, before any client can connect.
  await applyMigrations(pglite, migrations);
  const server = new PGLiteSocketServer({
    db: pglite,
    host: "127.0.0.1",
    port: 0,
    maxConnections: 2,
  });
  await server.start();
  const url = `postgresql://postgres@${server.getServerConn()}/postgres?sslmode=disable`;
  let stopped: Promise<void> | undefined;
  return {
    url,
    pglite,
    stop() {
      stopped ??= (async () => {
        await server.stop();
        await pglite.close();
        release();
      })();
      return stopped;
    },
  };
}
