/**
 * Webhooks from the shop simulator reach the app's own routes (behind a tiny node:http server)
 * and pass `authenticate.webhook`: a real HMAC is accepted, a forged one is refused.
 */
import type { ActionFunctionArgs } from "@remix-run/node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { action as uninstalled } from "../../app/routes/webhooks.app.uninstalled";
import { action as ordersCreate } from "../../app/routes/webhooks.orders.create";
import { action as productsUpdate } from "../../app/routes/webhooks.products.update";
import { recordInstall } from "../../app/shops/shops.server";
import { handlers } from "../../app/worker/registry.server";
import { Worker } from "../../app/worker/worker.server";
import { serveRoutes } from "../helpers/app-server";
import { type ShopSim, startShopSim } from "../sim/shop/server";
import { appUninstalledPayload, webhookPayloadErrors } from "../sim/shop/webhooks";

const SHOP = "hooks-test.myshopify.com";
const routes: Record<string, (args: ActionFunctionArgs) => unknown> = {
  "/webhooks/app/uninstalled": uninstalled,
  "/webhooks/orders/create": ordersCreate,
  "/webhooks/products/update": productsUpdate,
};

let sim: ShopSim;
let app: Awaited<ReturnType<typeof serveRoutes>>;

beforeAll(async () => {
  app = await serveRoutes(routes);
  sim = await startShopSim({ appUrl: app.url, apiSecret: "test-api-secret" });
  sim.addShop(SHOP);
});

// Webhooks are taken for installed shops only (and one test below uninstalls it).
beforeEach(() => recordInstall(prisma, SHOP, "read_orders"));

afterAll(async () => {
  await sim.close();
  await app.close();
});

const events = (topic: string) =>
  prisma.webhookEvent.findMany({ where: { shopDomain: SHOP, topic } });

describe("shop simulator webhooks into the app", () => {
  it("orders/create with a valid HMAC is accepted and stored with its REST payload", async () => {
    const p = sim.addProduct(SHOP, {
      title: "Lamp",
      variants: [{ sku: "LAMP-1", price: "30.00" }],
    });
    const o = sim.placeOrder(SHOP, { lines: [{ variantId: p.variants[0]!.id, quantity: 2 }] });
    const payload = sim.orderWebhookPayload(SHOP, o.id);
    const res = await sim.sendWebhook(SHOP, "orders/create", payload, { eventId: "evt-create-1" });
    expect(res.status).toBe(200);
    const stored = await events("orders/create");
    expect(stored).toHaveLength(1);
    expect(stored[0]!.eventKey).toBe("evt-create-1");
    expect(stored[0]!.payload).toMatchObject({
      id: o.legacyId,
      admin_graphql_api_id: o.id,
      financial_status: "paid",
      line_items: [
        {
          id: o.lineItems[0]!.legacyId,
          admin_graphql_api_id: o.lineItems[0]!.id,
          sku: "LAMP-1",
          quantity: 2,
          price: "30.00",
          variant_id: p.variants[0]!.legacyId,
        },
      ],
    });
  });

  it("a redelivery with the same event id is acknowledged and stored once", async () => {
    const p = sim.addProduct(SHOP, { title: "Dup", variants: [{ sku: "DUP", price: "1.00" }] });
    const payload = sim.productWebhookPayload(SHOP, p.id);
    expect(
      (await sim.sendWebhook(SHOP, "products/update", payload, { eventId: "evt-dup" })).status,
    ).toBe(200);
    expect(
      (await sim.sendWebhook(SHOP, "products/update", payload, { eventId: "evt-dup" })).status,
    ).toBe(200);
    expect((await events("products/update")).filter((e) => e.eventKey === "evt-dup")).toHaveLength(
      1,
    );
  });

  it("a forged HMAC is refused with 401 and nothing is stored", async () => {
    const res = await sim.sendWebhook(
      SHOP,
      "orders/create",
      { id: 7 },
      { forge: true, eventId: "evt-forged" },
    );
    expect(res.status).toBe(401);
    expect(await prisma.webhookEvent.count({ where: { eventKey: "evt-forged" } })).toBe(0);
  });

  it("app/uninstalled with a valid HMAC marks the shop uninstalled; forged changes nothing", async () => {
    await recordInstall(prisma, SHOP, "read_orders");
    expect(
      (await sim.sendWebhook(SHOP, "app/uninstalled", appUninstalledPayload(SHOP), { forge: true }))
        .status,
    ).toBe(401);
    expect(
      (await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } })).uninstalledAt,
    ).toBeNull();
    expect(
      (await sim.sendWebhook(SHOP, "app/uninstalled", appUninstalledPayload(SHOP))).status,
    ).toBe(200);
    expect(
      (await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } })).uninstalledAt,
    ).toBeInstanceOf(Date);
  });

  it("products/update of a 150-variant product: variants 101+ (only in variant_gids) stay connected", async () => {
    const p = sim.addProduct(SHOP, {
      title: "Many",
      optionNames: ["Number"],
      variants: Array.from({ length: 150 }, (_, i) => ({
        sku: `MANY-${i + 1}`,
        price: "2.00",
        options: [String(i + 1)],
      })),
    });
    const connected = [0, 99, 100, 149].map((i) => String(p.variants[i]!.legacyId));
    for (const v of [...connected, "1"]) {
      await prisma.productConnection.create({
        data: {
          shopDomain: SHOP,
          shopifyProductId: String(p.legacyId),
          shopifyVariantId: v,
          svcVid: `vid-${v}`,
        },
      });
    }
    const payload = sim.productWebhookPayload(SHOP, p.id) as {
      variants: unknown[];
      variant_gids: unknown[];
    };
    expect([payload.variants.length, payload.variant_gids.length]).toEqual([100, 150]);
    expect(webhookPayloadErrors("products/update", payload)).toEqual([]);
    const res = await sim.sendWebhook(SHOP, "products/update", payload, { eventId: "evt-many" });
    expect(res.status).toBe(200);
    const kind = "shopify:products/update";
    await new Worker({ prisma, handlers: { [kind]: handlers[kind]! } }).drain();
    const [event] = await prisma.webhookEvent.findMany({ where: { eventKey: "evt-many" } });
    const job = await prisma.job.findUniqueOrThrow({ where: { id: event!.jobId! } });
    expect(job.state).toBe("completed");
    const left = await prisma.productConnection.findMany({
      where: { shopDomain: SHOP, shopifyProductId: String(p.legacyId) },
      select: { shopifyVariantId: true },
    });
    // The variant "1" is in neither list: its connection goes; the 150 variants keep theirs.
    expect(left.map((c) => c.shopifyVariantId).sort()).toEqual([...connected].sort());
  });
});
