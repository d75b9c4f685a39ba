/**
 * From the supplier's catalog to the shop (issue 16), end to end over HTTP against the service
 * and shop simulators: a catalog product with 3 options and 40 variants imported into the shop
 * (productSet, priced by the rule, stock at the shop's location) and ordered without any manual
 * mapping; a STOCK event and the scheduled pass set the shop's inventory; a cost rise re-prices
 * by the rule (or only flags, per setting); a removed variant goes to zero and is flagged; an
 * out-of-stock first supplier sends the line to the second.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCatalogImport } from "../../app/catalog/import-job.server";
import { CATALOG_JOB } from "../../app/catalog/job-kinds";
import { enqueue } from "../../app/jobs/enqueue.server";
import { updateSettings } from "../../app/settings.server";
import { THREE_OPTION_SKU } from "../sim/service/catalog";
import type { SimProduct } from "../sim/shop/server";
import { type Harness, opCalls, prisma, startHarness } from "../fulfilment/harness";

let h: Harness;
let jacket: { pid: string; variants: { vid: string; variantSku: string; variantKey: string }[] };
let product: SimProduct;

const shopProduct = () =>
  h.shop.products(h.shopDomain).find((p) => p.legacyId === product.legacyId)!;
const variantBySku = (sku: string) => shopProduct().variants.find((v) => v.sku === sku)!;
const connection = (variantId: number) =>
  prisma.productConnection.findUniqueOrThrow({
    where: {
      shopDomain_shopifyVariantId: {
        shopDomain: h.shopDomain,
        shopifyVariantId: String(variantId),
      },
    },
  });

async function change(vid: string, body: Record<string, unknown>) {
  const res = await fetch(`${h.svc.url}/__sim/catalog/${vid}/variant`, {
    method: "POST",
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  await h.settle();
}

beforeAll(async () => {
  h = await startHarness({
    shopDomain: "catalog-sync.myshopify.com",
    balance: "2000.00",
    settings: {
      priceRule: "multiplier",
      priceValue: "2",
      priceRounding: "99",
      compareAtPct: "30",
      stockCountries: "CN",
      repriceOnCostChange: "apply",
      repriceThresholdPct: "5",
    },
  });
  const list = (await (
    await fetch(`${h.svc.url}/__sim/catalog?sku=${THREE_OPTION_SKU}`)
  ).json()) as (typeof jacket)[];
  jacket = list[0]!;
});
afterAll(async () => h?.close());

describe("importing a catalog product", () => {
  it("puts 40 variants with 3 options into the shop, priced and stocked, connected at once", async () => {
    const row = await startCatalogImport(prisma, h.shopDomain, jacket.pid);
    // A second click while it waits starts nothing new…
    expect((await startCatalogImport(prisma, h.shopDomain, jacket.pid)).id).toBe(row.id);
    // …unless the waiting one has not moved for half an hour (its job died): then a new one.
    const stale = await prisma.catalogImport.create({
      data: {
        shopDomain: h.shopDomain,
        pid: "stale-pid",
        status: "running",
        updatedAt: new Date(Date.now() - 31 * 60_000),
      },
    });
    const fresh = await startCatalogImport(prisma, h.shopDomain, "stale-pid");
    expect(fresh.id).not.toBe(stale.id);
    expect(fresh.started).toBe(true);
    await prisma.catalogImport.deleteMany({ where: { pid: "stale-pid" } });
    await prisma.job.deleteMany({
      where: { kind: CATALOG_JOB.import, payload: { equals: { importId: fresh.id } } },
    });
    await h.settle();
    const done = await prisma.catalogImport.findUniqueOrThrow({ where: { id: row.id } });
    expect(done).toMatchObject({
      status: "done",
      variants: 40,
      title: "Trail Jacket",
      error: null,
    });
    product = h.shop
      .products(h.shopDomain)
      .find((p) => String(p.legacyId) === done.shopifyProductId)!;
    expect(product.optionNames).toEqual(["Color", "Size", "Material"]);
    expect(product.variants).toHaveLength(40);
    expect(product.images.length).toBeGreaterThan(0);
    expect(product.descriptionHtml).toContain("Trail Jacket");

    // Red-S-Cotton: cost 15.00 USD × 2 = 30.00 → 30.99; compare-at 30.99 × 1.3 = 40.29 → 40.99.
    const first = jacket.variants[0]!;
    expect(first.variantKey).toBe("Red-S-Cotton");
    const v = variantBySku(first.variantSku);
    expect(v).toMatchObject({
      options: ["Red", "S", "Cotton"],
      price: "30.99",
      compareAtPrice: "40.99",
      tracked: true,
      available: 100, // the CN stock of the first variant
    });
    const conns = await prisma.productConnection.findMany({
      where: { shopDomain: h.shopDomain, shopifyProductId: String(product.legacyId) },
    });
    expect(conns).toHaveLength(40);
    expect(
      conns.every((c) => c.imported && c.inventoryItemId && c.svcProductId === jacket.pid),
    ).toBe(true);
    // The service knows the connections too, and the product is in My Products.
    expect(
      h.svc.state.connections.filter((c) => c.platformProductId === String(product.legacyId)),
    ).toHaveLength(40);
    expect(opCalls(h, "addToMyProduct")).toBe(1);
  });

  it("a second import of the same product replaces it (same handle), no duplicate", async () => {
    const before = h.shop.products(h.shopDomain).length;
    const row = await startCatalogImport(prisma, h.shopDomain, jacket.pid);
    await h.settle();
    expect(await prisma.catalogImport.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({
      status: "done",
      shopifyProductId: String(product.legacyId),
    });
    expect(h.shop.products(h.shopDomain)).toHaveLength(before);
  });

  it("an order for an imported variant is placed without any manual mapping", async () => {
    const index = product.variants.findIndex((v) => v.sku === jacket.variants[5]!.variantSku);
    const placed = await h.order([{ product, quantity: 2, variant: index }]);
    await h.settle();
    const order = await h.row(placed.legacyId);
    expect(["CREATED", "PAYING", "PAID"]).toContain(order.state);
    expect(order.lines[0]!.svcVid).toBe(jacket.variants[5]!.vid);
    // The shop's own count went down by the order (Shopify takes it off).
    expect(variantBySku(jacket.variants[5]!.variantSku).available).toBe(105 - 2);
  });

  it("refuses a product that is not in the catalog, with a clear reason", async () => {
    const row = await startCatalogImport(prisma, h.shopDomain, "no-such-product");
    await h.settle();
    const done = await prisma.catalogImport.findUniqueOrThrow({ where: { id: row.id } });
    expect(done.status).toBe("failed");
    expect(done.error).toMatch(/not found|gone|product/i);
    expect(done.shopifyProductId).toBeNull();
  });
});

describe("stock and price sync", () => {
  it("a STOCK event sets the shop's inventory from the supplier's stock", async () => {
    const v = jacket.variants[1]!;
    await change(v.vid, { inventory: { CN: 7, US: 500 } });
    expect(variantBySku(v.variantSku).available).toBe(7); // only CN counts for this shop
    const row = await connection(variantBySku(v.variantSku).legacyId);
    expect(row.stockSet).toBe(7);
    const changes = await prisma.syncChange.findMany({
      where: { shopDomain: h.shopDomain, shopifyVariantId: row.shopifyVariantId, kind: "stock" },
    });
    expect(changes.map((c) => [c.before, c.after])).toEqual([["101", "7"]]);
  });

  it("the scheduled pass sets what a lost event missed, and a second pass changes nothing", async () => {
    const v = jacket.variants[2]!;
    // The supplier's stock changes, but no event arrives (a lost delivery).
    h.svc.state.catalog.variantByVid.get(v.vid)!.inventory.CN = 3;
    await prisma.catalogVariant.updateMany({ data: { checkedAt: new Date(0) } });
    await enqueue(prisma, { kind: CATALOG_JOB.fullSync });
    await h.settle();
    expect(variantBySku(v.variantSku).available).toBe(3);

    const calls = h.shop.graphqlCalls().length;
    const changes = await prisma.syncChange.count({ where: { shopDomain: h.shopDomain } });
    await prisma.catalogVariant.updateMany({ data: { checkedAt: new Date(0) } });
    await enqueue(prisma, { kind: CATALOG_JOB.syncShop, payload: { shop: h.shopDomain } });
    await h.settle();
    // Only the shop's basics were read: nothing to write, nothing recorded.
    expect(await prisma.syncChange.count({ where: { shopDomain: h.shopDomain } })).toBe(changes);
    expect(
      h.shop
        .graphqlCalls()
        .slice(calls)
        .filter((c) => ["InventorySet", "VariantsBulkUpdate"].includes(c.operationName ?? "")),
    ).toEqual([]);
  });

  it("the same stock told twice is written once; a throttled Shopify is waited for", async () => {
    const v = jacket.variants[10]!;
    const calls = () =>
      h.shop.graphqlCalls().filter((c) => c.operationName === "InventorySet" && c.actualQueryCost)
        .length;
    const before = calls();
    // Shopify answers THROTTLED to the next calls: the sync waits and goes on.
    h.shop.throttleNext(h.shopDomain, 2);
    await change(v.vid, { inventory: { CN: 42 } });
    await change(v.vid, { inventory: { CN: 42 } });
    expect(variantBySku(v.variantSku).available).toBe(42);
    expect(calls() - before).toBe(1);
    const row = await connection(variantBySku(v.variantSku).legacyId);
    expect(
      await prisma.syncChange.count({
        where: { shopifyVariantId: row.shopifyVariantId, kind: "stock" },
      }),
    ).toBe(1);
  });

  it("a cost rise beyond the threshold re-prices by the rule", async () => {
    const v = jacket.variants[3]!; // cost 18.00
    await change(v.vid, { sellPrice: "20.00" });
    const sv = variantBySku(v.variantSku);
    expect(sv).toMatchObject({ price: "40.99", compareAtPrice: "53.99" });
    const row = await connection(sv.legacyId);
    expect(row.pricedFromUsd?.toString()).toBe("20");
    const priced = await prisma.syncChange.findFirstOrThrow({
      where: { shopifyVariantId: row.shopifyVariantId, kind: "price" },
    });
    expect(priced).toMatchObject({ before: "36.99", after: "40.99" });
  });

  it("a small cost move stays under the threshold; with 'flag only' a rise is flagged, price kept", async () => {
    const small = jacket.variants[4]!; // 15.00 → 15.30 is 2%
    await change(small.vid, { sellPrice: "15.30" });
    expect(variantBySku(small.variantSku).price).toBe("30.99");

    await updateSettings(prisma, h.shopDomain, { repriceOnCostChange: "flag" });
    const v = jacket.variants[6]!; // 17.00 → 19.00
    await change(v.vid, { sellPrice: "19.00" });
    const sv = variantBySku(v.variantSku);
    expect(sv.price).toBe("34.99");
    expect(await connection(sv.legacyId)).toMatchObject({ flag: "cost_change" });
    await updateSettings(prisma, h.shopDomain, { repriceOnCostChange: "apply" });
  });

  it("a removed variant goes to zero and is flagged", async () => {
    const v = jacket.variants[7]!;
    await change(v.vid, { removed: true });
    const sv = variantBySku(v.variantSku);
    expect(sv.available).toBe(0);
    expect(await connection(sv.legacyId)).toMatchObject({ flag: "removed", stockSet: 0 });
    expect(
      await prisma.syncChange.count({
        where: { shopifyVariantId: String(sv.legacyId), kind: "removed" },
      }),
    ).toBe(1);
  });
});

describe("a product removed by the supplier", () => {
  it("flags every connected variant of it (the service answers 1602002 for the product)", async () => {
    const p = await h.connectedProduct("Soon gone");
    const row = await connection(p.variants[0]!.legacyId);
    const pid = h.svc.state.catalog.variantByVid.get(row.svcVid)!.pid;
    await prisma.productConnection.update({ where: { id: row.id }, data: { svcProductId: pid } });
    h.svc.removeProduct(pid);
    await h.settle();
    expect(await connection(p.variants[0]!.legacyId)).toMatchObject({ flag: "removed" });
    expect(await prisma.catalogVariant.count({ where: { pid, removed: false } })).toBe(0);
  });
});

describe("a second supplier", () => {
  it("takes the line when the first is out of stock, and the timeline says so", async () => {
    const first = jacket.variants[8]!;
    const backup = jacket.variants[9]!;
    const sv = variantBySku(first.variantSku);
    await prisma.backupSupplier.create({
      data: {
        shopDomain: h.shopDomain,
        shopifyVariantId: String(sv.legacyId),
        position: 1,
        svcProductId: jacket.pid,
        svcVid: backup.vid,
      },
    });
    await change(first.vid, { inventory: { CN: 0 } });
    // The backup's stock counts for the shop: 0 + 109.
    expect(variantBySku(first.variantSku).available).toBe(109);

    const index = shopProduct().variants.findIndex((v) => v.sku === first.variantSku);
    const placed = await h.order([
      { product: shopProduct() as never, quantity: 1, variant: index },
    ]);
    await h.settle();
    const order = await h.row(placed.legacyId);
    expect(order.lines[0]!.svcVid).toBe(backup.vid);
    expect(order.timeline.map((t) => t.message).join("\n")).toMatch(
      /goes to supplier 2 .*first supplier .* 0 in stock in CN, 1 needed/,
    );
    // The service's order carries the backup's variant.
    const at = h.svc
      .orders({ accountId: h.simAccountId })
      .find((o) => o.orderNumber === order.orderNumber);
    expect(at?.lines.map((l) => l.vid)).toEqual([backup.vid]);
  });
});
