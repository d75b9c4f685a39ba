/**
 * The offline sessions kept by a process (app/shop/session-cache.server.ts) over the app's real
 * storage (Prisma, tokens sealed). Without the change feed every load reads the table. With it
 * (PostgreSQL servers): an offline session is read once, each caller gets its own copy, a store
 * or delete through the storage drops it at once, a locked refresh's `changed` drops it, and
 * another connection's write reaches it through the Session table's trigger. Online sessions are
 * never kept.
 */
import { randomUUID } from "node:crypto";
import { Session } from "@shopify/shopify-api";
import { PrismaSessionStorage } from "@shopify/shopify-app-session-storage-prisma";
import { afterEach, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import type { Listener } from "../../app/db/listen.server";
import { startRowCaches } from "../../app/db/row-cache.server";
import { cachingSessionStorage, offlineSessionChanged } from "../../app/shop/session-cache.server";
import { encryptingSessionStorage, type SessionStore } from "../../app/shop/session-crypto.server";
import { eventually } from "../helpers/eventually";

/** The app's storage under the cache, with its loads counted. */
function counted() {
  const inner = encryptingSessionStorage(new PrismaSessionStorage(prisma));
  const loads = { n: 0 };
  const store: SessionStore = {
    ...inner,
    loadSession: (id) => (loads.n++, inner.loadSession(id)),
  };
  return { storage: cachingSessionStorage(store), loads };
}

function session(shop: string, isOnline: boolean, token: string) {
  return new Session({
    id: isOnline ? `${shop}_${randomUUID()}` : `offline_${shop}`,
    shop,
    state: "s",
    isOnline,
    accessToken: token,
    scope: "read_orders",
  });
}

describe("offline sessions without the change feed", () => {
  it("are read from the table on every load", async () => {
    const { storage, loads } = counted();
    const s = session(`nofeed-${randomUUID()}.myshopify.com`, false, "tok-1");
    await storage.storeSession(s);
    expect((await storage.loadSession(s.id))?.accessToken).toBe("tok-1");
    expect((await storage.loadSession(s.id))?.accessToken).toBe("tok-1");
    expect(loads.n).toBe(2);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)("offline sessions with the change feed", () => {
  let feed: Listener | undefined;
  afterEach(async () => {
    await feed?.close();
    feed = undefined;
  });

  async function started() {
    feed = startRowCaches(process.env.DATABASE_URL!);
    expect(await eventually(async () => feed!.listening)).toBe(true);
  }

  /**
   * Loads until a load is answered by the cache: the notification of the store that made the
   * session arrives a moment later and drops what was kept before it.
   */
  async function kept(storage: SessionStore, loads: { n: number }, id: string) {
    expect(
      await eventually(async () => {
        await storage.loadSession(id);
        const n = loads.n;
        await storage.loadSession(id);
        return loads.n === n;
      }),
    ).toBe(true);
  }

  it("are read once, each caller getting its own copy; a store or delete drops them", async () => {
    await started();
    const { storage, loads } = counted();
    const s = session(`feed-${randomUUID()}.myshopify.com`, false, "tok-1");
    await storage.storeSession(s);
    await kept(storage, loads, s.id);
    let n = loads.n;
    const first = await storage.loadSession(s.id);
    first!.accessToken = "changed by a caller";
    const second = await storage.loadSession(s.id);
    expect(second?.accessToken).toBe("tok-1");
    expect(second?.scope).toBe("read_orders");
    expect(loads.n).toBe(n);

    // Stored by this process: the next load reads the new token, not the kept one.
    s.accessToken = "tok-2";
    await storage.storeSession(s);
    expect((await storage.loadSession(s.id))?.accessToken).toBe("tok-2");
    await kept(storage, loads, s.id);
    n = loads.n;
    offlineSessionChanged(s.id);
    await storage.loadSession(s.id);
    expect(loads.n).toBe(n + 1);

    await storage.deleteSession(s.id);
    expect(await storage.loadSession(s.id)).toBeUndefined();
    expect(await storage.loadSession(s.id)).toBeUndefined();
    expect(loads.n).toBe(n + 3);
  });

  it("follow another connection's write; online sessions are never kept", async () => {
    await started();
    const { storage, loads } = counted();
    const shop = `feed-${randomUUID()}.myshopify.com`;
    const s = session(shop, false, "tok-1");
    await storage.storeSession(s);
    await kept(storage, loads, s.id);
    // Another process: a write that does not go through this storage.
    await prisma.session.update({ where: { id: s.id }, data: { scope: "write_orders" } });
    expect(
      await eventually(async () => (await storage.loadSession(s.id))?.scope === "write_orders"),
    ).toBe(true);

    const online = session(shop, true, "tok-online");
    await storage.storeSession(online);
    const before = loads.n;
    await storage.loadSession(online.id);
    await storage.loadSession(online.id);
    expect(loads.n - before).toBe(2);
  });
});
