import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceSim, type ServiceSim } from "./index";
import { client, orderBody, receiver, variants } from "./test-helpers";

let sim: ServiceSim;
beforeAll(async () => {
  sim = await startServiceSim({ catalogSize: 60, allowLoopbackWebhooks: true });
});
afterAll(() => sim.close());

describe("createOrderV3", () => {
  it("creates a catalog-flow order with exact amounts", async () => {
    const c = await client(sim);
    const [v1, v2] = variants(sim, 2);
    const res = await c.post(
      "/shopping/order/createOrderV3",
      orderBody("A-1", [
        { vid: v1?.vid, quantity: 2, storeLineItemId: "L1" },
        { sku: v2?.sku, quantity: 1 },
      ]),
    );
    expect(res.code).toBe(200);
    expect(res.data.orderId).toMatch(/^SO/);
    expect(res.data.orderStatus).toBe("CREATED");
    const order = sim.order(res.data.orderId as string);
    expect(order?.productAmount).toBe((v1?.sellPrice ?? 0n) * 2n + (v2?.sellPrice ?? 0n));
    // USPS: 3.99 + 0.80 per extra item, 3 items.
    expect(order?.postageAmount).toBe(399n + 160n);
    expect(res.data.productInfoList[0]).toMatchObject({
      storeLineItemId: "L1",
      variantId: v1?.vid,
      quantity: 2,
    });
  });

  it("refuses a missing province where the destination needs one (1600100), accepts none elsewhere", async () => {
    const c = await client(sim);
    const [v] = variants(sim, 1);
    const line = [{ vid: v?.vid, quantity: 1 }];
    for (const shippingProvince of [undefined, "", null]) {
      const res = await c.post(
        "/shopping/order/createOrderV3",
        orderBody(`PROV-US-${String(shippingProvince)}`, line, { shippingProvince }),
      );
      expect(res.code).toBe(1600100);
      expect(res.message).toContain("shippingProvince");
    }
    expect(sim.orders({ accountId: c.accountId })).toHaveLength(0);
    const gb = await c.post(
      "/shopping/order/createOrderV3",
      orderBody("PROV-GB", line, {
        shippingProvince: undefined,
        shippingCountryCode: "GB",
        shippingCountry: "United Kingdom",
        shippingCity: "Leeds",
        logisticName: "SvcPacket Ordinary",
      }),
    );
    expect(gb.code).toBe(200);
    expect(sim.order(gb.data.orderId as string)?.shipping.province).toBeUndefined();
  });

  it("refuses a duplicate orderNumber with 1603003", async () => {
    const c = await client(sim);
    const [v] = variants(sim, 1);
    expect(
      (
        await c.post(
          "/shopping/order/createOrderV3",
          orderBody("DUP-1", [{ vid: v?.vid, quantity: 1 }]),
        )
      ).code,
    ).toBe(200);
    const again = await c.post(
      "/shopping/order/createOrderV3",
      orderBody("DUP-1", [{ vid: v?.vid, quantity: 1 }]),
    );
    expect(again.code).toBe(1603003);
    expect(
      sim.orders({ accountId: c.accountId }).filter((o) => o.orderNumber === "DUP-1"),
    ).toHaveLength(1);
    // Order numbers are per account.
    const other = await client(sim);
    expect(
      (
        await other.post(
          "/shopping/order/createOrderV3",
          orderBody("DUP-1", [{ vid: v?.vid, quantity: 1 }]),
        )
      ).code,
    ).toBe(200);
  });

  it("validates required fields and lengths with 1600100", async () => {
    const c = await client(sim);
    const [v] = variants(sim, 1);
    const line = [{ vid: v?.vid, quantity: 1 }];
    const cases: Array<[Record<string, unknown>, string]> = [
      [orderBody("x".repeat(51), line), "orderNumber"],
      [orderBody("V-1", line, { shippingCity: undefined }), "shippingCity"],
      [orderBody("V-2", line, { shippingPhone: "1".repeat(21) }), "shippingPhone"],
      [orderBody("V-3", []), "products"],
      [orderBody("V-4", [{ quantity: 1 }]), "vid and sku"],
      [
        orderBody("V-5", [{ vid: v?.vid, quantity: 1, storeLineItemId: "x".repeat(126) }]),
        "storeLineItemId",
      ],
      [orderBody("V-6", [{ vid: "not-a-variant", quantity: 1 }]), "not found"],
    ];
    for (const [body, needle] of cases) {
      const res = await c.post("/shopping/order/createOrderV3", body);
      expect(res.code, needle).toBe(1600100);
      expect(res.message).toContain(needle);
    }
    const badLogistics = await c.post(
      "/shopping/order/createOrderV3",
      orderBody("V-7", line, { logisticName: "Teleport" }),
    );
    expect(badLogistics.code).toBe(1605001);
    const flowOnV2 = await c.post(
      "/shopping/order/createOrderV2",
      orderBody("V-8", line, { orderFlow: 2 }),
    );
    expect(flowOnV2.code).toBe(1600100);
    expect(sim.orders({ accountId: c.accountId })).toHaveLength(0);
  });

  it("store flow: an unconnected line creates a shop product, no order id, until connected", async () => {
    const c = await client(sim);
    const rx = await receiver();
    try {
      expect(
        (await c.post("/webhook/set", { order: { type: "ENABLE", callbackUrls: [rx.url] } })).code,
      ).toBe(200);
      const [v] = variants(sim, 1);
      const res = await c.post(
        "/shopping/order/createOrderV3",
        orderBody(
          "SF-1",
          [
            {
              vid: "shop-variant-1",
              storeProductId: "shop-product-1",
              storeProductImg: "https://shop.test/1.jpg",
              storeLineItemId: "li-1",
              quantity: 3,
            },
          ],
          { orderFlow: 2 },
        ),
      );
      expect(res.code).toBe(200);
      expect(res.data).not.toHaveProperty("orderId");
      expect(res.data.orderNumber).toBe("SF-1");
      const pending = sim.order("SF-1");
      expect(pending?.invalid).toBe(true);
      expect(sim.state.shopProducts).toContainEqual(
        expect.objectContaining({
          accountId: c.accountId,
          storeProductId: "shop-product-1",
          storeVariantId: "shop-variant-1",
        }),
      );
      expect(sim.state.connections.filter((x) => x.accountId === c.accountId)).toHaveLength(0);
      // Invisible to the batch query while invalid.
      expect(
        (await c.post("/shopping/order/getOrderDetailBatch", { orderIds: ["SF-1"] })).data,
      ).toEqual([]);

      // The merchant connects it with the connections endpoint.
      const conn = await c.post("/product/conn/connection", {
        defaultArea: 1,
        logistics: "USPS",
        svcProductId: v?.pid,
        platformProductId: "shop-product-1",
        variantList: [{ svcVariantId: v?.vid, platformVariantId: "shop-variant-1" }],
      });
      expect(conn).toMatchObject({ code: 200, data: true });
      await sim.deliverPendingWebhooks();
      const connected = rx.received.find((r) => r.body.messageType === "ORDER_CONNNECTED");
      expect(connected?.body).toMatchObject({
        type: "ORDER",
        openId: c.openId,
        params: { orderNumber: "SF-1" },
      });
      const orderId = connected?.body.params.orderId as string;
      expect(orderId).toMatch(/^SO/);
      const found = await c.post("/shopping/order/getOrderDetailBatch", { orderIds: [orderId] });
      expect(found.data[0]).toMatchObject({ orderId, orderNum: "SF-1", orderStatus: "CREATED" });
      expect(found.data[0].productList[0]).toMatchObject({
        vid: v?.vid,
        quantity: 3,
        storeLineItemId: "li-1",
      });
      expect(sim.order(orderId)?.productAmount).toBe((v?.sellPrice ?? 0n) * 3n);

      // A connected shop variant goes straight through next time.
      const next = await c.post(
        "/shopping/order/createOrderV3",
        orderBody(
          "SF-2",
          [{ vid: "shop-variant-1", storeProductId: "shop-product-1", quantity: 1 }],
          { orderFlow: 2 },
        ),
      );
      expect(next.data.orderId).toMatch(/^SO/);
      expect((await c.get("/product/conn/connection")).data).toMatchObject({
        total: 1,
        list: [{ platformVariantId: "shop-variant-1", svcVariantId: v?.vid }],
      });
    } finally {
      await rx.close();
    }
  });

  it("store flow: connectShopProduct (the merchant on the service side) also completes the order", async () => {
    const c = await client(sim);
    const [, v] = variants(sim, 2);
    await c.post(
      "/shopping/order/createOrderV3",
      orderBody("SF-9", [{ vid: "sv-9", storeProductId: "sp-9", quantity: 1 }], { orderFlow: 2 }),
    );
    expect(sim.order("SF-9")?.orderId).toBeUndefined();
    sim.connectShopProduct(c.accountId, "sp-9", "sv-9", v?.vid ?? "");
    expect(sim.order("SF-9")?.orderId).toMatch(/^SO/);
    expect(sim.order("SF-9")?.lines[0]?.vid).toBe(v?.vid);
  });
});

describe("getOrderDetailBatch and getProofOfDelivery", () => {
  it("enforces 1..100 ids with 1600300 (HTTP 400) and skips unknown and foreign ids", async () => {
    const c = await client(sim);
    const other = await client(sim);
    const [v] = variants(sim, 1);
    const mine = await c.post(
      "/shopping/order/createOrderV3",
      orderBody("B-1", [{ vid: v?.vid, quantity: 1 }]),
    );
    const theirs = await other.post(
      "/shopping/order/createOrderV3",
      orderBody("B-2", [{ vid: v?.vid, quantity: 1 }]),
    );

    const empty = await c.raw("POST", "/shopping/order/getOrderDetailBatch", {
      body: { orderIds: [] },
    });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { code: number }).code).toBe(1600300);
    const tooMany = await c.post("/shopping/order/getOrderDetailBatch", {
      orderIds: Array.from({ length: 101 }, (_, i) => `id-${i}`),
    });
    expect(tooMany.code).toBe(1600300);
    const hundred = await c.post("/shopping/order/getOrderDetailBatch", {
      orderIds: [mine.data.orderId, ...Array.from({ length: 99 }, (_, i) => `id-${i}`)],
    });
    expect(hundred.code).toBe(200);
    expect(hundred.data).toHaveLength(1);

    const mixed = await c.post("/shopping/order/getOrderDetailBatch", {
      orderIds: [mine.data.orderId, theirs.data.orderId, "unknown", "B-1"],
    });
    expect(mixed.data).toHaveLength(1); // foreign and unknown skipped; the number finds the same order once
    expect(mixed.data[0]).toMatchObject({
      orderId: mine.data.orderId,
      isSandbox: 0,
      trackNumber: "",
      logisticsTimeliness: null,
      subStatus: null,
    });
    const byNumber = await c.post("/shopping/order/getOrderDetailBatch", { orderIds: ["B-1"] });
    expect(byNumber.data[0].orderId).toBe(mine.data.orderId);

    const pod = await c.post("/shopping/order/getProofOfDelivery", {
      orderIds: [mine.data.orderId, theirs.data.orderId],
    });
    expect(pod.data).toEqual([{ orderId: mine.data.orderId, proofOfDeliveryList: [] }]);
    expect((await c.post("/shopping/order/getProofOfDelivery", { orderIds: [] })).code).toBe(
      1600300,
    );
  });
});
