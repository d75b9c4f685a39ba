/** Starts a worker with the app's handlers; used by the web process and by `npm run worker`. */
import { config } from "../config.server";
import { prisma } from "../db.server";
import { logger } from "../logger.server";
import { onShutdown } from "../shutdown.server";
import { handlers, recurringJobs } from "./handlers.server";
import { Worker } from "./worker.server";

export function startWorker(opts: { concurrency?: number } = {}): Worker {
  const worker = new Worker({
    prisma,
    handlers,
    recurring: recurringJobs,
    concurrency: opts.concurrency ?? config.WORKER_CONCURRENCY,
    log: (level, msg, data) => logger[level]({ ...data, worker: worker.id }, msg),
  });
  worker.start();
  onShutdown("worker", 10, () => worker.stop(20_000));
  logger.info({ worker: worker.id }, "job worker started");
  return worker;
}

const globalForWorker = globalThis as unknown as { __worker?: Worker };

/** In the embedded mode the web process is also the worker (one process owns the database). */
export function startInProcessWorkerIfConfigured(): void {
  if (config.NODE_ENV === "test" || !config.WORKER_IN_PROCESS) return;
  globalForWorker.__worker ??= startWorker();
}
