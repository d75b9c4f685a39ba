/**
 * One orderly shutdown on SIGTERM/SIGINT: the HTTP server drains (readiness "not ready", no new
 * connections, in-flight requests answered), the worker stops (finishing or releasing its jobs),
 * the database closes, then the process exits 0. A second signal, or the deadline
 * (SHUTDOWN_TIMEOUT_MS), forces exit 1 at once.
 */
import { config } from "./config.server";

type Step = { name: string; order: number; run: () => Promise<void> };

const steps: Step[] = [];
let installed = false;
let shuttingDown = false;

/** Registers a step; lower `order` runs first (http 5, workers 10, database 90). */
export function onShutdown(name: string, order: number, run: () => Promise<void>): void {
  steps.push({ name, order, run });
  if (installed) return;
  installed = true;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (shuttingDown) {
        console.error(`${signal} again: exiting without finishing the shutdown`);
        process.exit(1);
      }
      shuttingDown = true;
      const deadline = setTimeout(() => {
        console.error(`shutdown took over ${config.SHUTDOWN_TIMEOUT_MS} ms: exiting anyway`);
        process.exit(1);
      }, config.SHUTDOWN_TIMEOUT_MS);
      deadline.unref();
      void runShutdown().finally(() => process.exit(0));
    });
  }
}

/** Whether a shutdown has started (a signal was received). */
export function isShuttingDown(): boolean {
  return shuttingDown;
}

export async function runShutdown(): Promise<void> {
  for (const step of [...steps].sort((a, b) => a.order - b.order)) {
    try {
      await step.run();
    } catch (error) {
      console.error(`shutdown step ${step.name} failed: ${(error as Error).message}`);
    }
  }
}
