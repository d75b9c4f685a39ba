/**
 * Stock sync past one inventorySetQuantities call (issue 35): more changes than one call takes
 * (250) go in several calls, and every variant's stock arrives, none lost at a batch's edge. Over
 * HTTP against the shop simulator, which refuses more than 250 quantities in one call as Shopify
 * does.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STOCK_BATCH, syncShop } from "../../app/catalog/sync.server";
import { type Harness, prisma, startHarness } from "../fulfilment/harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    shopDomain: "stock-batches.myshopify.com",
    settings: { stockCountries: "CN", stockSync: true },
  });
});
afterAll(async () => h?.close());

describe("stock sync in batches", () => {
  it("511 changes: two full calls of 250 and one of 11, every variant set once", async () => {
    const count = 2 * STOCK_BATCH + 11;
    // A shop product with that many tracked variants, all at 0, each connected to a catalog
    // variant whose stock in CN is its own number (1, 2, …), so a lost one shows.
    const product = h.shop.addProduct(h.shopDomain, {
      title: "Many sizes",
      variants: Array.from({ length: count }, (_, i) => ({
        sku: `MANY-${i + 1}`,
        price: "10.00",
        title: `Size ${i + 1}`,
        inventory: 0,
      })),
    });
    await prisma.catalogVariant.createMany({
      data: product.variants.map((_, i) => ({
        vid: `many-v${i + 1}`,
        pid: "many-p",
        productName: "Many sizes",
        stock: { CN: i + 1, US: 1000 },
      })),
    });
    await prisma.productConnection.createMany({
      data: product.variants.map((v, i) => ({
        shopDomain: h.shopDomain,
        shopifyProductId: String(product.legacyId),
        shopifyVariantId: String(v.legacyId),
        svcProductId: "many-p",
        svcVid: `many-v${i + 1}`,
      })),
    });
    const before = h.shop.graphqlCalls().length;

    const out = await syncShop({
      db: prisma,
      shop: h.shopDomain,
      gateway: await h.deps.shopFor(h.shopDomain),
      pids: null,
    });

    expect(out.stockSet).toBe(count);
    const shopVariants = h.shop
      .products(h.shopDomain)
      .find((p) => p.legacyId === product.legacyId)!.variants;
    expect(shopVariants.map((v) => v.available)).toEqual(
      Array.from({ length: count }, (_, i) => i + 1),
    );
    const rows = await prisma.productConnection.findMany({
      where: { shopDomain: h.shopDomain, svcProductId: "many-p" },
    });
    expect(rows).toHaveLength(count);
    for (const r of rows) expect(r.stockSet).toBe(Number(r.svcVid.slice("many-v".length)));
    expect(
      await prisma.syncChange.count({ where: { shopDomain: h.shopDomain, kind: "stock" } }),
    ).toBe(count);
    // Three calls: 250, 250 and 11 (the simulator refuses more than 250 in one).
    const sets = h.shop
      .graphqlCalls()
      .slice(before)
      .filter((c) => c.operationName === "InventorySet");
    expect(sets).toHaveLength(3);

    // A second pass finds nothing to write.
    const again = await syncShop({
      db: prisma,
      shop: h.shopDomain,
      gateway: await h.deps.shopFor(h.shopDomain),
      pids: null,
    });
    expect(again.stockSet).toBe(0);
  });
});
