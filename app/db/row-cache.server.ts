/**
 * Rows the order pipeline reads again and again (a service account, a shop's settings), kept
 * in this process and kept true by the database: triggers on their tables notify
 * `row_changed:<schema>` with "<Table>:<key>" at commit (migration 20261128200000_row_changed),
 * and a connection of this process that LISTENs there drops what changed.
 *
 * The caches answer only while that connection is up. Without it (the embedded database, a lost
 * connection, a test that did not start it) every read goes to the database, as before; when it
 * comes (back) up they start empty, since what changed meanwhile was not heard. A read that was
 * under way when a change of its row was heard is not kept (it may predate the change), nor
 * shared with a read that began after it. Absent rows (null, an empty list) are never kept: a row
 * created later is then read at once.
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
  /** Counts the changes heard that drop every entry: a read that saw it move kept nothing. */
  private generation = 0;
  /** The same, per key, for changes that drop one entry (a change of another row overtakes no read). */
  private readonly keyGenerations = new Map<string, number>();
  /** Reads under way: a read of the same key in the same generation shares it. */
  private readonly loading = new Map<string, { at: string; value: Promise<V> }>();
  private live = false;
  private readonly maxEntries: number;

  constructor(readonly opts: RowCacheOptions) {
    this.maxEntries = opts.maxEntries ?? 5000;
  }

  /** Where the changes that concern `key` stand: a read is kept only if it has not moved. */
  private stand(key: string): string {
    return `${this.generation}:${this.keyGenerations.get(key) ?? 0}`;
  }

  /**
   * The value for `key`: kept, or loaded (and kept when live, present and not overtaken).
   * Concurrent reads of a key share one load while live, unless a change of it was heard in
   * between.
   */
  async get(key: string, load: () => Promise<V>): Promise<V> {
    // Not live, nothing is kept: the map is empty.
    if (this.entries.has(key)) return this.entries.get(key)!;
    const at = this.stand(key);
    // Shared only while live: without the feed, a write made since that load began is not heard.
    const shared = this.live ? this.loading.get(key) : undefined;
    if (shared && shared.at === at) return shared.value;
    const flight = { at, value: load() };
    this.loading.set(key, flight);
    try {
      const value = await flight.value;
      const absent =
        value === null || value === undefined || (Array.isArray(value) && !value.length);
      if (this.live && at === this.stand(key) && !absent) {
        if (this.entries.size >= this.maxEntries) {
          this.entries.delete(this.entries.keys().next().value!);
        }
        this.entries.set(key, value);
      }
      return value;
    } finally {
      if (this.loading.get(key) === flight) this.loading.delete(key);
    }
  }

  /** A row of the table changed (its key; null: unknown which). */
  changed(rowKey: string | null): void {
    if (rowKey === null || !this.opts.byRowKey || this.keyGenerations.size >= this.maxEntries) {
      this.generation++;
      this.keyGenerations.clear();
      this.entries.clear();
    } else {
      this.keyGenerations.set(rowKey, (this.keyGenerations.get(rowKey) ?? 0) + 1);
      this.entries.delete(rowKey);
    }
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
