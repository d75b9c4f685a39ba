/**
 * Before an order delivery is stored, the shop it names is asked for the order
 * (orderNotInShop, app/fulfilment/place/receive.server.ts), through the real gateway against
 * the shop simulator: only a delivery that would store an order is checked; an order the shop
 * has passes, one it has not is refused; a token that needs the merchant lets it through (the
 * order waits, and placing reads the shop first); any other failure is the job's to retry.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orderNotInShop } from "../../app/fulfilment/place/receive.server";
import { type Harness, startHarness } from "./harness";

const SHOP = "receive-shop.myshopify.com";
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ shopDomain: SHOP }); // trigger: orders/paid
});
afterAll(async () => h?.close());

const asked = () => h.shop.graphqlCalls().filter((c) => c.operationName === "OrderInShop").length;
const check = (payload: unknown, topic = "orders/paid") =>
  orderNotInShop(h.deps, { shopDomain: SHOP, topic, payload });

describe("orderNotInShop", () => {
  it("passes an order the shop has, and refuses one it has not", async () => {
    const product = await h.connectedProduct("Checked vase");
    const placed = h.shop.placeOrder(SHOP, {
      lines: [{ variantId: product.variants[0]!.id, quantity: 1 }],
    });
    const before = asked();
    expect(await check(h.shop.orderWebhookPayload(SHOP, placed.id))).toBe(false);
    expect(await check({ id: 987654321987, email: "elsewhere@example.com" })).toBe(true);
    expect(asked()).toBe(before + 2);
  });

  it("asks nothing for a delivery that stores nothing, or whose id no shop could have", async () => {
    const before = asked();
    const cancelled = { id: 987654321987, cancelled_at: "2026-11-29T08:00:00Z" };
    expect(await check(cancelled)).toBe(false);
    expect(await check({ id: 987654321987 }, "orders/create")).toBe(false);
    expect(await check({ email: "no-id@example.com" })).toBe(false);
    expect(await check({ id: "not-a-number" })).toBe(true);
    expect(asked()).toBe(before);
  });

  it("a shop failing is the job's to retry; a token that needs the merchant lets it through", async () => {
    h.shop.failNext(SHOP, 500, 50);
    await expect(check({ id: 987654321987 })).rejects.toThrow();
    h.shop.failNext(SHOP, 500, 0);
    h.shop.oauth.revokeTokens(SHOP);
    expect(await check({ id: 987654321987 })).toBe(false);
  });
});
