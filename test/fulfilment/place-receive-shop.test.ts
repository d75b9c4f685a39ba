/**
 * Before an order delivery is stored, the shop it names is asked for the order (readDelivery,
 * app/fulfilment/place/receive.server.ts), through the real gateway against the shop
 * simulator: an order due at once is read whole (the read placing needs, handed on); one that
 * waits for a review window is only looked up (cost 1); an order the shop has not got is
 * foreign; a delivery that stores nothing is not checked; a token that needs the merchant lets
 * it through (the order waits, and placing reads the shop first); any other failure is the
 * job's to retry.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readDelivery } from "../../app/fulfilment/place/receive.server";
import { prisma } from "../../app/db.server";
import { updateSettings } from "../../app/settings.server";
import { type Harness, startHarness } from "./harness";

const SHOP = "receive-shop.myshopify.com";
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ shopDomain: SHOP }); // trigger: orders/paid, no review window
});
afterAll(async () => h?.close());

const calls = (op: string) => h.shop.graphqlCalls().filter((c) => c.operationName === op).length;
const read = (payload: unknown, topic = "orders/paid") =>
  readDelivery(h.deps, { shopDomain: SHOP, topic, payload });
const absent = { id: 987654321987, email: "elsewhere@example.com" };

async function placedOrder(title: string) {
  const product = await h.connectedProduct(title);
  return h.shop.placeOrder(SHOP, { lines: [{ variantId: product.variants[0]!.id, quantity: 1 }] });
}

describe("readDelivery", () => {
  it("reads an order due at once whole, and finds one the shop has not got foreign", async () => {
    const placed = await placedOrder("Checked vase");
    const [gets, looks] = [calls("GetOrder"), calls("OrderInShop")];
    const due = await read(h.shop.orderWebhookPayload(SHOP, placed.id));
    expect(due.take).toBe("place");
    expect(due.take === "place" && due.fetched.id).toBe(placed.id);
    expect(await read(absent)).toEqual({ take: "foreign" });
    expect(calls("GetOrder")).toBe(gets + 2);
    expect(calls("OrderInShop")).toBe(looks);
  });

  it("only looks up an order that waits for the review window (cost 1)", async () => {
    await updateSettings(prisma, SHOP, { reviewWindowMinutes: 30 });
    try {
      const placed = await placedOrder("Waiting vase");
      const [gets, looks] = [calls("GetOrder"), calls("OrderInShop")];
      expect(await read(h.shop.orderWebhookPayload(SHOP, placed.id))).toEqual({ take: "store" });
      expect(await read(absent)).toEqual({ take: "foreign" });
      expect(calls("OrderInShop")).toBe(looks + 2);
      expect(calls("GetOrder")).toBe(gets);
    } finally {
      await updateSettings(prisma, SHOP, { reviewWindowMinutes: 0 });
    }
  });

  it("asks nothing for a delivery that stores nothing, or whose id no shop could have", async () => {
    const before = h.shop.graphqlCalls().length;
    const cancelled = { id: 987654321987, cancelled_at: "2026-11-29T08:00:00Z" };
    expect(await read(cancelled)).toEqual({ take: "store" });
    expect(await read({ id: 987654321987 }, "orders/create")).toEqual({ take: "store" });
    expect(await read({ email: "no-id@example.com" })).toEqual({ take: "store" });
    expect(await read({ id: "not-a-number" })).toEqual({ take: "foreign" });
    expect(h.shop.graphqlCalls().length).toBe(before);
  });

  it("a shop failing is the job's to retry; a token that needs the merchant lets it through", async () => {
    h.shop.failNext(SHOP, 500, 50);
    await expect(read(absent)).rejects.toThrow();
    h.shop.failNext(SHOP, 500, 0);
    h.shop.oauth.revokeTokens(SHOP);
    expect(await read(absent)).toEqual({ take: "store" });
  });
});
