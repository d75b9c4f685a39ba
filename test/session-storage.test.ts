import { Session } from "@shopify/shopify-api";
import { describe, expect, it } from "vitest";
import { prisma } from "../app/db.server";
import { sessionStorage } from "../app/shopify.server";

describe("Prisma session storage", () => {
  it("stores, loads, finds and deletes an expiring offline session", async () => {
    const expires = new Date(Date.now() + 3600_000);
    const refreshExpires = new Date(Date.now() + 30 * 86400_000);
    const session = new Session({
      id: "offline_store-a.myshopify.com",
      shop: "store-a.myshopify.com",
      state: "state-1",
      isOnline: false,
      scope: "read_orders,write_products",
      expires,
      accessToken: "shpua_offline_token",
      refreshToken: "refresh-token-1",
      refreshTokenExpires: refreshExpires,
    });
    expect(await sessionStorage.storeSession(session)).toBe(true);

    const loaded = await sessionStorage.loadSession(session.id);
    expect(loaded?.id).toBe(session.id);
    expect(loaded?.shop).toBe("store-a.myshopify.com");
    expect(loaded?.accessToken).toBe("shpua_offline_token");
    expect(loaded?.refreshToken).toBe("refresh-token-1");
    expect(loaded?.expires?.getTime()).toBe(expires.getTime());
    expect(loaded?.isActive("read_orders,write_products")).toBe(true);

    // Storing again updates in place.
    session.accessToken = "shpua_rotated";
    await sessionStorage.storeSession(session);
    expect((await sessionStorage.loadSession(session.id))?.accessToken).toBe("shpua_rotated");
    expect(await prisma.session.count({ where: { id: session.id } })).toBe(1);

    const found = await sessionStorage.findSessionsByShop("store-a.myshopify.com");
    expect(found.map((s) => s.id)).toEqual([session.id]);

    expect(await sessionStorage.deleteSession(session.id)).toBe(true);
    expect(await sessionStorage.loadSession(session.id)).toBeUndefined();
  });

  it("keeps shops apart", async () => {
    for (const shop of ["x.myshopify.com", "y.myshopify.com"]) {
      await sessionStorage.storeSession(
        new Session({
          id: `offline_${shop}`,
          shop,
          state: "s",
          isOnline: false,
          accessToken: `t-${shop}`,
        }),
      );
    }
    await sessionStorage.deleteSessions(["offline_x.myshopify.com"]);
    expect(await sessionStorage.findSessionsByShop("x.myshopify.com")).toEqual([]);
    expect((await sessionStorage.findSessionsByShop("y.myshopify.com")).length).toBe(1);
  });

  it("loads what needs no refresh as stored, without calling Shopify", async () => {
    // No simulator runs here: a refresh attempt would fail the load.
    const soon = new Date(Date.now() + 60_000);
    const sessions = [
      // Never expires (installed before expiring tokens).
      new Session({
        id: "offline_n.myshopify.com",
        shop: "n.myshopify.com",
        state: "",
        isOnline: false,
        accessToken: "t-n",
      }),
      // Expires soon but has no refresh token: nothing to refresh with.
      new Session({
        id: "offline_r.myshopify.com",
        shop: "r.myshopify.com",
        state: "",
        isOnline: false,
        accessToken: "t-r",
        expires: soon,
      }),
      // Online sessions are the library's business (token exchange), never refreshed here.
      new Session({
        id: "o.myshopify.com_42",
        shop: "o.myshopify.com",
        state: "",
        isOnline: true,
        accessToken: "t-o",
        expires: soon,
        refreshToken: "rt-o",
      }),
    ];
    for (const s of sessions) await sessionStorage.storeSession(s);
    for (const s of sessions) {
      const loaded = await sessionStorage.loadSession(s.id);
      expect(loaded?.accessToken).toBe(s.accessToken);
      expect(loaded?.expires?.getTime()).toBe(s.expires?.getTime());
    }
  });
});
