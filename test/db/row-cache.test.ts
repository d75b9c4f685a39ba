/**
 * The process's row caches (app/db/row-cache.server.ts) and the reads that go through them
 * (app/svc/accounts.server.ts, `settingsForJob`): nothing is kept unless the change feed is up;
 * a change drops the entry (or all, for a lookup by another column); a read overtaken by a
 * change of its row, or that found nothing, is not kept; concurrent reads of a key share one load. On a PostgreSQL server, a change made by another
 * connection reaches the cache through the tables' triggers, and a rotated webhook secret stops
 * finding its account.
 */
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import {
  RowCache,
  rowCache,
  rowCachesStarted,
  rowChanged,
  startRowCaches,
} from "../../app/db/row-cache.server";
import type { Listener } from "../../app/db/listen.server";
import { settingsForJob, updateSettings } from "../../app/settings.server";
import {
  accountById,
  accountIdOfShop,
  accountsByWebhookSecret,
} from "../../app/svc/accounts.server";
import { hashWebhookSecret } from "../../app/svc/webhook-secret.server";
import { eventually } from "../helpers/eventually";

/** A loader that counts its calls and answers `value`. */
function loader<V>(value: () => V) {
  const l = { calls: 0, load: async () => (l.calls++, value()) };
  return l;
}

describe("a row cache", () => {
  it("keeps nothing while the change feed is down, and starts empty when it comes up", async () => {
    const cache = new RowCache<string>({ table: "T", byRowKey: true });
    const l = loader(() => "v");
    await cache.get("k", l.load);
    await cache.get("k", l.load);
    expect(l.calls).toBe(2);
    cache.setLive(true);
    expect(await cache.get("k", l.load)).toBe("v");
    await cache.get("k", l.load);
    expect(l.calls).toBe(3);
    cache.setLive(false);
    expect(cache.size).toBe(0);
    await cache.get("k", l.load);
    await cache.get("k", l.load);
    expect(l.calls).toBe(5);
    cache.setLive(true);
    await cache.get("k", l.load);
    expect(l.calls).toBe(6);
  });

  it("drops the changed row's entry only, or every entry when keyed by another column", async () => {
    const byRow = new RowCache<string>({ table: "T", byRowKey: true });
    const byOther = new RowCache<string>({ table: "T", byRowKey: false });
    byRow.setLive(true);
    byOther.setLive(true);
    let version = 1;
    const l = loader(() => `v${version}`);
    for (const c of [byRow, byOther]) {
      await c.get("a", l.load);
      await c.get("b", l.load);
    }
    expect(l.calls).toBe(4);
    version = 2;
    byRow.changed("a");
    byOther.changed("a");
    expect(await byRow.get("a", l.load)).toBe("v2");
    expect(await byRow.get("b", l.load)).toBe("v1");
    expect(await byOther.get("b", l.load)).toBe("v2");
    byRow.changed(null);
    expect(await byRow.get("b", l.load)).toBe("v2");
  });

  it("does not keep a read that a change overtook, nor a row that was not there", async () => {
    const cache = new RowCache<string[] | null>({ table: "T", byRowKey: true });
    cache.setLive(true);
    let release!: () => void;
    const slow = cache.get("k", () => new Promise((r) => (release = () => r(["old"]))));
    cache.changed("k");
    release();
    expect(await slow).toEqual(["old"]);
    const l = loader(() => ["new"]);
    expect(await cache.get("k", l.load)).toEqual(["new"]);
    expect(l.calls).toBe(1);
    await cache.get("k", l.load);
    expect(l.calls).toBe(1);

    const none = loader<string[] | null>(() => null);
    const empty = loader<string[] | null>(() => []);
    const missing = loader<string[] | null>(() => undefined as unknown as null);
    for (let i = 0; i < 2; i++) {
      await cache.get("none", none.load);
      await cache.get("empty", empty.load);
      await cache.get("missing", missing.load);
    }
    expect([none.calls, empty.calls, missing.calls]).toEqual([2, 2, 2]);
  });

  it("keeps a read that only another row's change overtook (keyed by row), not by another column", async () => {
    const byRow = new RowCache<string>({ table: "T", byRowKey: true });
    const byOther = new RowCache<string>({ table: "T", byRowKey: false });
    for (const c of [byRow, byOther]) c.setLive(true);
    const releases: (() => void)[] = [];
    const slow = () => new Promise<string>((r) => releases.push(() => r("read")));
    const reads = [byRow.get("k", slow), byOther.get("k", slow)];
    byRow.changed("other");
    byOther.changed("other");
    for (const r of releases) r();
    expect(await Promise.all(reads)).toEqual(["read", "read"]);
    const l = loader(() => "again");
    expect(await byRow.get("k", l.load)).toBe("read");
    expect(await byOther.get("k", l.load)).toBe("again");
    expect(l.calls).toBe(1);
  });

  it("shares one load among concurrent reads of a key, but not across a change of it", async () => {
    const cache = new RowCache<string>({ table: "T", byRowKey: true });
    cache.setLive(true);
    let version = 1;
    const releases: (() => void)[] = [];
    let calls = 0;
    const slow = () => {
      calls++;
      const v = `v${version}`;
      return new Promise<string>((r) => releases.push(() => r(v)));
    };
    const first = [cache.get("k", slow), cache.get("k", slow), cache.get("k", slow)];
    expect(calls).toBe(1);
    version = 2;
    cache.changed("k");
    const after = cache.get("k", slow);
    const other = cache.get("j", slow);
    expect(calls).toBe(3);
    for (const r of releases) r();
    expect(await Promise.all(first)).toEqual(["v1", "v1", "v1"]);
    expect(await after).toBe("v2");
    expect(await other).toBe("v2");
    expect(await cache.get("k", slow)).toBe("v2");
    expect(calls).toBe(3);
    // A load that failed is not shared afterwards: the next read loads again.
    const failing = cache.get("x", () => Promise.reject(new Error("down")));
    await expect(failing).rejects.toThrow("down");
    expect(await cache.get("x", async () => "up")).toBe("up");
  });

  it("shares no load while the feed is down: a write since it began would not be heard", async () => {
    const cache = new RowCache<string>({ table: "T", byRowKey: true });
    const l = loader(() => "v");
    await Promise.all([cache.get("k", l.load), cache.get("k", l.load)]);
    expect(l.calls).toBe(2);
  });

  it("does not keep a read that a second change of its row overtook", async () => {
    const cache = new RowCache<string>({ table: "T", byRowKey: true });
    cache.setLive(true);
    cache.changed("k");
    let release!: () => void;
    const slow = cache.get("k", () => new Promise((r) => (release = () => r("old"))));
    cache.changed("k");
    release();
    expect(await slow).toBe("old");
    const l = loader(() => "new");
    expect(await cache.get("k", l.load)).toBe("new");
    expect(l.calls).toBe(1);
  });

  it("a read begun after a change is shared until it ends, whatever the older one does", async () => {
    const cache = new RowCache<string>({ table: "T", byRowKey: true });
    cache.setLive(true);
    const releases: (() => void)[] = [];
    let calls = 0;
    const slow = () => (calls++, new Promise<string>((r) => releases.push(() => r(`v${calls}`))));
    const older = cache.get("k", slow);
    cache.changed("k");
    const newer = cache.get("k", slow);
    releases[0]!();
    await older;
    const joined = cache.get("k", slow);
    expect(calls).toBe(2);
    releases[1]!();
    expect(await joined).toBe(await newer);
  });

  it("past its limit of changed keys, a change drops every entry", async () => {
    const cache = new RowCache<string>({ table: "T", byRowKey: true, maxEntries: 2 });
    cache.setLive(true);
    const l = loader(() => "v");
    await cache.get("a", l.load);
    cache.changed("x");
    cache.changed("y");
    await cache.get("a", l.load);
    expect(l.calls).toBe(1);
    cache.changed("z");
    await cache.get("a", l.load);
    expect(l.calls).toBe(2);
  });

  it("reads a notification's table and key at the first colon", async () => {
    const cache = rowCache<string>({ table: "", byRowKey: true });
    cache.setLive(true);
    const l = loader(() => "v");
    await cache.get("k", l.load);
    await cache.get("j", l.load);
    rowChanged(":k");
    await cache.get("j", l.load);
    expect(l.calls).toBe(2);
    await cache.get("k", l.load);
    expect(l.calls).toBe(3);
    cache.setLive(false);
  });

  it("holds at most its limit, letting the oldest go", async () => {
    const cache = new RowCache<number>({ table: "T", byRowKey: true, maxEntries: 2 });
    cache.setLive(true);
    const l = loader(() => 1);
    await cache.get("a", l.load);
    await cache.get("b", l.load);
    await cache.get("c", l.load);
    expect(cache.size).toBe(2);
    await cache.get("c", l.load);
    await cache.get("b", l.load);
    expect(l.calls).toBe(3);
    await cache.get("a", l.load);
    expect(l.calls).toBe(4);
  });

  it("hands a notification to the caches of its table", async () => {
    const table = `T${randomUUID()}`;
    const mine = rowCache<string>({ table, byRowKey: true });
    const other = rowCache<string>({ table: `${table}-other`, byRowKey: true });
    mine.setLive(true);
    other.setLive(true);
    const l = loader(() => "v");
    await mine.get("k", l.load);
    await other.get("k", l.load);
    // Another row of the table: this entry stays.
    rowChanged(`${table}:j`);
    await mine.get("k", l.load);
    expect(l.calls).toBe(2);
    rowChanged(`${table}:k`);
    await mine.get("k", l.load);
    await other.get("k", l.load);
    expect(l.calls).toBe(3);
    // A payload without a key drops the table's every entry.
    rowChanged(table);
    await mine.get("k", l.load);
    expect(l.calls).toBe(4);
    mine.setLive(false);
    other.setLive(false);
  });
});

/** The app's client with the service account reads counted. */
function countedAccounts() {
  const sent = { n: 0 };
  const svcAccount = new Proxy(prisma.svcAccount, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        sent.n++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { db: { svcAccount } as Pick<typeof prisma, "svcAccount">, sent };
}

describe.skipIf(!process.env.TEST_DATABASE_URL)("the change feed on PostgreSQL", () => {
  let feed: Listener | undefined;
  afterEach(async () => {
    await feed?.close();
    feed = undefined;
  });

  async function started() {
    expect(rowCachesStarted()).toBe(false);
    feed = startRowCaches(process.env.DATABASE_URL!);
    expect(rowCachesStarted()).toBe(true);
    // Started once per process: a second start gives the same feed.
    expect(startRowCaches(process.env.DATABASE_URL!)).toBe(feed);
    expect(await eventually(async () => feed!.listening)).toBe(true);
  }

  async function account(shop: string, secret: string) {
    return prisma.svcAccount.create({
      data: {
        shopDomain: shop,
        baseUrl: "http://127.0.0.1:1",
        authMethod: "apiKey",
        webhookSecretHash: hashWebhookSecret(secret),
      },
    });
  }

  it("keeps an account, and drops it when another connection changes it", async () => {
    await started();
    const shop = `feed-${randomUUID()}.myshopify.com`;
    const row = await account(shop, `secret-${randomUUID()}`);
    const { db, sent } = countedAccounts();
    expect((await accountById(db, row.id))?.callsPerSecond).toBe(1);
    expect(await accountIdOfShop(db, shop)).toBe(row.id);
    // The row's creation is heard a moment later (a read under way then is not kept): soon both
    // are kept, and reading them again asks the database nothing.
    const kept = async () => {
      const reads = sent.n;
      await accountById(db, row.id);
      await accountIdOfShop(db, shop);
      return sent.n === reads;
    };
    expect(await eventually(kept)).toBe(true);
    expect(await kept()).toBe(true);

    await prisma.$executeRaw`UPDATE "SvcAccount" SET "callsPerSecond" = 4 WHERE "id" = ${row.id}`;
    expect(
      await eventually(async () => (await accountById(db, row.id))?.callsPerSecond === 4),
    ).toBe(true);
    // Disconnected from the shop: the shop has no account any more.
    await prisma.svcAccount.update({ where: { id: row.id }, data: { shopDomain: null } });
    expect(await eventually(async () => (await accountIdOfShop(db, shop)) === null)).toBe(true);
  });

  it("a rotated webhook secret stops finding its account; a new one finds it", async () => {
    await started();
    const [before, after] = [`before-${randomUUID()}`, `after-${randomUUID()}`];
    const row = await account(`feed-${randomUUID()}.myshopify.com`, before);
    const { db } = countedAccounts();
    expect((await accountsByWebhookSecret(db, before)).map((a) => a.id)).toEqual([row.id]);
    expect(await accountsByWebhookSecret(db, after)).toEqual([]);
    await prisma.svcAccount.update({
      where: { id: row.id },
      data: { webhookSecretHash: hashWebhookSecret(after) },
    });
    expect(
      await eventually(async () => (await accountsByWebhookSecret(db, before)).length === 0),
    ).toBe(true);
    expect((await accountsByWebhookSecret(db, after)).map((a) => a.id)).toEqual([row.id]);
  });

  it("keeps a shop's settings for the jobs; a save shows at once, another connection's soon", async () => {
    await started();
    const shop = `feed-${randomUUID()}.myshopify.com`;
    await prisma.shop.create({ data: { domain: shop } });
    expect((await settingsForJob(prisma, shop)).paused).toBe(false);
    const saved = await updateSettings(prisma, shop, { paused: "true" });
    expect(saved.ok).toBe(true);
    expect((await settingsForJob(prisma, shop)).paused).toBe(true);
    await prisma.$executeRaw`UPDATE "Shop" SET "settings" = '{}'::jsonb WHERE "domain" = ${shop}`;
    expect(await eventually(async () => !(await settingsForJob(prisma, shop)).paused)).toBe(true);
    // Each caller has its own copy.
    const mine = await settingsForJob(prisma, shop);
    mine.paused = true;
    expect((await settingsForJob(prisma, shop)).paused).toBe(false);
  });

  it("once stopped, every read goes to the database", async () => {
    await started();
    const row = await account(`feed-${randomUUID()}.myshopify.com`, `s-${randomUUID()}`);
    await feed!.close();
    feed = undefined;
    expect(rowCachesStarted()).toBe(false);
    const { db, sent } = countedAccounts();
    await accountById(db, row.id);
    await accountById(db, row.id);
    expect(sent.n).toBe(2);
  });
});
