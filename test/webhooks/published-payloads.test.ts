/**
 * Contract test: Shopify's documented example payload of every subscribed topic
 * (test/sim/shop/reference/webhooks-2026-07.json), signed with the app secret as Shopify signs,
 * goes through the app's real webhook route; the event is stored once with its job, and that
 * job runs without error and has the topic's effect.
 *
 * The examples' ids exist nowhere in the app's database: each test creates what it needs first.
 * The shop is a shop simulator over HTTP (the app asks it for an order before storing one);
 * an example order that should be stored is placed there under the example's id.
 */
import { createHmac, randomUUID } from "node:crypto";
import type { ActionFunctionArgs } from "@remix-run/node";
import { Session } from "@shopify/shopify-api";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { handlers } from "../../app/worker/registry.server";
import { Worker } from "../../app/worker/worker.server";
import { action as scopesUpdate } from "../../app/routes/webhooks.app.scopes_update";
import { action as uninstalled } from "../../app/routes/webhooks.app.uninstalled";
import { action as compliance } from "../../app/routes/webhooks.compliance";
import { action as ordersCancelled } from "../../app/routes/webhooks.orders.cancelled";
import { action as ordersCreate } from "../../app/routes/webhooks.orders.create";
import { action as ordersPaid } from "../../app/routes/webhooks.orders.paid";
import { action as ordersUpdated } from "../../app/routes/webhooks.orders.updated";
import { action as productsDelete } from "../../app/routes/webhooks.products.delete";
import { action as productsUpdate } from "../../app/routes/webhooks.products.update";
import { updateSettings } from "../../app/settings.server";
import { webhookSecretColumns } from "../../app/svc/webhook-secret.server";
import { recordInstall } from "../../app/shops/shops.server";
import { sessionStorage } from "../../app/shopify.server";
import { type ShopifyRoute, routeShopifyToSim } from "../sim/shop/route-shopify";
import { type ShopSim, type SimProduct, startShopSim } from "../sim/shop/server";
import { callRoute } from "../helpers/remix";
import { TEST_API_SECRET } from "../helpers/shopify-webhook";
import { webhookReference } from "../sim/shop/webhooks";

const SHOP = "published.myshopify.com";
const OTHER = "bystander.myshopify.com";

type Action = (args: ActionFunctionArgs) => unknown;
const ROUTES: Record<string, Action> = {
  "app/uninstalled": uninstalled,
  "app/scopes_update": scopesUpdate,
  "orders/create": ordersCreate,
  "orders/paid": ordersPaid,
  "orders/updated": ordersUpdated,
  "orders/cancelled": ordersCancelled,
  "products/update": productsUpdate,
  "products/delete": productsDelete,
  "customers/data_request": compliance,
  "customers/redact": compliance,
  "shop/redact": compliance,
};

/** Shopify's example for a topic, as JSON text, with its shop domain placeholder filled in. */
function exampleBody(topic: string): string {
  const example = webhookReference()[topic]?.example;
  if (!example) throw new Error(`no example for ${topic}`);
  // JSON.stringify writes every number back with the digits the reference file holds.
  return JSON.stringify(example).replaceAll("{shop}.myshopify.com", SHOP);
}

function example<T = Record<string, unknown>>(topic: string): T {
  return JSON.parse(exampleBody(topic)) as T;
}

/** POSTs a raw body to the topic's route, signed exactly as Shopify signs (HMAC of the bytes). */
async function post(topic: string, body: string, shop = SHOP) {
  const hmac = createHmac("sha256", TEST_API_SECRET).update(body, "utf8").digest("base64");
  const request = new Request(`https://app.test/webhooks/${topic}`, {
    method: "POST",
    body,
    headers: {
      "Content-Type": "application/json",
      "X-Shopify-Topic": topic,
      "X-Shopify-Shop-Domain": shop,
      "X-Shopify-Hmac-Sha256": hmac,
      "X-Shopify-Webhook-Id": randomUUID(),
      "X-Shopify-Event-Id": randomUUID(),
      "X-Shopify-Triggered-At": new Date().toISOString(),
      "X-Shopify-API-Version": "2026-07",
    },
  });
  return callRoute(ROUTES[topic]!, request);
}

/**
 * Delivers the body, checks the 200 and the one stored event with its job, runs that job alone
 * (no follow-up jobs) and returns it once completed.
 */
async function deliverAndRun(topic: string, body = exampleBody(topic)) {
  const before = await prisma.webhookEvent.count({ where: { topic } });
  const res = await post(topic, body);
  expect(res.status).toBe(200);
  const events = await prisma.webhookEvent.findMany({ where: { topic }, orderBy: { id: "desc" } });
  expect(events).toHaveLength(before + 1);
  const event = events[0]!;
  const kind = `shopify:${topic}`;
  const job = await prisma.job.findUniqueOrThrow({ where: { id: event.jobId! } });
  expect(job).toMatchObject({ kind, shopDomain: SHOP, state: "available" });
  const worker = new Worker({ prisma, handlers: { [kind]: handlers[kind]! }, concurrency: 1 });
  expect(await worker.drain()).toBe(1);
  const done = await prisma.job.findUniqueOrThrow({ where: { id: job.id } });
  expect({ state: done.state, error: done.lastError }).toEqual({ state: "completed", error: null });
  return { event, result: done.result as Record<string, unknown> };
}

async function order(shopifyOrderId: string, data: Record<string, unknown> = {}, shop = SHOP) {
  return prisma.shopOrder.create({
    data: {
      shopDomain: shop,
      shopifyOrderId,
      orderNumber: `${shop}-${shopifyOrderId}`,
      ...data,
    },
  });
}

async function connect(productId: string, variantIds: string[], shop = SHOP) {
  for (const v of variantIds) {
    await prisma.productConnection.create({
      data: {
        shopDomain: shop,
        shopifyProductId: productId,
        shopifyVariantId: v,
        svcVid: `vid-${v}`,
      },
    });
  }
}

const connectedVariants = async (productId: string) =>
  (
    await prisma.productConnection.findMany({
      where: { shopDomain: SHOP, shopifyProductId: productId },
      select: { shopifyVariantId: true },
    })
  )
    .map((c) => c.shopifyVariantId)
    .sort();

let shopSim: ShopSim;
let route: ShopifyRoute;
let accessToken: string;
let product: SimProduct;

beforeAll(async () => {
  shopSim = await startShopSim({ apiSecret: TEST_API_SECRET });
  route = routeShopifyToSim(shopSim.url);
  ({ accessToken } = shopSim.addShop(SHOP));
  product = shopSim.addProduct(SHOP, {
    title: "Example",
    variants: [{ sku: "EX-1", price: "9.00" }],
  });
});
afterAll(async () => {
  route?.restore();
  await shopSim?.close();
});

/** The shop has the order with Shopify's id `digits` (placed once). */
function inShop(digits: string) {
  const placed = shopSim.orders(SHOP).some((o) => o.id === `gid://shopify/Order/${Number(digits)}`);
  if (!placed)
    shopSim.placeOrder(SHOP, {
      id: digits,
      lines: [{ variantId: product.variants[0]!.id, quantity: 1 }],
    });
}

beforeEach(async () => {
  await prisma.job.deleteMany();
  await prisma.webhookEvent.deleteMany();
  await prisma.productConnection.deleteMany();
  await prisma.shopOrder.deleteMany();
  await prisma.session.deleteMany();
  await prisma.svcAccount.deleteMany();
  await prisma.shop.deleteMany();
  await recordInstall(prisma, SHOP, "read_orders");
  await recordInstall(prisma, OTHER, "read_orders");
  await sessionStorage.storeSession(
    new Session({
      id: `offline_${SHOP}`,
      shop: SHOP,
      state: "state",
      isOnline: false,
      accessToken,
      scope: "read_orders",
    }),
  );
});

describe("Shopify's documented example payloads through the real routes", () => {
  it("covers every subscribed topic, and each example passes its own schema (but one)", () => {
    expect(Object.keys(webhookReference()).sort()).toEqual(Object.keys(ROUTES).sort());
  });

  describe("orders/*", () => {
    const ORDER = example<{ id: number; admin_graphql_api_id: string }>("orders/create");
    // The example's `id` is already rounded by a JSON round trip: 820982911946154500, while its
    // GID says 820982911946154508. The app keeps what the payload says, digit for digit.
    const ORDER_ID = "820982911946154500";

    it("orders/create and orders/paid: the example is a cancelled order, so nothing is placed", async () => {
      expect(ORDER).toMatchObject({ cancelled_at: expect.any(String), financial_status: "voided" });
      await updateSettings(prisma, SHOP, { trigger: "orders/create" });
      await deliverAndRun("orders/create");
      await updateSettings(prisma, SHOP, { trigger: "orders/paid" });
      await deliverAndRun("orders/paid");
      expect(await prisma.shopOrder.count()).toBe(0);
      expect(await prisma.job.count({ where: { kind: "fulfilment.place" } })).toBe(0);
    });

    it("orders/paid: the example, not cancelled, becomes an order row under its exact ids", async () => {
      const body = exampleBody("orders/paid")
        .replace('"cancel_reason":"customer"', '"cancel_reason":null')
        .replace(/"cancelled_at":"[^"]+"/, '"cancelled_at":null')
        .replace('"financial_status":"voided"', '"financial_status":"paid"');
      inShop(ORDER_ID);
      const { event, result } = await deliverAndRun("orders/paid", body);
      const row = await prisma.shopOrder.findFirstOrThrow({ where: { shopDomain: SHOP } });
      expect(row).toMatchObject({
        shopifyOrderId: ORDER_ID,
        shopifyOrderName: "#9999",
        customerId: "115310627314723950",
      });
      // Stored with ids above 2^53 as their exact digits.
      expect(event.payload).toMatchObject({ id: ORDER_ID, customer: { id: "115310627314723950" } });
      // Due at once, it is placed in the delivery's own job (held here: the shop has no service
      // account yet), with no place job of its own.
      expect(result).toMatchObject({
        orderId: row.id,
        created: true,
        placed: { outcome: "held", reason: "no_account" },
      });
      expect(row.state).toBe("HELD");
      expect(await prisma.job.count({ where: { kind: "fulfilment.place" } })).toBe(0);
    });

    it("orders/create with Shopify's real digits (above 2^53) keeps them exactly", async () => {
      await updateSettings(prisma, SHOP, { trigger: "orders/create" });
      // What Shopify actually writes: the id as its full 64-bit integer, as the GID has it.
      const body = exampleBody("orders/create")
        .replace(`"id":${ORDER_ID},`, '"id":820982911946154508,')
        .replace(/"cancelled_at":"[^"]+"/, '"cancelled_at":null');
      expect(body).toContain('"id":820982911946154508,');
      inShop("820982911946154508");
      await deliverAndRun("orders/create", body);
      const row = await prisma.shopOrder.findFirstOrThrow({ where: { shopDomain: SHOP } });
      expect(row.shopifyOrderId).toBe("820982911946154508");
      expect(row.shopifyOrderId).toBe(ORDER.admin_graphql_api_id.split("/").pop());
    });

    it("orders/updated: an order held for its address is checked again", async () => {
      const held = await order(ORDER_ID, { state: "HELD", reasonCode: "invalid_address" });
      await deliverAndRun("orders/updated");
      const place = await prisma.job.findMany({
        where: { kind: { not: "shopify:orders/updated" } },
      });
      expect(place.map((j) => [j.kind, (j.payload as { orderId?: string }).orderId])).toEqual([
        ["fulfilment.place", held.id],
      ]);
    });

    it("orders/cancelled: the order, not yet paid, is cancelled", async () => {
      const received = await order(ORDER_ID, { state: "RECEIVED" });
      const other = await order(ORDER_ID, { state: "RECEIVED" }, OTHER);
      await deliverAndRun("orders/cancelled");
      const after = await prisma.shopOrder.findUniqueOrThrow({ where: { id: received.id } });
      expect(after).toMatchObject({ state: "CANCELLED", reasonCode: "cancelled_in_shop" });
      expect(after.cancelledAt).toBeInstanceOf(Date);
      // The same id in another shop is another order.
      expect((await prisma.shopOrder.findUniqueOrThrow({ where: { id: other.id } })).state).toBe(
        "RECEIVED",
      );
    });
  });

  describe("products/*", () => {
    const PRODUCT = example<{
      id: number;
      admin_graphql_api_id: string;
      variants: Record<string, unknown>[];
      variant_gids: { admin_graphql_api_id: string; updated_at: string }[];
    }>("products/update");
    const gidNumber = (gid: string) => gid.split("/").pop()!;
    const PRODUCT_ID = gidNumber(PRODUCT.admin_graphql_api_id); // 788032119674292922

    it("products/update (the example): a variant in neither list loses its connection", async () => {
      const [small, medium] = PRODUCT.variant_gids.map((v) => gidNumber(v.admin_graphql_api_id));
      await connect(PRODUCT_ID, [small!, medium!, "111"]);
      await connect(PRODUCT_ID, ["111"], OTHER);
      const { result } = await deliverAndRun("products/update");
      expect(result).toMatchObject({ connectionsRemoved: 1 });
      expect(await connectedVariants(PRODUCT_ID)).toEqual([medium!, small!].sort());
      expect(await prisma.productConnection.count({ where: { shopDomain: OTHER } })).toBe(1);
    });

    it("products/update with 150 variants: variants 101+ come only in variant_gids and keep their connections", async () => {
      // Built on the example: the first 100 variants in full, all 150 in variant_gids (the most
      // recently updated first), as Shopify's description of the topic says.
      const ids = Array.from({ length: 150 }, (_, i) => String(9_100_000_000_000_001n + BigInt(i)));
      const template = PRODUCT.variants[0]!;
      const body = JSON.stringify({
        ...PRODUCT,
        variants: ids.slice(0, 100).map((id, i) => ({
          ...template,
          id: `@${id}@`,
          admin_graphql_api_id: `gid://shopify/ProductVariant/${id}`,
          position: i + 1,
          title: `V${i + 1}`,
        })),
        variant_gids: [...ids].reverse().map((id) => ({
          admin_graphql_api_id: `gid://shopify/ProductVariant/${id}`,
          updated_at: "2022-01-01T00:00:00.000Z",
        })),
      }).replace(/"@(\d+)@"/g, "$1"); // ids as JSON integers above 2^53, as Shopify writes them
      expect(body).toContain(`"id":${ids[0]},`);
      await connect(PRODUCT_ID, [ids[0]!, ids[99]!, ids[100]!, ids[149]!, "9100000000000999"]);
      const { result } = await deliverAndRun("products/update", body);
      expect(result).toMatchObject({ connectionsRemoved: 1, variantsListed: 150 });
      expect(await connectedVariants(PRODUCT_ID)).toEqual(
        [ids[0]!, ids[99]!, ids[100]!, ids[149]!].sort(),
      );
    });

    it("products/update without variant_gids and 100 variants removes nothing (the list may be cut)", async () => {
      const ids = Array.from({ length: 100 }, (_, i) => String(5000 + i));
      const { variant_gids: _dropped, ...rest } = PRODUCT;
      const body = JSON.stringify({
        ...rest,
        id: 4242,
        admin_graphql_api_id: "gid://shopify/Product/4242",
        variants: ids.map((id) => ({
          ...PRODUCT.variants[0]!,
          id: Number(id),
          admin_graphql_api_id: `gid://shopify/ProductVariant/${id}`,
          product_id: 4242,
        })),
      });
      await connect("4242", ["5000", "7777"]);
      const { result } = await deliverAndRun("products/update", body);
      expect(result).toMatchObject({ connectionsRemoved: 0 });
      expect(await connectedVariants("4242")).toEqual(["5000", "7777"]);
      // With fewer than 100 variants the list is whole: one not in it is gone.
      const whole = JSON.parse(body) as { variants: unknown[] };
      whole.variants = whole.variants.slice(0, 99);
      await deliverAndRun("products/update", JSON.stringify(whole));
      expect(await connectedVariants("4242")).toEqual(["5000"]);
    });

    it("products/delete (the example): that product's connections go, no one else's", async () => {
      const id = String(example<{ id: number }>("products/delete").id); // 788032119674292900
      await connect(id, ["1", "2"]);
      await connect("42", ["3"]);
      await connect(id, ["4"], OTHER);
      const { result } = await deliverAndRun("products/delete");
      expect(result).toEqual({ connectionsRemoved: 2 });
      expect(await connectedVariants(id)).toEqual([]);
      expect(await connectedVariants("42")).toEqual(["3"]);
      expect(await prisma.productConnection.count({ where: { shopDomain: OTHER } })).toBe(1);
    });

    it("products/delete with ids above 2^53: the exact product, not its rounded neighbour", async () => {
      // 788032119674292922 and 788032119674292900 are the same JavaScript number.
      await connect("788032119674292922", ["10"]);
      await connect("788032119674292900", ["20"]);
      await deliverAndRun("products/delete", '{"id":788032119674292922}');
      expect(await connectedVariants("788032119674292922")).toEqual([]);
      expect(await connectedVariants("788032119674292900")).toEqual(["20"]);
    });
  });

  describe("app/*", () => {
    it("app/uninstalled: the shop is marked uninstalled, its sessions and tokens removed", async () => {
      const payload = example<{ domain: unknown; myshopify_domain: unknown }>("app/uninstalled");
      // The example names no domain at all: the shop comes from the signed header.
      expect(payload).toMatchObject({ domain: null, myshopify_domain: null });
      await prisma.session.deleteMany();
      for (const [id, shop] of [
        [`offline_${SHOP}`, SHOP],
        [`offline_${OTHER}`, OTHER],
      ]) {
        await prisma.session.create({
          data: { id: id!, shop: shop!, state: "s", accessToken: "t" },
        });
      }
      await prisma.svcAccount.create({
        data: {
          shopDomain: SHOP,
          baseUrl: "http://svc.test",
          authMethod: "apiKey",
          accessTokenEnc: "enc",
          ...webhookSecretColumns("secret-1"),
        },
      });
      await deliverAndRun("app/uninstalled");
      const shop = await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } });
      expect(shop.uninstalledAt).toBeInstanceOf(Date);
      expect(await prisma.session.findMany({ select: { shop: true } })).toEqual([{ shop: OTHER }]);
      expect(
        await prisma.svcAccount.findFirstOrThrow({
          where: { shopDomain: SHOP },
          select: { accessTokenEnc: true, webhookSecretEnc: true, webhookSecretHash: true },
        }),
      ).toEqual({ accessTokenEnc: null, webhookSecretEnc: null, webhookSecretHash: null });
    });

    it("app/scopes_update: the current scopes are recorded", async () => {
      await deliverAndRun("app/scopes_update");
      const shop = await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } });
      expect(shop.scopes).toBe("read_products,write_products");
    });
  });

  describe("compliance", () => {
    const REQUEST = example<{ customer: { id: number }; orders_requested: number[] }>(
      "customers/data_request",
    );

    async function orderEvent(id: string, customerId: string, email: string, shop = SHOP) {
      await post(
        "orders/updated",
        JSON.stringify({
          id: Number(id),
          email,
          customer: { id: Number(customerId), email },
          line_items: [],
        }),
        shop,
      );
    }

    it("customers/data_request: reports the orders of `orders_requested` and what is held of them", async () => {
      expect(REQUEST.orders_requested).toEqual([299938, 280263, 220458]);
      await order("299938", { customerId: "191167", shopifyOrderName: "#1001" });
      await order("280263", { shopifyOrderName: "#1002" }); // listed, though not linked by customer
      await order("123", { customerId: "191167", shopifyOrderName: "#1003" });
      await order("555", { customerId: "9", shopifyOrderName: "#1004" });
      await order("220458", { customerId: "191167" }, OTHER);
      await orderEvent("299938", "191167", "john@example.com");
      const { result } = await deliverAndRun("customers/data_request");
      expect(result).toMatchObject({
        customerId: "191167",
        dataRequestId: "9999",
        ordersRequested: ["299938", "280263", "220458"],
        ordersRequestedNotHeld: ["220458"],
        held: { webhookEvents: 1, topics: ["orders/updated"], orderIds: ["299938"] },
      });
      const held = (result.held as { orders: { shopifyOrderId: string; name: string }[] }).orders;
      expect(held.map((o) => [o.shopifyOrderId, o.name])).toEqual([
        ["123", "#1003"],
        ["280263", "#1002"],
        ["299938", "#1001"],
      ]);
    });

    it("customers/redact: that customer's orders and events lose their personal data", async () => {
      const john = {
        customerId: "191167",
        customerName: "John Smith",
        customerEmail: "john@example.com",
        recipient: { name: "John Smith", taxId: "123.456.789-00" },
      };
      await order("299938", john);
      await order("280263", john);
      await order("555", {
        customerId: "9",
        customerName: "Ann Lee",
        customerEmail: "ann@example.com",
      });
      await orderEvent("299938", "191167", "john@example.com");
      await orderEvent("555", "9", "ann@example.com");
      await orderEvent("299938", "191167", "john@example.com", OTHER);
      const { result } = await deliverAndRun("customers/redact");
      expect(result).toMatchObject({ customerId: "191167", eventsRedacted: 1, ordersRedacted: 2 });
      const mine = JSON.stringify(
        await prisma.webhookEvent.findMany({
          where: { shopDomain: SHOP },
          select: { payload: true },
        }),
      );
      expect(mine).not.toContain("john@example.com");
      expect(mine).not.toContain("555-625-1199"); // the request's own phone
      expect(mine).toContain("ann@example.com");
      expect(await prisma.shopOrder.count({ where: { customerId: "191167" } })).toBe(0);
      expect(await prisma.shopOrder.count({ where: { customerId: "9" } })).toBe(1);
      // Names, emails and the merchant's address corrections on the order rows go too.
      const rows = JSON.stringify(
        await prisma.shopOrder.findMany({
          where: { shopDomain: SHOP, shopifyOrderId: { not: "555" } },
        }),
      );
      expect(rows).not.toContain("John Smith");
      expect(rows).not.toContain("john@example.com");
      expect(rows).not.toContain("123.456.789-00");
      const ann = await prisma.shopOrder.findFirstOrThrow({ where: { shopifyOrderId: "555" } });
      expect([ann.customerName, ann.customerEmail]).toEqual(["Ann Lee", "ann@example.com"]);
      // Another shop's data is not this request's business.
      expect(
        JSON.stringify(
          await prisma.webhookEvent.findMany({
            where: { shopDomain: OTHER },
            select: { payload: true },
          }),
        ),
      ).toContain("john@example.com");
    });

    it("shop/redact: everything of the shop goes, and only of that shop", async () => {
      await order("1", { customerId: "7" });
      await order("1", { customerId: "7" }, OTHER);
      await connect("10", ["11"]);
      await connect("10", ["11"], OTHER);
      await orderEvent("1", "7", "a@example.com");
      await deliverAndRun("shop/redact");
      expect(await prisma.shop.findUnique({ where: { domain: SHOP } })).toBeNull();
      expect(await prisma.shopOrder.count({ where: { shopDomain: SHOP } })).toBe(0);
      expect(await prisma.productConnection.count({ where: { shopDomain: SHOP } })).toBe(0);
      expect(await prisma.webhookEvent.count({ where: { shopDomain: SHOP } })).toBe(0);
      expect(await prisma.shop.count({ where: { domain: OTHER } })).toBe(1);
      expect(await prisma.shopOrder.count({ where: { shopDomain: OTHER } })).toBe(1);
      expect(await prisma.productConnection.count({ where: { shopDomain: OTHER } })).toBe(1);
    });
  });
});
