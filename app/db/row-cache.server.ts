/**
 * Rows the order pipeline reads again and again (a service account, a shop's settings), kept
 * in this process and kept true by the database: triggers on their tables notify
 * `row_changed:<schema>` with "<Table>:<key>" at commit (migration 20261128200000_row_changed),
 * and a connection of this process that LISTENs there drops what changed.
 *
 * The caches answer only while that connection is up. Without it (the embedded database, a lost
 * connection, a test that did not start it) every read goes to the database, as before; when it
 * comes (back) up they start empty, since what changed meanwhile was not heard. A read that was
 * under way when any change was heard is not kept (it may predate the change). Absent rows (null,
 * an empty list) are never kept: a row created later is then read at once.
 */
import { type Listener, listen } from "./listen.server";

export interface RowCacheOptions {
  /** The table whose changes drop entries (the trigger's "<Table>" part). */
  table: string;
  /**
   * True when the cache's key is the changed row's key (its id, a shop's domain): a change drops
   * that entry only. False (a lookup by another column): any change of the table drops them all.
   */
  byRowKey: boolean;
  /** At most this many entries; past it the oldest goes. */
  maxEntries?: number;
}

export class RowCache<V> {
  private readonly entries = new Map<string, V>();
  /** Counts the changes heard: a read that saw it move kept nothing. */
  private generation = 0;
  private live = false;
  private readonly maxEntries: number;

  constructor(readonly opts: RowCacheOptions) {
    this.maxEntries = opts.maxEntries ?? 5000;
  }

  /** The value for `key`: kept, or loaded (and kept when live, present and not overtaken). */
  async get(key: string, load: () => Promise<V>): Promise<V> {
    // Not live, nothing is kept: the map is empty.
    if (this.entries.has(key)) return this.entries.get(key)!;
    const generation = this.generation;
    const value = await load();
    const absent = value === null || value === undefined || (Array.isArray(value) && !value.length);
    if (this.live && generation === this.generation && !absent) {
      if (this.entries.size >= this.maxEntries) {
        this.entries.delete(this.entries.keys().next().value!);
      }
      this.entries.set(key, value);
    }
    return value;
  }

  /** A row of the table changed (its key; null: unknown which). */
  changed(rowKey: string | null): void {
    this.generation++;
    if (rowKey === null || !this.opts.byRowKey) this.entries.clear();
    else this.entries.delete(rowKey);
  }

  /** The change feed is up (entries may be kept from now on) or lost (nothing is kept). */
  setLive(up: boolean): void {
    this.live = up;
    this.changed(null);
  }

  get size(): number {
    return this.entries.size;
  }
}

const caches: RowCache<unknown>[] = [];

/** A process-wide cache, fed by the change feed once `startRowCaches` has started it. */
export function rowCache<V>(opts: RowCacheOptions): RowCache<V> {
  const cache = new RowCache<V>(opts);
  caches.push(cache as RowCache<unknown>);
  return cache;
}

/** Hands one notification ("<Table>:<key>") to the caches of its table. */
export function rowChanged(payload: string): void {
  const at = payload.indexOf(":");
  const table = at < 0 ? payload : payload.slice(0, at);
  const key = at < 0 ? null : payload.slice(at + 1);
  for (const c of caches) if (c.opts.table === table) c.changed(key);
}

const globalFeed = globalThis as unknown as { __rowChangeFeed?: Listener };

/**
 * Starts this process's change feed (once; PostgreSQL servers only). Stopping it (`close`)
 * sends every read to the database again.
 */
export function startRowCaches(
  databaseUrl: string,
  log?: (level: "warn" | "info", msg: string, data?: object) => void,
): Listener {
  const running = globalFeed.__rowChangeFeed;
  if (running) return running;
  const feed = listen(databaseUrl, {
    channel: "row_changed",
    lostMessage: "row change feed lost; reading every row from the database until it is back",
    log,
    onNotify: rowChanged,
    onListening: (up) => {
      for (const c of caches) c.setLive(up);
    },
  });
  const handle: Listener = {
    get listening() {
      return feed.listening;
    },
    async close() {
      if (globalFeed.__rowChangeFeed === handle) globalFeed.__rowChangeFeed = undefined;
      await feed.close();
    },
  };
  globalFeed.__rowChangeFeed = handle;
  return handle;
}

/** The change feed of this process is started (and not closed since). */
export function rowCachesStarted(): boolean {
  return globalFeed.__rowChangeFeed !== undefined;
}
