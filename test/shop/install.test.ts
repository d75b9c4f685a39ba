/**
 * Install and tokens as Shopify does them, end to end through the real library:
 *
 * - install: a request carrying an id_token (as Shopify's admin loads an embedded app) makes
 *   `authenticate.admin` exchange it at the simulator's /admin/oauth/access_token for an
 *   expiring offline token, stored by the Prisma session storage; afterAuth records the shop;
 * - background work (`shopGatewayFor` over `unauthenticated.admin`) across the expiry of that
 *   token: one refresh, shared by concurrent callers;
 * - a revoked token: the order's job waits with the merchant-visible reason (no retry storm),
 *   and a new token exchange (the merchant opens the app again) resumes it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardData } from "../../app/workqueue/dashboard.server";
import {
  REAUTH_MESSAGE,
  ShopReauthRequiredError,
  parseOrderGid,
  shopGatewayFor,
} from "../../app/shop/index.server";
import { UNINSTALLED_MESSAGE } from "../../app/shop/offline-token.server";
import { openSessionRow } from "../../app/shop/session-crypto.server";
import { action as uninstalledAction } from "../../app/routes/webhooks.app.uninstalled";
import { authenticate, unauthenticated } from "../../app/shopify.server";
import { type Harness, prisma, startHarness } from "../fulfilment/harness";
import { callRoute } from "../helpers/remix";
import { shopifyWebhookRequest } from "../helpers/shopify-webhook";

const SHOP = "install-test.myshopify.com";
const BROWSER =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15";

let h: Harness;
/** Every token the app held during the test: none may appear in an error or a job. */
const seenTokens = new Set<string>();

beforeAll(async () => {
  h = await startHarness({ shopDomain: SHOP, balance: "500.00" });
  // The harness seeds a never-expiring session (and the shop's settings); this test installs
  // for real instead.
  await prisma.session.deleteMany({ where: { shop: SHOP } });
});
afterAll(async () => h?.close());

/** The admin loading the embedded app: a document request with a fresh id_token. */
function adminRequest(idToken: string) {
  const host = Buffer.from(`admin.shopify.com/store/${SHOP.split(".")[0]}`).toString("base64url");
  return new Request(`https://app.test/app?shop=${SHOP}&host=${host}&embedded=1`, {
    headers: { Authorization: `Bearer ${idToken}`, "User-Agent": BROWSER },
  });
}

async function storedSession() {
  const stored = await prisma.session.findUnique({ where: { id: `offline_${SHOP}` } });
  const row = stored && openSessionRow(stored);
  if (row) {
    seenTokens.add(row.accessToken);
    if (row.refreshToken) seenTokens.add(row.refreshToken);
  }
  return row;
}

const counters = () => h.shop.oauth.counters(SHOP);

describe("install and expiring offline tokens", () => {
  it("installs from an id_token: token exchange, expiring offline session stored, install recorded", async () => {
    const before = Date.now();
    const { session } = await authenticate.admin(adminRequest(h.shop.oauth.mintIdToken(SHOP)));
    expect(session.shop).toBe(SHOP);
    expect(session.isOnline).toBe(false);
    expect(counters()).toMatchObject({ tokenExchanges: 1, exchangesRefused: 0, refreshes: 0 });

    const row = await storedSession();
    expect(row?.accessToken).toMatch(/^simat_/);
    expect(row?.refreshToken).toBeTruthy();
    const expiresIn = row!.expires!.getTime() - before;
    expect(expiresIn).toBeGreaterThan(3500_000);
    expect(expiresIn).toBeLessThanOrEqual(3600_000 + (Date.now() - before));
    const refreshIn = row!.refreshTokenExpires!.getTime() - before;
    expect(Math.round(refreshIn / 86400_000)).toBe(90);
    expect(row?.scope).toContain("read_orders");

    const shop = await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } });
    expect(shop.uninstalledAt).toBeNull();
    expect(shop.authProblem).toBeNull();
    expect(shop.scopes).toContain("read_orders");

    // The same admin request again: the stored session is valid, no second exchange.
    await authenticate.admin(adminRequest(h.shop.oauth.mintIdToken(SHOP)));
    expect(counters().tokenExchanges).toBe(1);
  });

  it("refuses a forged id_token without calling Shopify", async () => {
    const forged = h.shop.oauth.mintIdToken(SHOP, { secret: "not-the-app-secret" });
    const thrown = await authenticate.admin(adminRequest(forged)).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(Response);
    expect((thrown as Response).status).toBe(401);
    expect(counters().tokenExchanges).toBe(1);
  });

  it("an access token Shopify expired early: the next background call refreshes once and succeeds", async () => {
    const first = await storedSession();
    const placed = h.shop.placeOrder(SHOP, {
      lines: [{ variantId: h.unconnectedProduct("Tee").variants[0]!.id, quantity: 1 }],
    });
    h.shop.oauth.expireAccessToken(SHOP);
    const gw = await shopGatewayFor(SHOP);
    const order = await gw.getOrder(parseOrderGid(placed.id));
    expect(order?.id).toBe(placed.id);
    expect(counters()).toMatchObject({ refreshes: 1, refreshesRefused: 0 });

    const second = await storedSession();
    expect(second?.accessToken).not.toBe(first?.accessToken);
    expect(second?.refreshToken).not.toBe(first?.refreshToken);
    expect(second!.expires!.getTime()).toBeGreaterThan(Date.now() + 3500_000);
    // The old access token is dead at Shopify, the new one works.
    expect(h.shop.oauth.accessTokenStatus(SHOP, first!.accessToken)).toBe("expired");
    expect(h.shop.oauth.accessTokenStatus(SHOP, second!.accessToken)).toBe("ok");
  });

  it("concurrent background work near expiry refreshes once, before the library would", async () => {
    const placed = h.shop.placeOrder(SHOP, {
      lines: [{ variantId: h.unconnectedProduct("Mug").variants[0]!.id, quantity: 1 }],
    });
    // Four minutes left by the app's clock (inside the library's own 5-minute refresh window),
    // and Shopify has already expired it: any use of the old token would get a 401.
    await prisma.session.update({
      where: { id: `offline_${SHOP}` },
      data: { expires: new Date(Date.now() + 4 * 60_000) },
    });
    h.shop.oauth.expireAccessToken(SHOP);
    const before = counters();
    const callsBefore = h.shop.graphqlCalls().length;

    const results = await Promise.all([
      ...Array.from({ length: 4 }, async () =>
        (await shopGatewayFor(SHOP)).getOrder(parseOrderGid(placed.id)),
      ),
      // The library's own entry points load through the same storage.
      ...Array.from({ length: 2 }, async () => {
        const { admin } = await unauthenticated.admin(SHOP);
        const res = await admin.graphql(
          `query OrderName($id: ID!) { order(id: $id) { id name } }`,
          {
            variables: { id: placed.id },
          },
        );
        return (await res.json()) as unknown;
      }),
    ]);
    expect(results.slice(0, 4).map((o) => (o as { id: string } | null)?.id)).toEqual(
      Array(4).fill(placed.id),
    );
    expect(counters().refreshes - before.refreshes).toBe(1);
    expect(counters().refreshesRefused).toBe(0);
    const newCalls = h.shop.graphqlCalls().slice(callsBefore);
    expect(newCalls.filter((c) => c.status === 401)).toHaveLength(0);
    await storedSession();
  });

  it("a revoked token: the order waits with the merchant's reason, no retry storm; reinstall resumes it", async () => {
    const tee = await h.connectedProduct("Cotton Tee", "19.00");
    h.shop.oauth.revokeTokens(SHOP);
    const before = counters();
    const placed = await h.order([{ product: tee, quantity: 1 }]);
    await h.settle();

    // One refresh attempt, refused; the shop is marked, its dead session forgotten.
    expect(counters().refreshes - before.refreshes).toBe(1);
    expect(counters().refreshesRefused - before.refreshesRefused).toBe(1);
    const shop = await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } });
    expect(shop.authProblem).toBe(REAUTH_MESSAGE);
    expect(await storedSession()).toBeNull();
    expect((await dashboardData(prisma, SHOP)).authProblem).toBe(REAUTH_MESSAGE);

    // The order's job waits (not failed, not dead), with the reason, due in about an hour.
    const waiting = await prisma.job.findMany({
      where: { state: "available", lastError: { startsWith: "ShopReauthRequiredError:" } },
    });
    expect(waiting.length).toBeGreaterThanOrEqual(1);
    for (const j of waiting) {
      expect(j.lastError).toContain(SHOP);
      expect(j.lastError).toContain(REAUTH_MESSAGE);
      expect(j.runAt.getTime()).toBeGreaterThan(Date.now() + 30 * 60_000);
      expect(j.attempts).toBe(0);
    }
    expect(await prisma.job.count({ where: { state: "dead" } })).toBe(0);
    const row = await h.row(placed.legacyId);
    expect(row.svcOrderId).toBeNull();

    // Nothing runs again by itself: no refresh, no Admin API call, no token exchange.
    const callsBefore = h.shop.graphqlCalls().length;
    const countersBefore = counters();
    expect(await h.settle()).toBe(0);
    expect(h.shop.graphqlCalls().length).toBe(callsBefore);
    expect(counters()).toEqual(countersBefore);
    // And a direct gateway call says why, without calling Shopify.
    const err = await shopGatewayFor(SHOP).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShopReauthRequiredError);
    expect(counters()).toEqual(countersBefore);

    // The merchant opens the app: a new token exchange, the mark cleared, the job due now.
    await authenticate.admin(adminRequest(h.shop.oauth.mintIdToken(SHOP)));
    expect(counters().tokenExchanges - countersBefore.tokenExchanges).toBe(1);
    expect((await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } })).authProblem).toBe(
      null,
    );
    expect((await storedSession())?.refreshToken).toBeTruthy();
    await h.settle();
    const moved = await h.row(placed.legacyId);
    expect(moved.svcOrderId).toMatch(/^SO/);
    expect(moved.state).toBe("PAID");
    expect(
      await prisma.job.count({ where: { lastError: { startsWith: "ShopReauthRequiredError:" } } }),
    ).toBe(0);
  });

  it("uninstall (tokens revoked, near expiry): the webhook is still taken; work waits; reinstall resumes", async () => {
    // Two minutes left by the app's clock: loading the session for the webhook tries a
    // refresh, which Shopify refuses after an uninstall. The webhook must not fail for it.
    await prisma.session.update({
      where: { id: `offline_${SHOP}` },
      data: { expires: new Date(Date.now() + 120_000) },
    });
    h.shop.oauth.revokeTokens(SHOP);
    const res = await callRoute(
      uninstalledAction,
      shopifyWebhookRequest("https://app.test/webhooks/app/uninstalled", {
        topic: "app/uninstalled",
        shop: SHOP,
        body: { id: 1, domain: SHOP, myshopify_domain: SHOP },
      }),
    );
    expect(res.status).toBe(200);
    const shop = await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } });
    expect(shop.uninstalledAt).toBeInstanceOf(Date);
    expect(await storedSession()).toBeNull();

    const before = counters();
    const err = await shopGatewayFor(SHOP).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShopReauthRequiredError);
    expect((err as Error).message).toContain(UNINSTALLED_MESSAGE);
    expect((err as ShopReauthRequiredError).waitMs).toBeGreaterThan(0);
    expect(counters()).toEqual(before);

    // Reinstall: the admin loads the app with a new id_token.
    await authenticate.admin(adminRequest(h.shop.oauth.mintIdToken(SHOP)));
    const back = await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } });
    expect(back.uninstalledAt).toBeNull();
    expect(back.authProblem).toBeNull();
    const placed = h.shop.placeOrder(SHOP, {
      lines: [{ variantId: h.unconnectedProduct("Cap").variants[0]!.id, quantity: 1 }],
    });
    expect((await (await shopGatewayFor(SHOP)).getOrder(parseOrderGid(placed.id)))?.id).toBe(
      placed.id,
    );
    await storedSession();
  });

  it("keeps tokens out of every stored error and timeline", async () => {
    const texts = [
      ...(await prisma.job.findMany({ select: { lastError: true, result: true } })).map(
        (j) => `${j.lastError ?? ""} ${JSON.stringify(j.result)}`,
      ),
      ...(await prisma.timelineEntry.findMany({ select: { message: true } })).map((t) => t.message),
    ].join("\n");
    expect(seenTokens.size).toBeGreaterThanOrEqual(6);
    for (const t of seenTokens) expect(texts).not.toContain(t);
  });
});
