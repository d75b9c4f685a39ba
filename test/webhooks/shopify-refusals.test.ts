/**
 * The Shopify webhook edge, request by request: what is refused, with which status and text,
 * before anything is stored (the method, the shop header, the signature, the body's size,
 * the topic, the shop the payload names), what is taken (with Shopify's trigger time when it
 * is a time), and what is logged: a refusal or a drop names its shop and topic; a stored event
 * logs nothing; the event is stored with the shop in the log context.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { prisma } from "../../app/db.server";
import { currentLogContext, withLogContext } from "../../app/log-context.server";
import { logger } from "../../app/logger.server";
import { recordInstall } from "../../app/shops/shops.server";
import { receiveShopifyWebhook, type ShopifyWebhookRoute } from "../../app/webhooks/shopify.server";
import { shopifyWebhookRequest } from "../helpers/shopify-webhook";

const SHOP = "mine.myshopify.com";
const URL = "https://app.test/webhooks/orders/create";
const ORDER = { id: 4001, line_items: [{ id: 40010 }] };
const ORDERS: ShopifyWebhookRoute = { topics: ["orders/create"] };

type Opts = Partial<Parameters<typeof shopifyWebhookRequest>[1]>;
const request = (opts: Opts = {}) =>
  shopifyWebhookRequest(URL, { topic: "orders/create", shop: SHOP, body: ORDER, ...opts });

async function deliver(req: Request, route = ORDERS) {
  const res = await receiveShopifyWebhook(req, route);
  return {
    status: res.status,
    type: res.headers.get("Content-Type"),
    text: await res.text(),
  };
}

const stored = () =>
  prisma.webhookEvent.findMany({ select: { shopDomain: true, topic: true, triggeredAt: true } });

let warn: ReturnType<typeof vi.spyOn>;
beforeEach(async () => {
  await prisma.job.deleteMany();
  await prisma.webhookEvent.deleteMany();
  await prisma.shop.deleteMany();
  await recordInstall(prisma, SHOP, "read_orders");
  warn = vi.spyOn(logger, "warn");
});
afterEach(() => warn.mockRestore());

const PLAIN = "text/plain; charset=utf-8";

describe("refused before anything is stored", () => {
  it("a method other than POST: 405", async () => {
    const req = new Request(URL, { method: "PUT", body: "{}" });
    expect((await deliver(req)).status).toBe(405);
    expect(await stored()).toEqual([]);
  });

  it.each([
    ["a subdomain of a shop's domain", "x.mine.myshopify.com"],
    ["a myshopify domain followed by more", "mine.myshopify.com.evil.example"],
    ["no shop header", null],
  ])("a shop header that is not a myshopify domain (%s): 400", async (_name, shop) => {
    const req = request({ headers: { "X-Shopify-Shop-Domain": shop } });
    expect(await deliver(req)).toEqual({
      status: 400,
      type: PLAIN,
      text: "shop is not a myshopify.com domain",
    });
    expect(await stored()).toEqual([]);
  });

  it("a forged signature: 401; a missing one: 400, not a Shopify webhook", async () => {
    expect(await deliver(request({ secret: "not-the-app-secret" }))).toMatchObject({
      status: 401,
      text: "",
    });
    expect(await deliver(request({ headers: { "X-Shopify-Hmac-Sha256": null } }))).toEqual({
      status: 400,
      type: PLAIN,
      text: "not a Shopify webhook",
    });
    expect(await stored()).toEqual([]);
  });

  it("a body over the limit (1 MiB): 413", async () => {
    const big = JSON.stringify({ ...ORDER, note: "x".repeat(1024 * 1024) });
    const res = await deliver(request({ rawBody: big }));
    expect(res).toMatchObject({ status: 413, text: "body is larger than 1048576 bytes" });
    expect(await stored()).toEqual([]);
  });

  it("a connection that breaks mid-body is an error, not a refusal", async () => {
    const req = request();
    const broken = new Request(req.url, {
      method: "POST",
      headers: req.headers,
      body: new ReadableStream({
        pull: (controller) => controller.error(new Error("connection reset")),
      }),
      duplex: "half",
    } as RequestInit);
    await expect(receiveShopifyWebhook(broken, ORDERS)).rejects.toThrow("connection reset");
    expect(await stored()).toEqual([]);
  });

  it("a topic the route does not take: 400, logged with the shop and the topic's start", async () => {
    const topic = `orders/${"x".repeat(100)}`;
    expect(await deliver(request({ topic }))).toEqual({
      status: 400,
      type: PLAIN,
      text: "topic not accepted on this route",
    });
    expect(warn.mock.calls).toEqual([
      [
        { shop: SHOP, topic: topic.slice(0, 64) },
        "Shopify webhook refused: topic not this route's",
      ],
    ]);
    expect(await stored()).toEqual([]);
  });

  it("a payload naming another shop: 400, logged with the reason", async () => {
    const route: ShopifyWebhookRoute = { topics: ["shop/redact"] };
    const req = request({
      topic: "shop/redact",
      body: { shop_id: 1, shop_domain: "other.myshopify.com" },
    });
    expect(await deliver(req, route)).toEqual({
      status: 400,
      type: PLAIN,
      text: "shop does not match the payload",
    });
    expect(warn.mock.calls).toEqual([
      [
        { shop: SHOP, topic: "shop/redact" },
        "Shopify webhook refused: shop does not match the payload",
      ],
    ]);
    expect(await stored()).toEqual([]);
  });
});

describe("taken", () => {
  it("200 with no body, stored with Shopify's trigger time, the shop in the log context, nothing logged", async () => {
    const at = "2026-11-23T10:15:30.123Z";
    let context: object | undefined;
    const route: ShopifyWebhookRoute = {
      topics: ["orders/create"],
      inline: async () => {
        context = currentLogContext();
      },
    };
    const res = await withLogContext({ requestId: "req-1" }, () =>
      deliver(request({ headers: { "X-Shopify-Triggered-At": at } }), route),
    );
    expect(res).toEqual({ status: 200, type: null, text: "" });
    expect(await stored()).toEqual([
      { shopDomain: SHOP, topic: "orders/create", triggeredAt: new Date(at) },
    ]);
    expect(context).toEqual({ requestId: "req-1", shop: SHOP });
    expect(warn).not.toHaveBeenCalled();
  });

  it("a trigger time that is not a time is left out; the event is stored", async () => {
    const req = request({ headers: { "X-Shopify-Triggered-At": "yesterday-ish" } });
    expect((await deliver(req)).status).toBe(200);
    expect(await stored()).toEqual([
      { shopDomain: SHOP, topic: "orders/create", triggeredAt: null },
    ]);
  });

  it("an uninstalled shop's order: 200, not stored, logged as a known shop", async () => {
    await prisma.shop.update({ where: { domain: SHOP }, data: { uninstalledAt: new Date() } });
    expect((await deliver(request())).status).toBe(200);
    expect(await stored()).toEqual([]);
    expect(warn.mock.calls).toEqual([
      [
        { shop: SHOP, topic: "orders/create", known: true },
        "Shopify webhook for a shop that is not installed: acknowledged, not stored",
      ],
    ]);
  });
});
