/**
 * A connection of its own that LISTENs on one channel of this database's schema
 * (`<name>:<schema>`, which the tables' triggers notify at commit). A lost connection is opened
 * again (after a second, then up to 30 s apart); each time it comes up `onListening(true)` says
 * so, since whatever was notified meanwhile is lost. PostgreSQL servers only.
 */
import pg from "pg";
import { splitSchema } from "./migrations.server";

export interface Listener {
  /** The connection is up and listening. */
  readonly listening: boolean;
  close(): Promise<void>;
}

export interface ListenOptions {
  /** The channel's name before `:<schema>`. */
  channel: string;
  onNotify: (payload: string) => void;
  /** Called when the connection comes up (true) or is lost (false). */
  onListening?: (up: boolean) => void;
  log?: (level: "warn" | "info", msg: string, data?: object) => void;
  /** The warning logged when the connection is lost (then opened again). */
  lostMessage: string;
}

export function listen(databaseUrl: string, opts: ListenOptions): Listener {
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
    opts.log?.("warn", opts.lostMessage, {
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
    c.on("notification", (n) => opts.onNotify(n.payload ?? ""));
    try {
      await c.connect();
      const name = `${opts.channel}:${
        schema ?? (await c.query<{ s: string }>("SELECT current_schema() AS s")).rows[0]!.s
      }`;
      await c.query(`LISTEN "${name.replaceAll('"', '""')}"`);
      if (closed || client !== c) return;
      retryMs = 1000;
      setListening(true);
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
