import { Session } from "@shopify/shopify-api";
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "../app/db.server";
import { action } from "../app/routes/webhooks.app.uninstalled";
import { sessionStorage } from "../app/shopify.server";
import { recordInstall } from "../app/shops/shops.server";
import { callRoute } from "./helpers/remix";
import { shopifyWebhookRequest } from "./helpers/shopify-webhook";

const SHOP = "leaving.myshopify.com";
const URL = "https://app.test/webhooks/app/uninstalled";

function uninstallRequest(secret?: string) {
  return shopifyWebhookRequest(URL, {
    topic: "app/uninstalled",
    shop: SHOP,
    body: { id: 1, myshopify_domain: SHOP },
    secret,
  });
}

describe("app/uninstalled webhook", () => {
  beforeEach(async () => {
    await prisma.session.deleteMany();
    await prisma.shop.deleteMany();
    await recordInstall(prisma, SHOP, "read_orders");
    await sessionStorage.storeSession(
      new Session({
        id: `offline_${SHOP}`,
        shop: SHOP,
        state: "s",
        isOnline: false,
        accessToken: "tok",
      }),
    );
  });

  it("with a valid HMAC: 200, the shop is marked uninstalled and its sessions are gone", async () => {
    const res = await callRoute(action, uninstallRequest());
    expect(res.status).toBe(200);
    const shop = await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } });
    expect(shop.uninstalledAt).toBeInstanceOf(Date);
    expect(await prisma.session.count({ where: { shop: SHOP } })).toBe(0);
  });

  it("received twice: 200 both times, the first uninstall time is kept", async () => {
    expect((await callRoute(action, uninstallRequest())).status).toBe(200);
    const first = (await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } })).uninstalledAt;
    await new Promise((r) => setTimeout(r, 5));
    expect((await callRoute(action, uninstallRequest())).status).toBe(200);
    const second = (await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } })).uninstalledAt;
    expect(second?.getTime()).toBe(first?.getTime());
  });

  it("after the shop is gone: 200 and nothing is created", async () => {
    await prisma.shop.deleteMany();
    expect((await callRoute(action, uninstallRequest())).status).toBe(200);
    expect(await prisma.shop.count()).toBe(0);
  });

  it("with a forged HMAC: 401 and nothing changes", async () => {
    const res = await callRoute(action, uninstallRequest("not-the-app-secret"));
    expect(res.status).toBe(401);
    const shop = await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } });
    expect(shop.uninstalledAt).toBeNull();
    expect(await prisma.session.count({ where: { shop: SHOP } })).toBe(1);
  });
});
