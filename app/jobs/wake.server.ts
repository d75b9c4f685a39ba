/**
 * Wakes a worker when a job becomes available, instead of polling for it: a connection of its own
 * LISTENs on `job_available:<schema>`, which the Job table's trigger notifies at commit
 * (prisma/migrations/20261128150000_job_wake). A lost connection is opened again (after a
 * second, then up to 30 s apart) and wakes the worker once it is back, for what it may have
 * missed meanwhile. PostgreSQL servers only: the embedded database keeps the worker's short poll.
 */
import pg from "pg";
import { splitSchema } from "../db/migrations.server";

export interface JobWake {
  /** The listening connection is up (the worker may then poll rarely). */
  readonly listening: boolean;
  close(): Promise<void>;
}

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
  const { connectionString, schema } = splitSchema(databaseUrl);
  let client: pg.Client | undefined;
  let closed = false;
  let listening = false;
  let retryMs = 1000;
  let timer: NodeJS.Timeout | undefined;

  const setListening = (up: boolean) => {
    if (listening === up) return;
    listening = up;
    opts.onListening?.(up);
  };

  /** Not listening any more: the connection (if any) is let go, its late errors ignored. */
  const drop = async () => {
    setListening(false);
    const c = client;
    client = undefined;
    c?.removeAllListeners();
    c?.on("error", () => {});
    await c?.end().catch(() => {});
  };

  const retry = (error?: unknown) => {
    void drop();
    if (closed) return;
    opts.log?.("warn", "job wake-up connection lost; polling until it is back", {
      err: error instanceof Error ? error.message : error === undefined ? "closed" : String(error),
      retryMs,
    });
    timer = setTimeout(connect, retryMs);
    timer.unref();
    retryMs = Math.min(retryMs * 2, 30_000);
  };

  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000 });
    client = c;
    c.on("error", retry);
    c.on("end", () => client === c && retry());
    c.on("notification", (n) => {
      const at = Number(n.payload);
      opts.onWake(n.payload && Number.isFinite(at) ? at : null);
    });
    try {
      await c.connect();
      const channel = schema
        ? `job_available:${schema}`
        : `job_available:${(await c.query<{ s: string }>("SELECT current_schema() AS s")).rows[0]!.s}`;
      await c.query(`LISTEN "${channel.replaceAll('"', '""')}"`);
      if (closed || client !== c) return;
      retryMs = 1000;
      setListening(true);
      // Whatever became available while no one listened.
      opts.onWake(null);
    } catch (error) {
      if (client === c) retry(error);
    }
  };

  void connect();
  return {
    get listening() {
      return listening;
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await drop();
    },
  };
}
