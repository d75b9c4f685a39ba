import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceSim, type ServiceSim } from "./index";
import { client, orderBody, receiver, variants, type Client } from "./test-helpers";

const FIVE_MIN = 5 * 60_000;
let sim: ServiceSim;
beforeAll(async () => {
  sim = await startServiceSim({ catalogSize: 30, allowLoopbackWebhooks: true });
});
afterAll(() => sim.close());

async function paidOrder(c: Client, number: string): Promise<string> {
  const [v] = variants(sim, 1);
  const res = await c.post(
    "/shopping/order/createOrderV3",
    orderBody(number, [{ vid: v?.vid, quantity: 1, storeLineItemId: "li-1" }]),
  );
  await c.post("/shopping/pay/payBalance", { orderId: res.data.orderId });
  return res.data.orderId as string;
}

const subscribe = (c: Client, url: string) =>
  c.post("/webhook/set", {
    order: { type: "ENABLE", callbackUrls: [url] },
    logistics: { type: "ENABLE", callbackUrls: [url] },
  });

describe("webhook/set", () => {
  it("rejects local and loopback addresses with 1607001 unless allowed", async () => {
    const strict = await startServiceSim({ catalogSize: 5 });
    try {
      const c = await client(strict);
      for (const url of [
        "https://localhost/h",
        "https://127.0.0.1/h",
        "https://[::1]/h",
        "https://10.1.2.3/h",
      ]) {
        const res = await c.post("/webhook/set", {
          order: { type: "ENABLE", callbackUrls: [url] },
        });
        expect(res.code, url).toBe(1607001);
        expect(res.message).toMatch(/local|loopback/);
      }
      const http = await c.post("/webhook/set", {
        order: { type: "ENABLE", callbackUrls: ["http://shop.example.com/h"] },
      });
      expect(http.code).toBe(1607001);
      expect(http.message).toContain("https");
      const two = await c.post("/webhook/set", {
        order: { type: "ENABLE", callbackUrls: ["https://a.example.com", "https://b.example.com"] },
      });
      expect(two.code).toBe(1600100);
      const ok = await c.post("/webhook/set", {
        order: { type: "ENABLE", callbackUrls: ["https://shop.example.com/h"] },
        product: { type: "CANCEL", callbackUrls: [] },
      });
      expect(ok).toMatchObject({ code: 200, data: true });
    } finally {
      await strict.close();
    }
  });
});

describe("deliveries", () => {
  it("delivers ORDER and LOGISTIC events with the DESIGN §8 shapes and a valid sign header", async () => {
    const c = await client(sim, { balance: "500.00" });
    const rx = await receiver();
    try {
      expect((await subscribe(c, rx.url)).code).toBe(200);
      const orderId = await paidOrder(c, "W-1");
      sim.ship(orderId, { trackNumber: "TRK123", logisticName: "USPS" });
      await sim.deliverPendingWebhooks();

      for (const r of rx.received) {
        const expected = createHmac("sha256", c.openId).update(r.raw).digest("base64");
        expect(r.headers.sign).toBe(expected);
        expect(r.headers["content-type"]).toContain("application/json");
        expect(r.body).toMatchObject({
          messageId: expect.any(String),
          type: expect.any(String),
          messageType: expect.any(String),
          openId: c.openId,
        });
      }
      const logistic = rx.received.find((r) => r.body.type === "LOGISTIC");
      expect(logistic?.body.params).toMatchObject({
        orderId,
        trackingNumber: "TRK123",
        logisticName: "USPS",
        trackingStatus: 1,
        storeOrderNumbers: ["W-1"],
      });
      expect(logistic?.body.params).not.toHaveProperty("trackNumber");
      expect(JSON.parse(logistic?.body.params.logisticsTrackEvents as string)).toEqual(
        expect.any(Array),
      );
      const shipped = rx.received.find(
        (r) => r.body.type === "ORDER" && r.body.params.orderStatus === "SHIPPED",
      );
      expect(shipped?.body.params).toMatchObject({
        orderId,
        orderNumber: "W-1",
        trackNumber: "TRK123",
        orderItems: [{ quantity: 1, storeLineItemId: "li-1" }],
      });
      expect(rx.received.map((r) => `${r.body.type}:${r.body.messageType}`)).toEqual(
        expect.arrayContaining(["ORDER:INSERT", "ORDER:UPDATE", "LOGISTIC:UPDATE"]),
      );

      sim.deliver(orderId);
      await sim.deliverPendingWebhooks();
      const delivered = rx.received.filter((r) => r.body.type === "LOGISTIC").at(-1);
      expect(delivered?.body.params.trackingStatus).toBe(12);
      const pod = await c.post("/shopping/order/getProofOfDelivery", { orderIds: [orderId] });
      expect(pod.data[0].proofOfDeliveryList).toHaveLength(1);
    } finally {
      await rx.close();
    }
  });

  it("retries a non-200 reply after 5 minutes on the clock, at most 3 times", async () => {
    const c = await client(sim, { balance: "500.00" });
    const rx = await receiver(() => 500);
    try {
      await c.post("/webhook/set", { logistics: { type: "ENABLE", callbackUrls: [rx.url] } });
      const orderId = await paidOrder(c, "W-R");
      sim.ship(orderId);
      await sim.deliverPendingWebhooks();
      const mine = () => sim.webhookDeliveries().filter((d) => d.accountId === c.accountId);
      expect(mine()).toHaveLength(1);
      expect(mine()[0]).toMatchObject({ attempts: 1, delivered: false });

      await sim.deliverPendingWebhooks(); // not due yet
      sim.clock.advance(FIVE_MIN - 10_000);
      await sim.deliverPendingWebhooks();
      expect(mine()[0]?.attempts).toBe(1);

      for (let i = 0; i < 5; i++) {
        sim.clock.advance(FIVE_MIN);
        await sim.deliverPendingWebhooks();
      }
      expect(mine()[0]).toMatchObject({ attempts: 4, delivered: false, gaveUp: true });
      expect(rx.received).toHaveLength(4);
      expect(new Set(rx.received.map((r) => r.body.messageId)).size).toBe(1);
    } finally {
      await rx.close();
    }
  });

  it("a retry succeeds once the receiver recovers", async () => {
    const c = await client(sim, { balance: "500.00" });
    const rx = await receiver((n) => (n === 1 ? 503 : 200));
    try {
      await c.post("/webhook/set", { logistics: { type: "ENABLE", callbackUrls: [rx.url] } });
      const orderId = await paidOrder(c, "W-OK");
      sim.ship(orderId);
      await sim.deliverPendingWebhooks();
      sim.clock.advance(FIVE_MIN);
      await sim.deliverPendingWebhooks();
      const d = sim.webhookDeliveries().find((x) => x.accountId === c.accountId);
      expect(d).toMatchObject({ attempts: 2, delivered: true });
    } finally {
      await rx.close();
    }
  });

  it("pauses an account's deliveries past 50% failures until webhook/set is called again", async () => {
    const c = await client(sim, { balance: "500.00" });
    let healthy = false;
    const rx = await receiver(() => (healthy ? 200 : 500));
    try {
      await c.post("/webhook/set", { order: { type: "ENABLE", callbackUrls: [rx.url] } });
      for (let i = 0; i < 4; i++) await paidOrder(c, `W-P${i}`); // 4 INSERT + 4 UPDATE events, all failing
      await sim.deliverPendingWebhooks();
      expect(sim.state.accounts.get(c.accountId)?.webhooks.paused).toBe(true);
      const before = rx.received.length;

      healthy = true;
      sim.clock.advance(FIVE_MIN);
      await sim.deliverPendingWebhooks();
      expect(rx.received.length).toBe(before); // paused: nothing sent

      await c.post("/webhook/set", { order: { type: "ENABLE", callbackUrls: [rx.url] } });
      await sim.deliverPendingWebhooks();
      const mine = sim.webhookDeliveries().filter((d) => d.accountId === c.accountId);
      expect(mine.length).toBe(8);
      expect(mine.every((d) => d.delivered)).toBe(true);
    } finally {
      await rx.close();
    }
  });
});
