/**
 * One orderly shutdown on SIGTERM/SIGINT: the worker stops (finishing or releasing its jobs)
 * before the database closes, then the process exits.
 */
type Step = { name: string; order: number; run: () => Promise<void> };

const steps: Step[] = [];
let installed = false;
let shuttingDown = false;

/** Registers a step; lower `order` runs first (workers 10, servers 20, database 90). */
export function onShutdown(name: string, order: number, run: () => Promise<void>): void {
  steps.push({ name, order, run });
  if (installed) return;
  installed = true;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (shuttingDown) return;
      shuttingDown = true;
      void runShutdown().finally(() => process.exit(0));
    });
  }
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
