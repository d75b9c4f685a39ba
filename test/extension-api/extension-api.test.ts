/**
 * The Admin UI extensions' backend (routes api.ext.*) over real HTTP, authenticated as Shopify's
 * admin does it: a session token (HS256 JWT) signed with the app's secret by the shop simulator.
 * A token is its shop's only: shop B reads none of A's orders and acts on none; an expired or
 * forged token gets 401; a double-sent action (same key) acts once; bad input changes nothing.
 */
import { Session } from "@shopify/shopify-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { config } from "../../app/config.server";
import { sessionStorage } from "../../app/shopify.server";
import { type Harness, prisma, startHarness } from "../fulfilment/harness";
import { ADMIN_ORIGIN, BROWSER_UA, serveExtensionBackend } from "../helpers/extension-backend";

const SHOP_A = "ext-a.myshopify.com";
const SHOP_B = "ext-b.myshopify.com";

let h: Harness;
let app: Awaited<ReturnType<typeof serveExtensionBackend>>;

beforeAll(async () => {
  h = await startHarness({ shopDomain: SHOP_A, balance: "500.00" });
  // Shop B has installed the app too (its own offline session), but has no orders.
  await sessionStorage.storeSession(
    new Session({
      id: `offline_${SHOP_B}`,
      shop: SHOP_B,
      state: "s",
      isOnline: false,
      accessToken: "b-offline-token",
      scope: config.SCOPES,
    }),
  );
  app = await serveExtensionBackend();
});
afterAll(async () => {
  await app?.close();
  await h?.close();
});

/** A request as the admin sends it from an extension: its origin, a browser, the token. */
function ext(path: string, token: string | null, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  headers.set("Origin", ADMIN_ORIGIN);
  headers.set("User-Agent", BROWSER_UA);
  if (token) headers.set("Authorization", `Bearer ${token}`);
  return fetch(`${app.url}${path}`, { ...init, headers });
}

const token = (shop: string, o?: Parameters<Harness["shop"]["oauth"]["mintIdToken"]>[1]) =>
  h.shop.oauth.mintIdToken(shop, o);

/** An order the app holds: its product is not connected to the service. */
async function heldOrder() {
  const placed = await h.order([{ product: h.unconnectedProduct("Loose tee"), quantity: 1 }]);
  await h.settle();
  const row = await h.row(placed.legacyId);
  expect(row.state).toBe("HELD");
  return { gid: `gid://shopify/Order/${placed.legacyId}`, row };
}

const post = (shop: string, body: unknown) =>
  ext("/api/ext/orders", token(shop), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

describe("the extensions' backend", () => {
  it("reads the token's shop's orders, in the order asked, with CORS for the admin", async () => {
    const held = await heldOrder();
    const unknown = "gid://shopify/Order/999999001";
    const res = await ext(
      `/api/ext/orders?id=${encodeURIComponent(held.gid)}&id=${encodeURIComponent(unknown)}`,
      token(SHOP_A),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(ADMIN_ORIGIN);
    expect(res.headers.get("vary")).toContain("Origin");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const { orders } = (await res.json()) as { orders: Array<Record<string, unknown>> };
    expect(orders).toHaveLength(2);
    expect(orders[0]).toMatchObject({
      id: held.gid,
      handled: true,
      orderId: held.row.id,
      state: "HELD",
      appPath: `/app/orders/${held.row.id}`,
    });
    expect(orders[0]!.summary).toMatch(/^Held: /);
    expect(orders[0]!.reason).toBe(held.row.reasonMessage);
    expect(orders[0]!.actions).toEqual(["release", "retry", "hold"]);
    expect(orders[1]).toEqual({ id: unknown, handled: false });
  });

  it("answers the CORS preflight without a token", async () => {
    const res = await ext("/api/ext/orders", null, {
      method: "OPTIONS",
      headers: { "Access-Control-Request-Method": "POST" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-headers")).toContain("Authorization");
  });

  it("names Shopify's admin origins in CORS, never *, and none for another origin", async () => {
    const held = await heldOrder();
    const path = `/api/ext/orders?id=${encodeURIComponent(held.gid)}`;
    for (const origin of ["https://admin.shopify.com", ADMIN_ORIGIN]) {
      const res = await fetch(`${app.url}${path}`, {
        headers: {
          Origin: origin,
          "User-Agent": BROWSER_UA,
          Authorization: `Bearer ${token(SHOP_A)}`,
        },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe(origin);
    }
    const other = await fetch(`${app.url}${path}`, {
      headers: {
        Origin: "https://evil.example",
        "User-Agent": BROWSER_UA,
        Authorization: `Bearer ${token(SHOP_A)}`,
      },
    });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await fetch(`${app.url}/api/ext/orders`, {
      method: "OPTIONS",
      headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "POST" },
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("a token of shop B neither reads nor acts on shop A's order", async () => {
    const held = await heldOrder();
    const read = await ext(`/api/ext/orders?id=${encodeURIComponent(held.gid)}`, token(SHOP_B));
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual({ orders: [{ id: held.gid, handled: false }] });

    const runsBefore = await prisma.bulkRun.count();
    const act = await post(SHOP_B, { intent: "hold", ids: [held.gid], key: "b-tries-a-order-1" });
    expect(act.status).toBe(400);
    expect(await act.json()).toEqual({ error: "The app does not handle these orders." });
    expect(await prisma.bulkRun.count()).toBe(runsBefore);
    expect((await h.row(Number(held.row.shopifyOrderId))).reasonCode).toBe(held.row.reasonCode);

    // Nor read a run shop A started.
    const started = await post(SHOP_A, { intent: "hold", ids: [held.gid], key: "a-holds-own-1" });
    expect(started.status).toBe(202);
    const { runId } = (await started.json()) as { runId: string };
    expect((await ext(`/api/ext/runs/${runId}`, token(SHOP_B))).status).toBe(404);
    expect((await ext(`/api/ext/runs/${runId}`, token(SHOP_A))).status).toBe(200);
  });

  it("refuses an expired, a forged or a missing token", async () => {
    const held = await heldOrder();
    const path = `/api/ext/orders?id=${encodeURIComponent(held.gid)}`;
    const nowS = Math.floor(Date.now() / 1000);
    const expired = token(SHOP_A, { overrides: { exp: nowS - 120, nbf: nowS - 180 } });
    const forged = token(SHOP_A, { secret: "not-the-app-secret" });
    for (const t of [expired, forged]) {
      const res = await ext(path, t);
      expect(res.status).toBe(401);
      expect(await res.text()).not.toContain(held.row.id);
    }
    // Without a token: 401 (not the login page's redirect), with CORS for the admin so the
    // extension can read it.
    const none = await ext(path, null);
    expect(none.status).toBe(401);
    expect(none.headers.get("access-control-allow-origin")).toBe(ADMIN_ORIGIN);
    expect(await none.json()).toEqual({ error: "A session token is required." });
    const noneAct = await ext("/api/ext/orders", null, { method: "POST", body: "{}" });
    expect(noneAct.status).toBe(401);
    // Nor can a forged token act.
    const act = await ext("/api/ext/orders", forged, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ intent: "hold", ids: [held.gid], key: "forged-key-1" }),
    });
    expect(act.status).toBe(401);
    expect((await h.row(Number(held.row.shopifyOrderId))).reasonCode).toBe(held.row.reasonCode);
  });

  it("a double-sent action acts once, and its run reports each order", async () => {
    const held = await heldOrder();
    const body = { intent: "hold", ids: [held.gid], key: "double-sent-key-1" };
    const [first, second] = await Promise.all([post(SHOP_A, body), post(SHOP_A, body)]);
    expect([first.status, second.status]).toEqual([202, 202]);
    const a = (await first.json()) as { runId: string };
    const b = (await second.json()) as { runId: string };
    expect(b.runId).toBe(a.runId);
    await h.settle();
    // And once more after it ran: still the same run, nothing done again.
    const third = (await (await post(SHOP_A, body)).json()) as { runId: string };
    expect(third.runId).toBe(a.runId);
    await h.settle();

    expect(await prisma.bulkRun.count({ where: { clientKey: "ext-double-sent-key-1" } })).toBe(1);
    const holds = (await h.row(Number(held.row.shopifyOrderId))).timeline.filter(
      (t) => t.step === "hold" && t.errorCode === "merchant_hold",
    );
    expect(holds).toHaveLength(1);
    const run = (await (await ext(`/api/ext/runs/${a.runId}`, token(SHOP_A))).json()) as {
      run: { finished: boolean; results: Array<{ id: string; ok: boolean; message: string }> };
    };
    expect(run.run.finished).toBe(true);
    expect(run.run.results).toEqual([
      expect.objectContaining({
        id: held.gid,
        ok: true,
        message: "Held: the order waits here until you release it.",
      }),
    ]);
  });

  it("bad input gets a clear error and changes nothing", async () => {
    const held = await heldOrder();
    const runsBefore = await prisma.bulkRun.count();
    const cases: Array<[unknown, string]> = [
      [{ intent: "cancel", ids: [held.gid], key: "bad-input-1" }, "Unknown action"],
      [{ intent: "hold", ids: ["12345"], key: "bad-input-2" }, "Not a Shopify order id"],
      [{ intent: "hold", ids: [], key: "bad-input-3" }, "No order given"],
      [{ intent: "hold", ids: [held.gid], key: "x" }, "Missing or bad request key"],
    ];
    for (const [body, error] of cases) {
      const res = await post(SHOP_A, body);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error });
    }
    const notJson = await ext("/api/ext/orders", token(SHOP_A), { method: "POST", body: "{" });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toEqual({ error: "The body is not JSON." });
    const badRead = await ext(
      "/api/ext/orders?id=gid%3A%2F%2Fshopify%2FProduct%2F1",
      token(SHOP_A),
    );
    expect(badRead.status).toBe(400);
    expect(await badRead.json()).toEqual({ error: "Not a Shopify order id" });
    expect(await prisma.bulkRun.count()).toBe(runsBefore);
    expect((await h.row(Number(held.row.shopifyOrderId))).state).toBe("HELD");
  });
});
