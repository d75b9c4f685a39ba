/** Starts a worker with the app's handlers; used by the web process and by `npm run worker`. */
import { config } from "../config.server";
import { prisma } from "../db.server";
import { logger } from "../logger.server";
import { startMetricsServer } from "../metrics.server";
import { registerJobKinds } from "../metrics/registry.server";
import { onShutdown } from "../shutdown.server";
import { listenForJobs } from "../jobs/wake.server";
import { rowCachesStarted, startRowCaches } from "../db/row-cache.server";
import { handlers, recurringJobs } from "./registry.server";
import { Worker } from "./worker.server";

// The queue gauges report these kinds by name (others as "other"), in every process that
// loads the app, a web process without a worker of its own included.
registerJobKinds(Object.keys(handlers));

/**
 * Starts a worker. A standalone worker process (`npm run worker`, the default) also starts the
 * metrics listener when METRICS_PORT is set: it has no HTTP server of its own to scrape.
 */
export function startWorker(opts: { concurrency?: number; standalone?: boolean } = {}): Worker {
  const worker = new Worker({
    prisma,
    handlers,
    recurring: recurringJobs,
    concurrency: opts.concurrency ?? config.WORKER_CONCURRENCY,
    log: (level, msg, data) => logger[level]({ ...data, worker: worker.id }, msg),
  });
  worker.start();
  startRowCachesIfConfigured();
  // On a PostgreSQL server new jobs wake the worker (LISTEN/NOTIFY); the embedded database
  // keeps the short poll.
  const wake = config.DATABASE_URL
    ? listenForJobs(config.DATABASE_URL, {
        onWake: (dueAt) => worker.nudge(dueAt),
        onListening: (up) => worker.setListening(up),
        log: (level, msg, data) => logger[level]({ ...data, worker: worker.id }, msg),
      })
    : undefined;
  onShutdown("worker", 10, async () => {
    await wake?.close();
    await worker.stop(20_000);
  });
  logger.info({ worker: worker.id }, "job worker started");
  if (opts.standalone ?? true) {
    startMetricsServer()?.catch((error: unknown) => {
      // A port in use must not go unnoticed, but the jobs matter more than their metrics.
      logger.error(
        { err: error instanceof Error ? error.message : String(error), port: config.METRICS_PORT },
        "metrics listener could not start",
      );
    });
  }
  return worker;
}

const globalForWorker = globalThis as unknown as { __worker?: Worker };

/** In the embedded mode the web process is also the worker (one process owns the database). */
export function startInProcessWorkerIfConfigured(): void {
  if (config.NODE_ENV === "test" || !config.WORKER_IN_PROCESS) return;
  globalForWorker.__worker ??= startWorker({ standalone: false });
}

/**
 * Starts this process's row change feed on a PostgreSQL server (DATABASE_URL set), once, and
 * stops it at shutdown (app/db/row-cache.server.ts). The embedded database has a single process
 * and no feed: its reads all go to the database.
 */
export function startRowCachesIfConfigured(): void {
  // Tests start it themselves where they mean to (test/db/row-cache.test.ts).
  if (config.NODE_ENV === "test" || !config.DATABASE_URL || rowCachesStarted()) return;
  const feed = startRowCaches(config.DATABASE_URL, (level, msg, data) =>
    logger[level]({ ...data }, msg),
  );
  onShutdown("row caches", 80, () => feed.close());
}
