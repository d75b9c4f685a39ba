/**
 * The Shopify webhook edges through real HTTP, signed with the real HMAC. Shopify signs only the
 * body; topic and shop come in unsigned headers. A signed body replayed under another topic, to
 * another topic's route or under another shop's domain is refused and changes nothing; unknown
 * and uninstalled shops are acknowledged without storing; deep or broken JSON is a 400.
 */
import { createHmac, randomUUID } from "node:crypto";
import type { ActionFunctionArgs } from "@remix-run/node";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { prisma } from "../../app/db.server";
import { logger } from "../../app/logger.server";
import { action as scopesUpdate } from "../../app/routes/webhooks.app.scopes_update";
import { action as uninstalled } from "../../app/routes/webhooks.app.uninstalled";
import { action as compliance } from "../../app/routes/webhooks.compliance";
import { action as ordersCreate } from "../../app/routes/webhooks.orders.create";
import { action as ordersPaid } from "../../app/routes/webhooks.orders.paid";
import { action as productsDelete } from "../../app/routes/webhooks.products.delete";
import { recordInstall } from "../../app/shops/shops.server";
import { serveRoutes } from "../helpers/app-server";
import { TEST_API_SECRET } from "../helpers/shopify-webhook";

const MINE = "mine.myshopify.com";
const VICTIM = "victim.myshopify.com";
const routes: Record<string, (args: ActionFunctionArgs) => unknown> = {
  "/webhooks/orders/create": ordersCreate,
  "/webhooks/orders/paid": ordersPaid,
  "/webhooks/products/delete": productsDelete,
  "/webhooks/app/uninstalled": uninstalled,
  "/webhooks/app/scopes_update": scopesUpdate,
  "/webhooks/compliance": compliance,
};

let app: Awaited<ReturnType<typeof serveRoutes>>;
beforeAll(async () => {
  app = await serveRoutes(routes);
});
afterAll(() => app.close());

/** POSTs raw bytes to a route, signed as Shopify signs them, with whatever headers given. */
async function post(path: string, opts: { topic: string; shop: string; body: string }) {
  const res = await fetch(`${app.url}${path}`, {
    method: "POST",
    body: opts.body,
    headers: {
      "Content-Type": "application/json",
      "X-Shopify-Topic": opts.topic,
      "X-Shopify-Shop-Domain": opts.shop,
      "X-Shopify-Hmac-Sha256": createHmac("sha256", TEST_API_SECRET)
        .update(opts.body)
        .digest("base64"),
      "X-Shopify-Webhook-Id": randomUUID(),
      "X-Shopify-Event-Id": randomUUID(),
      "X-Shopify-API-Version": "2026-10",
    },
  });
  return { status: res.status, text: await res.text() };
}

const ORDER_BODY = JSON.stringify({
  id: 4001,
  admin_graphql_api_id: "gid://shopify/Order/4001",
  email: "ann@example.com",
  customer: { id: 7, email: "ann@example.com" },
  line_items: [{ id: 40010, quantity: 1 }],
});

/** Everything a replay could touch. */
async function snapshot() {
  return {
    events: await prisma.webhookEvent.findMany({ select: { id: true }, orderBy: { id: "asc" } }),
    jobs: await prisma.job.findMany({ select: { id: true, kind: true }, orderBy: { id: "asc" } }),
    shops: await prisma.shop.findMany({
      select: { domain: true, uninstalledAt: true },
      orderBy: { domain: "asc" },
    }),
    sessions: await prisma.session.findMany({ select: { id: true }, orderBy: { id: "asc" } }),
    orders: await prisma.shopOrder.count(),
    connections: await prisma.productConnection.count(),
  };
}

beforeEach(async () => {
  await prisma.job.deleteMany();
  await prisma.webhookEvent.deleteMany();
  await prisma.productConnection.deleteMany();
  await prisma.shopOrder.deleteMany();
  await prisma.session.deleteMany();
  await prisma.shop.deleteMany();
  for (const shop of [MINE, VICTIM]) {
    await recordInstall(prisma, shop, "read_orders");
    await prisma.session.create({
      data: { id: `offline_${shop}`, shop, state: "s", accessToken: "t" },
    });
    await prisma.shopOrder.create({
      data: { shopDomain: shop, shopifyOrderId: "4001", orderNumber: `${shop}-4001` },
    });
    await prisma.productConnection.create({
      data: { shopDomain: shop, shopifyProductId: "4001", shopifyVariantId: "1", svcVid: "v1" },
    });
  }
});

describe("a captured signed orders body, replayed", () => {
  it("is taken once as what it is: orders/create of its shop", async () => {
    expect(
      await post("/webhooks/orders/create", {
        topic: "orders/create",
        shop: MINE,
        body: ORDER_BODY,
      }),
    ).toEqual({ status: 200, text: "" });
    expect(
      await prisma.webhookEvent.count({ where: { topic: "orders/create", shopDomain: MINE } }),
    ).toBe(1);
  });

  it.each([
    ["as shop/redact of another shop", "/webhooks/compliance", "shop/redact", VICTIM],
    ["as shop/redact of its own shop", "/webhooks/compliance", "shop/redact", MINE],
    ["as customers/redact", "/webhooks/compliance", "customers/redact", MINE],
    ["as app/uninstalled of another shop", "/webhooks/app/uninstalled", "app/uninstalled", VICTIM],
    ["as app/uninstalled of its own shop", "/webhooks/app/uninstalled", "app/uninstalled", MINE],
    ["as products/delete", "/webhooks/products/delete", "products/delete", MINE],
    ["as app/scopes_update", "/webhooks/app/scopes_update", "app/scopes_update", MINE],
    ["to its route under another topic", "/webhooks/orders/create", "shop/redact", VICTIM],
    ["to its route as orders/paid", "/webhooks/orders/create", "orders/paid", MINE],
    ["to another order route under its own topic", "/webhooks/orders/paid", "orders/create", MINE],
    ["to the compliance route under its own topic", "/webhooks/compliance", "orders/create", MINE],
  ])("%s: 400 and nothing changes", async (_name, path, topic, shop) => {
    const before = await snapshot();
    const res = await post(path, { topic, shop, body: ORDER_BODY });
    expect(res.status).toBe(400);
    expect(await snapshot()).toEqual(before);
  });
});

describe("the shop in the header must be the shop the payload names", () => {
  it("shop/redact naming one shop, sent under another's domain: 400, nothing stored", async () => {
    const body = JSON.stringify({ shop_id: 954889, shop_domain: MINE });
    const before = await snapshot();
    const res = await post("/webhooks/compliance", { topic: "shop/redact", shop: VICTIM, body });
    expect(res).toEqual({ status: 400, text: "shop does not match the payload" });
    expect(await snapshot()).toEqual(before);
    // The same body under its own shop is taken (the refusal was for the shop alone).
    expect(
      (await post("/webhooks/compliance", { topic: "shop/redact", shop: MINE, body })).status,
    ).toBe(200);
    expect(
      await prisma.webhookEvent.findMany({ select: { shopDomain: true, topic: true } }),
    ).toEqual([{ shopDomain: MINE, topic: "shop/redact" }]);
  });

  it("customers/data_request under another's domain: 400, nothing stored", async () => {
    const body = JSON.stringify({
      shop_id: 954889,
      shop_domain: MINE,
      customer: { id: 7 },
      orders_requested: [4001],
      data_request: { id: 1 },
    });
    const before = await snapshot();
    const res = await post("/webhooks/compliance", {
      topic: "customers/data_request",
      shop: VICTIM,
      body,
    });
    expect(res.status).toBe(400);
    expect(await snapshot()).toEqual(before);
  });

  it("app/uninstalled naming one shop, sent under another's domain: 400, the other stays installed", async () => {
    const body = JSON.stringify({
      id: 548380009,
      name: "Mine",
      domain: "mine.example",
      myshopify_domain: MINE,
    });
    const before = await snapshot();
    const res = await post("/webhooks/app/uninstalled", {
      topic: "app/uninstalled",
      shop: VICTIM,
      body,
    });
    expect(res).toEqual({ status: 400, text: "shop does not match the payload" });
    expect(await snapshot()).toEqual(before);
    const victim = await prisma.shop.findUniqueOrThrow({ where: { domain: VICTIM } });
    expect(victim.uninstalledAt).toBeNull();
    // Under its own shop: that shop, and only that shop, is uninstalled.
    expect(
      (await post("/webhooks/app/uninstalled", { topic: "app/uninstalled", shop: MINE, body }))
        .status,
    ).toBe(200);
    const after = await snapshot();
    expect(after.shops).toEqual([
      { domain: MINE, uninstalledAt: expect.any(Date) },
      { domain: VICTIM, uninstalledAt: null },
    ]);
    expect(after.sessions).toEqual([{ id: `offline_${VICTIM}` }]);
  });

  it("a header that is not a myshopify domain: 400", async () => {
    const body = JSON.stringify({ shop_id: 1, shop_domain: "evil.example.com" });
    const res = await post("/webhooks/compliance", {
      topic: "shop/redact",
      shop: "evil.example.com",
      body,
    });
    expect(res.status).toBe(400);
    expect(await prisma.webhookEvent.count()).toBe(0);
  });
});

describe("shops the app does not serve", () => {
  const STRANGER = "stranger.myshopify.com";

  it("unknown shop: every topic is acknowledged with 200 and nothing is stored or created", async () => {
    const before = await snapshot();
    const deliveries: [string, string, string][] = [
      ["/webhooks/orders/create", "orders/create", ORDER_BODY],
      [
        "/webhooks/app/uninstalled",
        "app/uninstalled",
        JSON.stringify({ id: 1, myshopify_domain: STRANGER }),
      ],
      [
        "/webhooks/compliance",
        "shop/redact",
        JSON.stringify({ shop_id: 1, shop_domain: STRANGER }),
      ],
      [
        "/webhooks/compliance",
        "customers/redact",
        JSON.stringify({
          shop_id: 1,
          shop_domain: STRANGER,
          customer: { id: 7 },
          orders_to_redact: [],
        }),
      ],
    ];
    for (const [path, topic, body] of deliveries) {
      expect((await post(path, { topic, shop: STRANGER, body })).status).toBe(200);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("uninstalled shop: orders are acknowledged and dropped; compliance and a repeated uninstall are stored", async () => {
    await prisma.shop.update({ where: { domain: MINE }, data: { uninstalledAt: new Date() } });
    const before = await snapshot();
    expect(
      (
        await post("/webhooks/orders/create", {
          topic: "orders/create",
          shop: MINE,
          body: ORDER_BODY,
        })
      ).status,
    ).toBe(200);
    expect(await snapshot()).toEqual(before);

    const redact = JSON.stringify({
      shop_id: 1,
      shop_domain: MINE,
      customer: { id: 7 },
      orders_to_redact: [4001],
    });
    expect(
      (await post("/webhooks/compliance", { topic: "customers/redact", shop: MINE, body: redact }))
        .status,
    ).toBe(200);
    const uninstall = JSON.stringify({ id: 1, myshopify_domain: MINE });
    expect(
      (
        await post("/webhooks/app/uninstalled", {
          topic: "app/uninstalled",
          shop: MINE,
          body: uninstall,
        })
      ).status,
    ).toBe(200);
    expect(
      await prisma.job.findMany({
        select: { kind: true, shopDomain: true },
        orderBy: { id: "asc" },
      }),
    ).toEqual([
      { kind: "shopify:customers/redact", shopDomain: MINE },
      { kind: "shopify:app/uninstalled", shopDomain: MINE },
    ]);
  });
});

describe("what is logged", () => {
  it("a dropped or refused delivery logs a warning with the shop and topic, never the body", async () => {
    const warn = vi.spyOn(logger, "warn");
    try {
      await post("/webhooks/orders/create", {
        topic: "orders/create",
        shop: "gone.myshopify.com",
        body: ORDER_BODY,
      });
      await post("/webhooks/compliance", { topic: "shop/redact", shop: VICTIM, body: ORDER_BODY });
      const lines = warn.mock.calls.map((call) => JSON.stringify(call));
      expect(lines).toHaveLength(2);
      expect(warn.mock.calls.map(([fields]) => fields)).toEqual([
        { shop: "gone.myshopify.com", topic: "orders/create", known: false },
        { shop: VICTIM, topic: "shop/redact" },
      ]);
      for (const line of lines) expect(line).not.toContain("ann@example.com");
    } finally {
      warn.mockRestore();
    }
  });
});

describe("bodies the parser must not choke on", () => {
  it("JSON nested 5,000 deep, validly signed: 400 with a plain message, nothing stored", async () => {
    const deep = `{"id":4002,"line_items":[${"[".repeat(5000)}${"]".repeat(5000)}]}`;
    const before = await snapshot();
    const res = await post("/webhooks/orders/create", {
      topic: "orders/create",
      shop: MINE,
      body: deep,
    });
    expect(res).toEqual({ status: 400, text: "JSON is nested deeper than 64 levels" });
    expect(await snapshot()).toEqual(before);
  });

  it("a signed body that is not JSON: 400, not 500", async () => {
    const res = await post("/webhooks/orders/create", {
      topic: "orders/create",
      shop: MINE,
      body: '{"id":1,',
    });
    expect(res).toEqual({ status: 400, text: "body is not JSON" });
    expect(await prisma.webhookEvent.count()).toBe(0);
  });
});
