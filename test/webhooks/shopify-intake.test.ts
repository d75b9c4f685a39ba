import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { handlers } from "../../app/worker/registry.server";
import { Worker } from "../../app/worker/worker.server";
import { action as compliance } from "../../app/routes/webhooks.compliance";
import { action as ordersCreate } from "../../app/routes/webhooks.orders.create";
import { action as scopesUpdate } from "../../app/routes/webhooks.app.scopes_update";
import { recordInstall } from "../../app/shops/shops.server";
import { callRoute } from "../helpers/remix";
import { shopifyWebhookRequest } from "../helpers/shopify-webhook";

const SHOP = "intake.myshopify.com";
const worker = () => new Worker({ prisma, handlers, concurrency: 2 });

function orderPayload(id: number, customerId: number, email: string) {
  return { id, email, customer: { id: customerId, email }, line_items: [{ id: id * 10 }] };
}

beforeEach(async () => {
  await prisma.job.deleteMany();
  await prisma.webhookEvent.deleteMany();
  await prisma.shop.deleteMany();
  await recordInstall(prisma, SHOP, "read_orders");
});

describe("Shopify webhook intake", () => {
  it("100 concurrent deliveries of one event: one stored event, one job, one run", async () => {
    const deliveries = Array.from({ length: 100 }, () =>
      callRoute(
        ordersCreate,
        shopifyWebhookRequest("https://app.test/webhooks/orders/create", {
          topic: "orders/create",
          shop: SHOP,
          body: orderPayload(1001, 7, "ann@example.com"),
          eventId: "event-1001",
        }),
      ),
    );
    const statuses = (await Promise.all(deliveries)).map((r) => r.status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(await prisma.webhookEvent.count()).toBe(1);
    expect(await prisma.job.count()).toBe(1);
    expect(await worker().drain()).toBe(1);
    expect(await prisma.job.count({ where: { state: "completed" } })).toBe(1);
    expect(await worker().drain()).toBe(0);
  });

  it("dedupes on the webhook id when there is no event id", async () => {
    const send = () =>
      callRoute(
        ordersCreate,
        shopifyWebhookRequest("https://app.test/webhooks/orders/create", {
          topic: "orders/create",
          shop: SHOP,
          body: orderPayload(1, 1, "a@example.com"),
          eventId: "",
          webhookId: "webhook-77",
        }),
      );
    await send();
    await send();
    const events = await prisma.webhookEvent.findMany();
    expect(events.map((e) => e.eventKey)).toEqual(["webhook-77"]);
  });

  it("stores the event and its job in one go, with the topic as Shopify spells it", async () => {
    await callRoute(
      ordersCreate,
      shopifyWebhookRequest("https://app.test/webhooks/orders/create", {
        topic: "orders/create",
        shop: SHOP,
        body: orderPayload(5, 5, "e@example.com"),
      }),
    );
    const event = await prisma.webhookEvent.findFirstOrThrow();
    const job = await prisma.job.findFirstOrThrow();
    expect(event).toMatchObject({ source: "shopify", shopDomain: SHOP, topic: "orders/create" });
    expect(event.jobId).toBe(job.id);
    expect(job).toMatchObject({ kind: "shopify:orders/create", shopDomain: SHOP });
    expect(job.payload).toEqual({ eventId: String(event.id) });
  });

  it("a forged delivery gets 401 and stores nothing", async () => {
    const res = await callRoute(
      ordersCreate,
      shopifyWebhookRequest("https://app.test/webhooks/orders/create", {
        topic: "orders/create",
        shop: SHOP,
        body: orderPayload(1, 1, "a@example.com"),
        secret: "forged",
      }),
    );
    expect(res.status).toBe(401);
    expect(await prisma.webhookEvent.count()).toBe(0);
    expect(await prisma.job.count()).toBe(0);
  });

  it("app/scopes_update records the granted scopes", async () => {
    await callRoute(
      scopesUpdate,
      shopifyWebhookRequest("https://app.test/webhooks/app/scopes_update", {
        topic: "app/scopes_update",
        shop: SHOP,
        body: { id: 1, previous: ["read_orders"], current: ["read_orders", "write_products"] },
      }),
    );
    await worker().drain();
    const shop = await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } });
    expect(shop.scopes).toBe("read_orders,write_products");
  });
});

describe("compliance webhooks", () => {
  async function deliver(topic: string, body: unknown, shop = SHOP) {
    const res = await callRoute(
      compliance,
      shopifyWebhookRequest("https://app.test/webhooks/compliance", { topic, shop, body }),
    );
    expect(res.status).toBe(200);
  }
  async function seedOrders() {
    for (const [id, customer, email] of [
      [1, 7, "ann@example.com"],
      [2, 7, "ann@example.com"],
      [3, 8, "bob@example.com"],
    ] as const) {
      await callRoute(
        ordersCreate,
        shopifyWebhookRequest("https://app.test/webhooks/orders/create", {
          topic: "orders/create",
          shop: SHOP,
          body: orderPayload(id, customer, email),
        }),
      );
    }
  }

  it("customers/data_request records what the app holds about the customer", async () => {
    await seedOrders();
    await deliver("customers/data_request", {
      shop_domain: SHOP,
      shop_id: 1,
      customer: { id: 7, email: "ann@example.com" },
      orders_requested: [1, 2],
      data_request: { id: 9 },
    });
    await worker().drain();
    const job = await prisma.job.findFirstOrThrow({
      where: { kind: "shopify:customers/data_request" },
    });
    expect(job.state).toBe("completed");
    expect(job.result).toMatchObject({
      customerId: "7",
      dataRequestId: "9",
      ordersRequested: ["1", "2"],
      held: { webhookEvents: 2, topics: ["orders/create"], orderIds: ["1", "2"] },
    });
  });

  it("customers/redact removes that customer's data and no one else's", async () => {
    await seedOrders();
    await deliver("customers/redact", {
      shop_domain: SHOP,
      shop_id: 1,
      customer: { id: 7, email: "ann@example.com", phone: "+15550000" },
      orders_to_redact: [1, 2],
    });
    await worker().drain();
    const all = JSON.stringify(await prisma.webhookEvent.findMany({ select: { payload: true } }));
    expect(all).not.toContain("ann@example.com");
    expect(all).not.toContain("+15550000");
    expect(all).toContain("bob@example.com");
  });

  it("shop/redact deletes everything of that shop, and only of that shop", async () => {
    await seedOrders();
    await recordInstall(prisma, "other.myshopify.com");
    await prisma.svcAccount.create({
      data: { shopDomain: SHOP, baseUrl: "http://svc.test", authMethod: "apiKey" },
    });
    await deliver("shop/redact", { shop_domain: SHOP, shop_id: 1 });
    await worker().drain();
    expect(await prisma.shop.findUnique({ where: { domain: SHOP } })).toBeNull();
    expect(await prisma.webhookEvent.count({ where: { shopDomain: SHOP } })).toBe(0);
    expect(await prisma.svcAccount.count({ where: { shopDomain: SHOP } })).toBe(0);
    expect(
      await prisma.job.count({ where: { shopDomain: SHOP, NOT: { kind: "shopify:shop/redact" } } }),
    ).toBe(0);
    expect(await prisma.shop.count({ where: { domain: "other.myshopify.com" } })).toBe(1);
  });
});
