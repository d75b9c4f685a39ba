/**
 * Shopify tokens at rest, through the app's own session storage (app/shopify.server.ts) and
 * the locked offline-token refresh, on the real database: no token is stored in clear; loading
 * gives it back; a row from before encryption still loads and the secrets migration encrypts
 * it; the refresh (over HTTP at the shop simulator's token endpoint) writes encrypted tokens.
 */
import { Session } from "@shopify/shopify-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isEncryptedSecret } from "../../app/crypto.server";
import { prisma } from "../../app/db.server";
import { migrateSecrets } from "../../app/db/secrets-migration.server";
import { openSessionRow } from "../../app/shop/session-crypto.server";
import { sessionStorage } from "../../app/shopify.server";
import { ID_TOKEN_TYPE, OFFLINE_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT } from "../sim/shop/oauth";
import { type ShopifyRoute, routeShopifyToSim } from "../sim/shop/route-shopify";
import { type ShopSim, startShopSim } from "../sim/shop/server";
import { shopifyLike } from "./keys";

/** Session rows in which `secret` appears anywhere (every column, as the row's text). */
async function rowsContaining(secret: string): Promise<string[]> {
  const rows = await prisma.$queryRaw<{ id: string }[]>`
    SELECT s.id FROM "Session" s WHERE strpos(s::text, ${secret}) > 0`;
  return rows.map((r) => r.id);
}

const DAY = 86400_000;

describe("the app's session storage", () => {
  it("stores offline and online tokens encrypted and loads them back", async () => {
    const offline = new Session({
      id: "offline_enc-a.myshopify.com",
      shop: "enc-a.myshopify.com",
      state: "s",
      isOnline: false,
      scope: "read_orders",
      expires: new Date(Date.now() + 3600_000),
      accessToken: shopifyLike("shpat"),
      refreshToken: shopifyLike("shprt"),
      refreshTokenExpires: new Date(Date.now() + 90 * DAY),
    });
    const online = new Session({
      id: "enc-a.myshopify.com_42",
      shop: "enc-a.myshopify.com",
      state: "s",
      isOnline: true,
      scope: "read_orders",
      expires: new Date(Date.now() + DAY),
      accessToken: shopifyLike("shpua"),
      refreshToken: shopifyLike("shprt"),
      onlineAccessInfo: {
        expires_in: 86399,
        associated_user_scope: "read_orders",
        associated_user: {
          id: 42,
          first_name: "Ada",
          last_name: "L",
          email: "ada@example.com",
          email_verified: true,
          account_owner: true,
          locale: "en",
          collaborator: false,
        },
      },
    });
    const tokens = [offline, online].flatMap((s) => [s.accessToken!, s.refreshToken!]);
    for (const s of [offline, online]) expect(await sessionStorage.storeSession(s)).toBe(true);
    // The caller's Session is left as it was.
    expect([offline, online].flatMap((s) => [s.accessToken, s.refreshToken])).toEqual(tokens);

    for (const token of tokens) expect(await rowsContaining(token)).toEqual([]);
    const raw = await prisma.session.findMany({ where: { shop: "enc-a.myshopify.com" } });
    expect(raw).toHaveLength(2);
    for (const row of raw) {
      expect(isEncryptedSecret(row.accessToken)).toBe(true);
      expect(isEncryptedSecret(row.refreshToken!)).toBe(true);
    }

    for (const s of [offline, online]) {
      const loaded = await sessionStorage.loadSession(s.id);
      expect(loaded?.accessToken).toBe(s.accessToken);
      expect(loaded?.refreshToken).toBe(s.refreshToken);
    }
    expect(
      (await sessionStorage.loadSession(online.id))?.onlineAccessInfo?.associated_user.id,
    ).toBe(42);
    const found = await sessionStorage.findSessionsByShop("enc-a.myshopify.com");
    expect(found.map((s) => s.accessToken).sort()).toEqual(
      [offline.accessToken, online.accessToken].sort(),
    );
  });

  it("a row from before encryption loads, and the secrets migration encrypts it", async () => {
    const token = shopifyLike("shpat");
    const refresh = shopifyLike("shprt");
    await prisma.session.create({
      data: {
        id: "offline_legacy.myshopify.com",
        shop: "legacy.myshopify.com",
        state: "",
        isOnline: false,
        accessToken: token,
        expires: new Date(Date.now() + 3600_000),
        refreshToken: refresh,
      },
    });
    const before = await sessionStorage.loadSession("offline_legacy.myshopify.com");
    expect([before?.accessToken, before?.refreshToken]).toEqual([token, refresh]);

    const first = await migrateSecrets(prisma);
    expect(first).toMatchObject({ tokensEncrypted: 2, reencrypted: 0, unreadable: 0 });
    expect(await rowsContaining(token)).toEqual([]);
    expect(await rowsContaining(refresh)).toEqual([]);
    const after = await sessionStorage.loadSession("offline_legacy.myshopify.com");
    expect([after?.accessToken, after?.refreshToken]).toEqual([token, refresh]);
    // Idempotent: nothing left to do.
    expect(await migrateSecrets(prisma)).toMatchObject({ tokensEncrypted: 0, reencrypted: 0 });
  });
});

describe("the offline-token refresh (shop simulator over HTTP)", () => {
  const KEY = "test-api-key";
  const SECRET = "test-api-secret";
  let sim: ShopSim;
  let route: ShopifyRoute;
  beforeAll(async () => {
    sim = await startShopSim({ apiKey: KEY, apiSecret: SECRET });
    route = routeShopifyToSim(sim.url);
  });
  afterAll(async () => {
    route.restore();
    await sim.close();
  });

  async function exchange(shop: string) {
    const res = await fetch(`${sim.url}/admin/oauth/access_token`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Sim-Shop-Domain": shop },
      body: JSON.stringify({
        client_id: KEY,
        client_secret: SECRET,
        grant_type: TOKEN_EXCHANGE_GRANT,
        subject_token: sim.oauth.mintIdToken(shop),
        subject_token_type: ID_TOKEN_TYPE,
        requested_token_type: OFFLINE_TOKEN_TYPE,
        expiring: "1",
      }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { access_token: string; refresh_token: string; scope: string };
  }

  for (const start of ["stored encrypted", "a legacy clear row"] as const) {
    it(`from ${start}: the refreshed tokens are written encrypted`, async () => {
      const shop = `refresh-${start.split(" ")[0]}.myshopify.com`;
      sim.addShop(shop);
      const t = await exchange(shop);
      const row = {
        id: `offline_${shop}`,
        shop,
        state: "",
        isOnline: false,
        scope: t.scope,
        accessToken: t.access_token,
        expires: new Date(Date.now() + 60_000), // inside the refresh margin
        refreshToken: t.refresh_token,
        refreshTokenExpires: new Date(Date.now() + 90 * DAY),
      };
      if (start === "a legacy clear row") await prisma.session.create({ data: row });
      else await sessionStorage.storeSession(new Session(row));

      // The library's own load: refreshed first, under the lock, at the simulator.
      const loaded = await sessionStorage.loadSession(`offline_${shop}`);
      expect(sim.oauth.counters(shop)).toMatchObject({ refreshes: 1, refreshesRefused: 0 });
      expect(loaded?.accessToken).toMatch(/^simat_/);
      expect(loaded?.accessToken).not.toBe(t.access_token);
      expect(sim.oauth.accessTokenStatus(shop, loaded!.accessToken)).toBe("ok");

      const stored = await prisma.session.findUniqueOrThrow({ where: { id: `offline_${shop}` } });
      expect(isEncryptedSecret(stored.accessToken)).toBe(true);
      expect(isEncryptedSecret(stored.refreshToken!)).toBe(true);
      for (const token of [loaded!.accessToken!, loaded!.refreshToken!, t.access_token])
        expect(await rowsContaining(token)).toEqual([]);
      const opened = openSessionRow(stored);
      expect([opened.accessToken, opened.refreshToken]).toEqual([
        loaded!.accessToken,
        loaded!.refreshToken,
      ]);
      expect(stored.expires!.getTime()).toBeGreaterThan(Date.now() + 3500_000);
    });
  }
});
