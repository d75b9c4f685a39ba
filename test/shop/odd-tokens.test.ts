/**
 * Session tokens the Shopify library would choke on, over real HTTP (issue 37): a token whose
 * `dest` is not a shop's myshopify address, and one for a shop that never installed the app,
 * are a 401 on an admin page and on the extension API (the first on the auth route too); nothing is stored
 * and no token is exchanged for them. A good token still gets the page.
 */
import type { ActionFunctionArgs } from "@remix-run/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as authRoute from "../../app/routes/auth.$";
import * as indexRoute from "../../app/routes/app._index";
import * as ordersRoute from "../../app/routes/api.ext.orders";
import { type Harness, prisma, startHarness } from "../fulfilment/harness";
import { serveRoutes } from "../helpers/app-server";
import { ADMIN_ORIGIN, BROWSER_UA } from "../helpers/extension-backend";

const SHOP = "odd-tokens.myshopify.com";
const NEVER = "never-installed.myshopify.com";

let h: Harness;
let app: Awaited<ReturnType<typeof serveRoutes>>;

type Loader = (args: ActionFunctionArgs) => unknown;
beforeAll(async () => {
  h = await startHarness({ shopDomain: SHOP, balance: "500.00" });
  app = await serveRoutes({
    "/app": indexRoute.loader as Loader,
    "/auth/session-token": authRoute.loader as Loader,
    "/api/ext/orders": ordersRoute.loader as Loader,
  });
});
afterAll(async () => {
  await app?.close();
  await h?.close();
});

const get = (path: string, token: string) =>
  fetch(`${app.url}${path}`, {
    headers: { Authorization: `Bearer ${token}`, Origin: ADMIN_ORIGIN, "User-Agent": BROWSER_UA },
  });
const PATHS = ["/app", "/auth/session-token", "/api/ext/orders?id=gid://shopify/Order/1"];
const odd = (dest: unknown) => h.shop.oauth.mintIdToken(SHOP, { overrides: { dest } });

describe("odd session tokens", () => {
  it("a dest that is not a shop's myshopify address is a 401, before any exchange", async () => {
    const before = h.shop.oauth.counters();
    const sessions = await prisma.session.count();
    for (const dest of [
      "https://evil.example.com",
      "not a url",
      "https://odd-tokens.myshopify.com:8443",
      "https://odd-tokens.myshopify.com/admin",
      "http://odd-tokens.myshopify.com",
      42,
    ]) {
      for (const path of PATHS) {
        const res = await get(path, odd(dest));
        expect([String(dest), path, res.status]).toEqual([String(dest), path, 401]);
        expect(await res.json()).toEqual({ error: "The session token names no shop." });
      }
    }
    expect(h.shop.oauth.counters()).toEqual(before);
    expect(await prisma.session.count()).toBe(sessions);
  });

  it("a shop that never installed the app is a 401, and nothing of it is stored", async () => {
    // (The auth route's session-token path is the library's bounce page, whatever the token.)
    for (const path of [PATHS[0]!, PATHS[2]!]) {
      const res = await get(path, h.shop.oauth.mintIdToken(NEVER));
      expect([path, res.status]).toEqual([path, 401]);
      expect(await res.json()).toEqual({ error: "This shop has not installed the app." });
    }
    expect(await prisma.session.count({ where: { shop: NEVER } })).toBe(0);
    expect(await prisma.shop.count({ where: { domain: NEVER } })).toBe(0);
  });

  it("a good token still gets the page and the extension API", async () => {
    const page = await get("/app", h.shop.oauth.mintIdToken(SHOP));
    expect(page.status).toBe(200);
    const ext = await get(PATHS[2]!, h.shop.oauth.mintIdToken(SHOP));
    expect(ext.status).not.toBe(401);
    expect(ext.status).toBeLessThan(500);
  });
});
