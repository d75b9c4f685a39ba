/**
 * The catalog sync at its edges (issue 35), over HTTP against the shop simulator:
 * - stock past one inventorySetQuantities call: more changes than one call takes (250) go in
 *   several calls, and every variant's stock arrives, none lost at a batch's edge (the simulator
 *   refuses more than 250 quantities in one call, as Shopify does);
 * - a cost that moved by exactly the re-pricing threshold of the old cost is re-priced, one cent
 *   less is not, either way.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { priceFor } from "../../app/catalog/pricing";
import { STOCK_BATCH, syncShop } from "../../app/catalog/sync.server";
import { getSettings } from "../../app/settings.server";
import { type Harness, prisma, startHarness } from "../fulfilment/harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    shopDomain: "stock-batches.myshopify.com",
    settings: {
      stockCountries: "CN",
      stockSync: true,
      priceRule: "multiplier",
      priceValue: "2",
      priceRounding: "99",
      repriceOnCostChange: "apply",
      repriceThresholdPct: "5",
    },
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
    // Three calls ran: 250, 250 and 11 (the simulator refuses more than 250 in one). A call
    // the cost limit answered THROTTLED (a busy machine lets the bucket drift) ran nothing and
    // was sent again; it is not counted, whatever the timing.
    const sets = h.shop
      .graphqlCalls()
      .slice(before)
      .filter((c) => c.operationName === "InventorySet" && c.actualQueryCost !== null);
    expect(
      sets.map((c) => (c.variables.input as { quantities: unknown[] }).quantities.length),
    ).toEqual([STOCK_BATCH, STOCK_BATCH, 11]);

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

describe("the re-pricing threshold", () => {
  it("10.00 → 10.50 at 5% is re-priced, → 10.49 is not; 10.00 → 9.50 is, → 9.51 is not", async () => {
    const costs = ["10.50", "10.49", "9.50", "9.51"];
    const product = h.shop.addProduct(h.shopDomain, {
      title: "Threshold mug",
      variants: costs.map((_, i) => ({ sku: `TH-${i}`, price: "20.99", title: `Mug ${i}` })),
    });
    await prisma.catalogVariant.createMany({
      data: costs.map((cost, i) => ({
        vid: `th-v${i}`,
        pid: "th-p",
        productName: "Threshold mug",
        costUsd: cost,
        stock: {},
      })),
    });
    await prisma.productConnection.createMany({
      data: product.variants.map((v, i) => ({
        shopDomain: h.shopDomain,
        shopifyProductId: String(product.legacyId),
        shopifyVariantId: String(v.legacyId),
        svcProductId: "th-p",
        svcVid: `th-v${i}`,
        pricedFromUsd: "10.00",
        shopPrice: "20.99",
      })),
    });

    const out = await syncShop({
      db: prisma,
      shop: h.shopDomain,
      gateway: await h.deps.shopFor(h.shopDomain),
      pids: ["th-p"],
    });

    expect(out.priced).toBe(2);
    const settings = await getSettings(prisma, h.shopDomain);
    const at = (cost: string) => priceFor(cost, settings, "1").price;
    const shopPrices = h.shop
      .products(h.shopDomain)
      .find((p) => p.legacyId === product.legacyId)!
      .variants.map((v) => v.price);
    expect(shopPrices).toEqual([at("10.50"), "20.99", at("9.50"), "20.99"]);
    expect(at("10.50")).not.toBe("20.99");
    expect(at("9.50")).not.toBe("20.99");
    const rows = await prisma.productConnection.findMany({
      where: { shopDomain: h.shopDomain, svcProductId: "th-p" },
      orderBy: { svcVid: "asc" },
    });
    expect(rows.map((r) => r.pricedFromUsd?.toFixed(2))).toEqual([
      "10.50",
      "10.00",
      "9.50",
      "10.00",
    ]);
  });
});
