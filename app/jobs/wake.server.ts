/**
 * Wakes a worker when a job becomes available, instead of polling for it: a connection of its own
 * LISTENs on `job_available:<schema>`, which the Job table's trigger notifies at commit
 * (prisma/migrations/20261128150000_job_wake). A lost connection is opened again (after a
 * second, then up to 30 s apart) and wakes the worker once it is back, for what it may have
 * missed meanwhile. PostgreSQL servers only: the embedded database keeps the worker's short poll.
 */
import { type Listener, listen } from "../db/listen.server";

export type JobWake = Listener;

export interface JobWakeOptions {
  /**
   * Called on each notification with the job's due time (epoch ms, as the trigger sends it),
   * and with null once the connection is (again) up.
   */
  onWake: (dueAt: number | null) => void;
  /** Called when the connection comes up (true) or is lost (false). */
  onListening?: (up: boolean) => void;
  log?: (level: "warn" | "info", msg: string, data?: object) => void;
}

export function listenForJobs(databaseUrl: string, opts: JobWakeOptions): JobWake {
  return listen(databaseUrl, {
    channel: "job_available",
    lostMessage: "job wake-up connection lost; polling until it is back",
    log: opts.log,
    onNotify: (payload) => {
      const at = Number(payload);
      opts.onWake(payload && Number.isFinite(at) ? at : null);
    },
    onListening: (up) => {
      opts.onListening?.(up);
      // Whatever became available while no one listened.
      if (up) opts.onWake(null);
    },
  });
}
