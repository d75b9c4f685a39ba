/**
 * An order due at once is placed in its delivery's own job (app/fulfilment/handlers.server.ts):
 * the shop's order is read once (the read that checks the delivery's shop is the one placing
 * uses) and no place job is enqueued. A placing that fails is handed to a place job of its own
 * (one, whatever the retries), and a delivery job run again after a stop between storing the
 * order and placing it schedules that place job, so the order is never left RECEIVED.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { placeOrder } from "../../app/fulfilment/place/place.server";
import { receiveShopOrder } from "../../app/fulfilment/place/receive.server";
import { JOB } from "../../app/orders/schedule.server";
import { type Harness, opCalls, prisma, startHarness } from "./harness";

const SHOP = "place-in-delivery.myshopify.com";
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ shopDomain: SHOP });
});
afterAll(async () => h?.close());

const gets = () => h.shop.graphqlCalls().filter((c) => c.operationName === "GetOrder").length;
const placeJobs = (orderId: string) =>
  prisma.job.findMany({ where: { kind: JOB.place, concurrencyKey: `order:${orderId}` } });

describe("an order placed in its delivery's job", () => {
  it("is read from the shop once and placed without a place job", async () => {
    const p = await h.connectedProduct("Delivery Lamp", "11.00");
    const before = gets();
    const creates = opCalls(h, "createOrderV3");
    const placed = await h.order([{ product: p, quantity: 1 }]);
    await h.settle();
    const row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");
    expect(row.svcOrderId).not.toBeNull();
    expect(gets()).toBe(before + 1);
    expect(opCalls(h, "createOrderV3")).toBe(creates + 1);
    expect(await placeJobs(row.id)).toEqual([]);
    const delivery = await prisma.job.findFirstOrThrow({
      where: { kind: "shopify:orders/paid", shopDomain: SHOP },
      orderBy: { id: "desc" },
    });
    expect(delivery.state).toBe("completed");
    expect(delivery.result).toMatchObject({
      orderId: row.id,
      created: true,
      placed: { outcome: "created", svcOrderId: row.svcOrderId },
    });
    // The stored row went to placing, not into the job's result (it carries the customer).
    expect(delivery.result).not.toHaveProperty("row");
  });

  it("places from the row it is given, without reading it back", async () => {
    const p = await h.connectedProduct("Delivery Jug", "9.00");
    const shopOrder = h.shop.placeOrder(SHOP, {
      lines: [{ variantId: p.variants[0]!.id, quantity: 1 }],
    });
    const payload = h.shop.orderWebhookPayload(SHOP, shopOrder.id);
    const input = { shopDomain: SHOP, topic: "orders/paid", payload, nowMs: Date.now() };
    const { row } = await receiveShopOrder(prisma, input, { placeHere: true });
    expect(row).toMatchObject({ state: "RECEIVED", shopDomain: SHOP, placeAttempt: 0 });
    expect(row!.createdAt).toBeInstanceOf(Date);
    // What the row says is what placing goes by (here a state it would not place from).
    expect(await placeOrder(h.deps, row!.id, { row: { ...row!, state: "CANCELLED" } })).toEqual({
      outcome: "skipped",
      why: "state CANCELLED",
    });
    expect((await prisma.shopOrder.findUniqueOrThrow({ where: { id: row!.id } })).state).toBe(
      "RECEIVED",
    );
  });

  it("hands a placing that fails to one place job, which places it once the service answers", async () => {
    const p = await h.connectedProduct("Delivery Vase", "13.00");
    h.svc.setFaults({ rate5xx: 1, ops: ["createOrderV3"] });
    const placed = await h.order([{ product: p, quantity: 1 }]);
    try {
      await h.settle();
      const row = await h.row(placed.legacyId);
      expect(row.state).toBe("RECEIVED");
      const jobs = await placeJobs(row.id);
      expect(jobs.map((j) => [j.idempotencyKey, j.state])).toEqual([
        [`place:${row.id}:received`, "available"],
      ]);
      const delivery = await prisma.job.findFirstOrThrow({
        where: { kind: "shopify:orders/paid", shopDomain: SHOP },
        orderBy: { id: "desc" },
      });
      expect(delivery.state).toBe("completed");
      expect(delivery.result).toMatchObject({ placed: { outcome: "retried" } });
      expect(String((delivery.result as { placed: { error: string } }).placed.error)).toMatch(/\S/);
    } finally {
      h.svc.clearFaults();
    }
    await prisma.job.updateMany({
      where: { kind: JOB.place, state: "available" },
      data: { runAt: new Date(Date.now() - 1000) },
    });
    await h.settle();
    const row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");
    expect(
      h.svc.orders({ accountId: h.simAccountId }).filter((o) => o.orderNumber === row.orderNumber),
    ).toHaveLength(1);
  });

  it("run again after a stop between storing and placing, schedules the place job", async () => {
    const p = await h.connectedProduct("Delivery Cup", "7.00");
    const placed = h.shop.placeOrder(SHOP, {
      lines: [{ variantId: p.variants[0]!.id, quantity: 1 }],
    });
    const payload = h.shop.orderWebhookPayload(SHOP, placed.id);
    // What the first run wrote before it stopped: the row, placed by nobody yet.
    const first = await receiveShopOrder(
      prisma,
      { shopDomain: SHOP, topic: "orders/paid", payload, nowMs: Date.now() },
      { placeHere: true },
    );
    expect(first).toMatchObject({ created: true, placeHere: true });
    expect(await placeJobs(first.orderId!)).toEqual([]);
    // The delivery comes in; its job runs as the second attempt of the one that stopped.
    await h.shop.sendWebhook(SHOP, "orders/paid", payload);
    const delivery = await prisma.job.findFirstOrThrow({
      where: { kind: "shopify:orders/paid", shopDomain: SHOP },
      orderBy: { id: "desc" },
    });
    await prisma.job.update({ where: { id: delivery.id }, data: { attempts: 1 } });
    await h.settle();
    const row = await prisma.shopOrder.findUniqueOrThrow({ where: { id: first.orderId! } });
    expect(row.state).toBe("PAID");
    expect((await placeJobs(row.id)).map((j) => j.idempotencyKey)).toEqual([
      `place:${row.id}:received`,
    ]);
  });

  it("a delivery seen again on its first run adds nothing", async () => {
    const p = await h.connectedProduct("Delivery Bowl", "8.00");
    const placed = await h.order([{ product: p, quantity: 1 }]);
    await h.settle();
    const row = await h.row(placed.legacyId);
    const creates = opCalls(h, "createOrderV3");
    // The same order under a new event id (Shopify sends one order's topic again, rarely).
    await h.shop.sendWebhook(
      SHOP,
      "orders/paid",
      h.shop.orderWebhookPayload(SHOP, placed.shopOrderId),
    );
    await h.settle();
    expect(await placeJobs(row.id)).toEqual([]);
    expect(opCalls(h, "createOrderV3")).toBe(creates);
    expect((await h.row(placed.legacyId)).state).toBe("PAID");
  });
});
