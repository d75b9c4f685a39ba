/**
 * Tokens as Shopify serves them, and the app's one shared refresh:
 *
 * - the simulator's /admin/oauth/access_token over HTTP: token exchange of an id_token
 *   (expiring and non-expiring offline, online), refresh with single-use refresh tokens, and
 *   Shopify's error shapes; the Admin API's 401 for expired, revoked and unknown tokens;
 * - the app's lock (app/shop/offline-token.server.ts) on the embedded database: two
 *   independent instances (as two processes would be) refresh once, without deadlock on the
 *   single connection; a refused refresh marks the shop; a failed one keeps the session;
 * - with TEST_DATABASE_URL (real PostgreSQL): three processes near expiry → one refresh.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Session } from "@shopify/shopify-api";
import { PrismaSessionStorage } from "@shopify/shopify-app-session-storage-prisma";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { ShopUnavailableError } from "../../app/shop/errors";
import { REAUTH_MESSAGE, createOfflineTokens } from "../../app/shop/offline-token.server";
import { encryptingSessionStorage, openSessionRow } from "../../app/shop/session-crypto.server";
import { authenticate } from "../../app/shopify.server";
import { exited, spawnTs, waitForLine } from "../helpers/child";
import {
  ID_TOKEN_TYPE,
  OFFLINE_TOKEN_TYPE,
  ONLINE_TOKEN_TYPE,
  TOKEN_EXCHANGE_GRANT,
} from "../sim/shop/oauth";
import { type ShopifyRoute, routeShopifyToSim } from "../sim/shop/route-shopify";
import { type ShopSim, startShopSim } from "../sim/shop/server";

const KEY = "test-api-key";
const SECRET = "test-api-secret";
const INVALID = {
  errors: "[API] Invalid API key or access token (unrecognized login or wrong password)",
};

let sim: ShopSim;
let route: ShopifyRoute;
const storage = encryptingSessionStorage(new PrismaSessionStorage(prisma));
/** A stored session row with its tokens decrypted. */
const storedRow = async (id: string) =>
  openSessionRow(await prisma.session.findUniqueOrThrow({ where: { id } }));

beforeAll(async () => {
  sim = await startShopSim({ apiKey: KEY, apiSecret: SECRET });
  route = routeShopifyToSim(sim.url);
});
afterAll(async () => {
  route.restore();
  await sim.close();
});

async function tokenRequest(shop: string, body: Record<string, unknown>) {
  const res = await fetch(`${sim.url}/admin/oauth/access_token`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Sim-Shop-Domain": shop },
    body: JSON.stringify({ client_id: KEY, client_secret: SECRET, ...body }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const exchange = (shop: string, idToken: string, extra: Record<string, unknown> = {}) =>
  tokenRequest(shop, {
    grant_type: TOKEN_EXCHANGE_GRANT,
    subject_token: idToken,
    subject_token_type: ID_TOKEN_TYPE,
    requested_token_type: OFFLINE_TOKEN_TYPE,
    expiring: "1",
    ...extra,
  });

const refresh = (shop: string, refreshToken: string) =>
  tokenRequest(shop, { grant_type: "refresh_token", refresh_token: refreshToken });

async function adminCall(shop: string, token: string) {
  const res = await fetch(`${sim.url}/admin/api/2026-10/graphql.json`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-Sim-Shop-Domain": shop,
      "X-Shopify-Access-Token": token,
    },
    body: JSON.stringify({ query: "query Orders { orders(first: 1) { nodes { id } } }" }),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

describe("the simulator's token endpoint", () => {
  const shop = "tokens-sim.myshopify.com";
  beforeAll(() => {
    sim.addShop(shop);
  });

  it("exchanges an id_token for an expiring offline token (1 hour, refresh 90 days)", async () => {
    const r = await exchange(shop, sim.oauth.mintIdToken(shop));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      expires_in: 3600,
      refresh_token_expires_in: 90 * 86400,
    });
    expect(r.body.access_token).toMatch(/^simat_/);
    expect(typeof r.body.refresh_token).toBe("string");
    expect(String(r.body.scope)).toContain("read_orders");
    expect((await adminCall(shop, String(r.body.access_token))).status).toBe(200);
  });

  it("without expiring=1: a non-expiring token; online: a user's token", async () => {
    const plain = await exchange(shop, sim.oauth.mintIdToken(shop), { expiring: "0" });
    expect(plain.status).toBe(200);
    expect(Object.keys(plain.body).sort()).toEqual(["access_token", "scope"]);
    const online = await exchange(shop, sim.oauth.mintIdToken(shop, { userId: 42 }), {
      requested_token_type: ONLINE_TOKEN_TYPE,
    });
    expect(online.status).toBe(200);
    expect(online.body).toMatchObject({ expires_in: 86399, associated_user: { id: 42 } });
  });

  it("refuses bad credentials and bad id_tokens with Shopify's error shapes", async () => {
    const idToken = sim.oauth.mintIdToken(shop);
    const badClient = await tokenRequest(shop, {
      client_secret: "wrong",
      grant_type: TOKEN_EXCHANGE_GRANT,
      subject_token: idToken,
      subject_token_type: ID_TOKEN_TYPE,
      requested_token_type: OFFLINE_TOKEN_TYPE,
    });
    expect(badClient.status).toBe(401);
    expect(badClient.body).toMatchObject({ error: "invalid_client" });
    expect(typeof badClient.body.error_description).toBe("string");

    const cases = [
      sim.oauth.mintIdToken(shop, { secret: "forged" }),
      sim.oauth.mintIdToken(shop, { ttlS: -5 }),
      sim.oauth.mintIdToken(shop, { overrides: { aud: "another-app" } }),
      sim.oauth.mintIdToken("other.myshopify.com"),
      "not.a.jwt",
    ];
    for (const t of cases) {
      const r = await exchange(shop, t);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ error: "invalid_subject_token" });
      expect(JSON.stringify(r.body)).not.toContain(t);
    }
  });

  it("a refresh token works once; revoked and expired tokens get the Admin API's 401", async () => {
    const first = (await exchange(shop, sim.oauth.mintIdToken(shop))).body;
    const second = await refresh(shop, String(first.refresh_token));
    expect(second.status).toBe(200);
    expect(second.body.access_token).not.toBe(first.access_token);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(second.body).toMatchObject({ expires_in: 3600 });

    const again = await refresh(shop, String(first.refresh_token));
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ error: "invalid_grant" });
    expect(JSON.stringify(again.body)).not.toContain(String(first.refresh_token));

    // Expiry by the simulator's clock, without sleeping.
    const token = String(second.body.access_token);
    expect((await adminCall(shop, token)).status).toBe(200);
    sim.oauth.clock.advance(3601_000);
    expect(await adminCall(shop, token)).toEqual({ status: 401, body: INVALID });
    const third = await refresh(shop, String(second.body.refresh_token));
    expect(third.status).toBe(200);

    // expireAccessToken: now, whatever the lifetime.
    sim.oauth.expireAccessToken(shop);
    expect((await adminCall(shop, String(third.body.access_token))).status).toBe(401);

    // Uninstall: every token dies, the refresh token too.
    sim.oauth.revokeTokens(shop);
    expect(await refresh(shop, String(third.body.refresh_token))).toMatchObject({
      status: 400,
      body: { error: "invalid_grant" },
    });
    expect(await adminCall(shop, "simat_unknown")).toEqual({ status: 401, body: INVALID });
    // Reinstall: a new exchange works again.
    const back = await exchange(shop, sim.oauth.mintIdToken(shop));
    expect((await adminCall(shop, String(back.body.access_token))).status).toBe(200);
    expect(sim.oauth.counters(shop)).toMatchObject({ refreshes: 4, refreshesRefused: 2 });
  });

  it("refresh tokens expire (lifetimes are configurable)", async () => {
    sim.oauth.setLifetimes({ accessTokenTtlS: 60, refreshTokenTtlS: 120 });
    const t = (await exchange(shop, sim.oauth.mintIdToken(shop))).body;
    expect(t).toMatchObject({ expires_in: 60, refresh_token_expires_in: 120 });
    sim.oauth.clock.advance(121_000);
    expect((await refresh(shop, String(t.refresh_token))).status).toBe(400);
    sim.oauth.setLifetimes({ accessTokenTtlS: 3600, refreshTokenTtlS: 90 * 86400 });
  });
});

describe("one shared refresh (embedded database, one connection)", () => {
  /** Installs `shop` on the simulator and stores its offline session, expiring in `inMs`. */
  async function installed(shop: string, inMs: number) {
    sim.addShop(shop);
    const t = (await exchange(shop, sim.oauth.mintIdToken(shop))).body;
    await storage.storeSession(
      new Session({
        id: `offline_${shop}`,
        shop,
        state: "",
        isOnline: false,
        scope: String(t.scope),
        accessToken: String(t.access_token),
        expires: new Date(Date.now() + inMs),
        refreshToken: String(t.refresh_token),
        refreshTokenExpires: new Date(Date.now() + 90 * 86400_000),
      }),
    );
    return t;
  }

  /** An instance of the app's refresh, as one process has it, refreshing over HTTP. */
  function processLike(opts: { slowMs?: number } = {}) {
    return createOfflineTokens({
      db: prisma,
      load: (id) => storage.loadSession(id),
      refresh: async (shop, refreshToken) => {
        if (opts.slowMs) await new Promise((r) => setTimeout(r, opts.slowMs));
        const r = await refresh(shop, refreshToken);
        if (r.status !== 200)
          throw Object.assign(new Error("refused"), { response: { code: r.status, body: r.body } });
        return new Session({
          id: `offline_${shop}`,
          shop,
          state: "",
          isOnline: false,
          scope: String(r.body.scope),
          accessToken: String(r.body.access_token),
          expires: new Date(Date.now() + Number(r.body.expires_in) * 1000),
          refreshToken: String(r.body.refresh_token),
          refreshTokenExpires: new Date(
            Date.now() + Number(r.body.refresh_token_expires_in) * 1000,
          ),
        });
      },
    });
  }

  it("two independent instances near expiry: one refresh, both get the new token", async () => {
    const shop = "lock-a.myshopify.com";
    const old = await installed(shop, 60_000);
    const a = processLike({ slowMs: 50 });
    const b = processLike({ slowMs: 50 });
    const sessions = await Promise.all([
      a.fresh(shop),
      b.fresh(shop),
      a.fresh(shop),
      b.fresh(shop),
    ]);
    expect(sim.oauth.counters(shop)).toMatchObject({ refreshes: 1, refreshesRefused: 0 });
    const tokens = new Set(sessions.map((s) => s?.accessToken));
    expect(tokens.size).toBe(1);
    expect(tokens.has(String(old.access_token))).toBe(false);
    const row = await storedRow(`offline_${shop}`);
    expect(row.accessToken).toBe(sessions[0]!.accessToken);
    expect(row.expires!.getTime()).toBeGreaterThan(Date.now() + 3500_000);
    // Fresh now: no further refresh.
    await a.fresh(shop);
    expect(sim.oauth.counters(shop).refreshes).toBe(1);
  });

  it("a 401 refreshes once even for many rejected callers; a token far from expiry is left alone", async () => {
    const shop = "lock-b.myshopify.com";
    const old = await installed(shop, 3000_000);
    const a = processLike();
    const b = processLike();
    expect((await a.fresh(shop))?.accessToken).toBe(old.access_token);
    const renewed = await Promise.all([
      a.afterRejected(shop, String(old.access_token)),
      b.afterRejected(shop, String(old.access_token)),
      a.afterRejected(shop, String(old.access_token)),
    ]);
    expect(sim.oauth.counters(shop).refreshes).toBe(1);
    expect(new Set(renewed.map((s) => s?.accessToken)).size).toBe(1);
    expect(renewed[0]?.accessToken).not.toBe(old.access_token);
  });

  it("a refused refresh marks the shop and forgets its dead session", async () => {
    const shop = "lock-c.myshopify.com";
    await installed(shop, 60_000);
    sim.oauth.revokeTokens(shop);
    const a = processLike();
    expect(await a.fresh(shop)).toBeUndefined();
    expect(sim.oauth.counters(shop)).toMatchObject({ refreshes: 1, refreshesRefused: 1 });
    const row = await prisma.shop.findUniqueOrThrow({ where: { domain: shop } });
    expect(row.authProblem).toBe(REAUTH_MESSAGE);
    expect(await prisma.session.count({ where: { shop } })).toBe(0);
    expect(await a.fresh(shop)).toBeUndefined();
    expect(sim.oauth.counters(shop).refreshes).toBe(1);
  });

  it("a refresh that fails in transit keeps the session and says so without the token", async () => {
    const shop = "lock-d.myshopify.com";
    const t = await installed(shop, 60_000);
    const broken = createOfflineTokens({
      db: prisma,
      load: (id) => storage.loadSession(id),
      refresh: async () => {
        throw Object.assign(new Error(`socket hang up ${String(t.refresh_token)}`), {
          response: { code: 502, body: {} },
        });
      },
    });
    const err = await broken.fresh(shop).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShopUnavailableError);
    const text = `${(err as Error).message} ${(err as Error).stack}`;
    expect(text).not.toContain(String(t.refresh_token));
    expect(text).not.toContain(String(t.access_token));
    const row = await storedRow(`offline_${shop}`);
    expect(row.refreshToken).toBe(t.refresh_token);
    expect((await prisma.shop.findUnique({ where: { domain: shop } }))?.authProblem ?? null).toBe(
      null,
    );
  });
});

// Several processes need several database connections: the embedded PGlite serves one process,
// so this runs on PostgreSQL (CI sets TEST_DATABASE_URL).
describe.skipIf(!process.env.TEST_DATABASE_URL)("three processes near expiry", () => {
  it("make one refresh between them, and every read succeeds", async () => {
    // A simulator of its own: the other tests moved the first one's clock.
    const sim = await startShopSim({ apiKey: KEY, apiSecret: SECRET });
    const ownRoute = routeShopifyToSim(sim.url);
    const shop = "multi-refresh.myshopify.com";
    sim.addShop(shop);
    const product = sim.addProduct(shop, { title: "Tee", variants: [{ sku: "T", price: "1" }] });
    const order = sim.placeOrder(shop, {
      lines: [{ variantId: product.variants[0]!.id, quantity: 1 }],
    });
    const host = Buffer.from(`admin.shopify.com/store/multi-refresh`).toString("base64url");
    await authenticate.admin(
      new Request(`https://app.test/app?shop=${shop}&host=${host}&embedded=1`, {
        headers: {
          Authorization: `Bearer ${sim.oauth.mintIdToken(shop)}`,
          "User-Agent":
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36",
        },
      }),
    );
    // Two minutes left by the app's clock, and already expired at Shopify.
    await prisma.session.update({
      where: { id: `offline_${shop}` },
      data: { expires: new Date(Date.now() + 120_000) },
    });
    sim.oauth.expireAccessToken(shop);
    // Each refresh takes a second at "Shopify": the three processes' refreshes would overlap.
    sim.oauth.setLatency(1000);
    const goFile = join(mkdtempSync(join(tmpdir(), "refresh-go-")), "go");
    const children = [1, 2, 3].map(() =>
      spawnTs("test/shop/fixtures/refresh-child.ts", {
        DATABASE_URL: process.env.DATABASE_URL!,
        DATABASE_POOL_MAX: "3",
        SIM_URL: sim.url,
        SHOP: shop,
        ORDER_GID: order.id,
        GO_FILE: goFile,
        LOG_LEVEL: "warn",
      }),
    );
    const done = children.map((c) => waitForLine(c, /^done \d+$/, 90_000));
    await Promise.all(children.map((c) => waitForLine(c, /^ready$/, 60_000)));
    writeFileSync(goFile, "go");
    const lines = await Promise.all(done);
    expect(await Promise.all(children.map(exited))).toEqual([0, 0, 0]);
    expect(lines).toEqual(["done 3", "done 3", "done 3"]);
    expect(sim.oauth.counters(shop)).toMatchObject({ refreshes: 1, refreshesRefused: 0 });
    ownRoute.restore();
    await sim.close();
  }, 120_000);
});
