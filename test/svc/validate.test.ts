import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcResponseError, SvcValidationError } from "../../app/svc/errors";
import { svcClient } from "../../app/svc/client.server";
import { Agent } from "undici";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { closeSvcPools } from "../../app/svc/transport.server";

let hits = 0;
const server = createServer((_req, res) => {
  hits++;
  res.end(JSON.stringify({ code: 200, data: true }));
});

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
});
afterAll(async () => {
  await closeSvcPools();
  await new Promise((r) => server.close(r));
});

function client() {
  const { port } = server.address() as AddressInfo;
  return svcClient({
    baseUrl: `http://127.0.0.1:${port}`,
    tokens: { getToken: async () => "t0k3n", onTokenRejected: async () => {} },
  });
}

const order = {
  orderNumber: "A-1",
  shippingCountryCode: "US",
  shippingCountry: "United States",
  shippingProvince: "CA",
  shippingCity: "LA",
  shippingCustomerName: "Jo",
  shippingAddress: "1 Main St",
  logisticName: "PostNL",
  fromCountryCode: "CN",
  products: [{ vid: "v1", quantity: 1 }],
};

async function rejectsField(p: Promise<unknown>, field: string) {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(SvcValidationError);
  expect((e as SvcValidationError).field).toBe(field);
  expect((e as Error).message).toContain(field);
}

describe("request validation before sending", () => {
  it("names the missing or too long field and makes no call", async () => {
    const c = client();
    hits = 0;
    await rejectsField(
      c.orders.createOrderV3({ ...order, orderNumber: "x".repeat(51) }),
      "orderNumber",
    );
    await rejectsField(c.orders.createOrderV3({ ...order, shippingCity: "" }), "shippingCity");
    await rejectsField(c.orders.createOrderV3({ ...order, products: [] }), "products");
    await rejectsField(
      c.orders.createOrderV3({ ...order, products: [{ quantity: 1 }] }),
      "products[0].vid|sku",
    );
    await rejectsField(
      c.orders.createOrderV2({
        ...order,
        products: [{ vid: "v", quantity: 1, variantOptions: "o".repeat(101) }],
      }),
      "products[0].variantOptions",
    );
    // V3 allows 200 characters of variantOptions where V2 allows 100.
    await expect(
      c.orders.createOrderV3({
        ...order,
        products: [{ vid: "v", quantity: 1, variantOptions: "o".repeat(101) }],
      }),
    ).rejects.toBeInstanceOf(SvcResponseError); // sent: this test server answers `true`
    expect(hits).toBe(1);
    hits = 0;
    await rejectsField(c.orders.getOrderDetailBatch([]), "orderIds");
    await rejectsField(
      c.orders.getOrderDetailBatch(Array.from({ length: 101 }, (_, i) => `o${i}`)),
      "orderIds",
    );
    await rejectsField(c.logistics.updateSandboxTrackNumber("o1", "t".repeat(65)), "trackNumber");
    await rejectsField(c.disputes.reply({ disputeId: "d1", messageText: "   " }), "messageText");
    await rejectsField(
      c.disputes.reply({ disputeId: "d1", messageText: "m".repeat(501) }),
      "messageText",
    );
    await rejectsField(c.disputes.messagesPage("d1", 1, 51), "pageSize");
    await rejectsField(c.catalog.listV2({ page: 1001 }), "page");
    await rejectsField(c.catalog.listV2({ size: 101 }), "size");
    await rejectsField(c.catalog.list({ pageSize: 201 }), "pageSize");
    await rejectsField(c.connections.list({ pageSize: 101 }), "pageSize");
    await rejectsField(
      c.connections.create({
        defaultArea: 1,
        logistics: "x",
        svcProductId: "p",
        platformProductId: "pp",
        variantList: [],
      }),
      "variantList",
    );
    await rejectsField(c.connections.delete({ platformProductId: "" }), "platformProductId");
    await rejectsField(c.auth.getAccessToken(""), "apiKey");
    await rejectsField(c.auth.refreshAccessToken("r".repeat(81)), "refreshToken");
    await rejectsField(c.auth.getAuthorizeUrl({ userName: "u".repeat(41) }), "userName");
    await rejectsField(
      c.catalog.product({ pid: "", productSku: "" } as never),
      "pid|productSku|variantSku",
    );
    await rejectsField(c.disputes.list({ startDate: 0, endDate: 91 * 24 * 3600_000 }), "endDate");
    await rejectsField(c.disputes.list({ startDate: 0 }), "startDate|endDate");
    await rejectsField(
      c.webhooks.set({ order: { type: "ENABLE", callbackUrls: ["https://a", "https://b"] } }),
      "order.callbackUrls",
    );
    await rejectsField(c.payment.payBalanceV2(""), "shipmentOrderId");
    await rejectsField(c.inventory.querySkuListByProductId({ productId: "" }), "productId");
    await rejectsField(c.warehouses.orderPhotos([]), "orderIdList");
    expect(hits).toBe(0);
  });

  it("uses an injected dispatcher", async () => {
    const agent = new Agent();
    const { port } = server.address() as AddressInfo;
    const c = svcClient({
      baseUrl: `http://127.0.0.1:${port}`,
      dispatcher: agent,
      tokens: { getToken: async () => "t", onTokenRejected: async () => {} },
    });
    hits = 0;
    await expect(c.catalog.addToMyProduct("p1")).resolves.toBe(true);
    expect(hits).toBe(1);
    await agent.close();
  });
});
