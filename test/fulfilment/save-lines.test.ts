/**
 * The order's lines as placing saves them (app/fulfilment/place/lines.server.ts, `saveLines`),
 * called directly on the test database: each line takes its catalog variant from this shop's
 * connection only (another shop's connection of the same variant id is not its), the lines come
 * back in line item order, and the order's name is written when Shopify's differs, not again
 * when it is the same. A line passed to a backup supplier is on the order's timeline once: not
 * again when the same order's lines are saved again, and not kept quiet because another order
 * has a line with the same id and supplier. Saving again makes the lines what the shop has now:
 * a line kept is updated in its row (what placing wrote on it stays), a line gone is deleted, a
 * new one added, and what comes back is what the database holds.
 */
import { describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { saveLines } from "../../app/fulfilment/place/lines.server";
import type { ShopOrder, ShopOrderLine } from "../../app/shop/orders.server";

let seq = 0;

function line(n: number, variant: string): ShopOrderLine {
  return {
    id: `gid://shopify/LineItem/${n}` as ShopOrderLine["id"],
    productId: "gid://shopify/Product/77" as ShopOrderLine["productId"],
    variantId: `gid://shopify/ProductVariant/${variant}` as ShopOrderLine["variantId"],
    sku: `SKU-${n}`,
    title: `Line ${n}`,
    variantTitle: null,
    options: [],
    imageUrl: null,
    quantity: 1,
    currentQuantity: 1,
    unitPrice: { amount: "10.00", currencyCode: "USD" },
    requiresShipping: true,
  };
}

async function orderOf(shop: string, name: string) {
  await prisma.shop.upsert({ where: { domain: shop }, create: { domain: shop }, update: {} });
  return prisma.shopOrder.create({
    data: {
      shopDomain: shop,
      shopifyOrderId: String(5000 + ++seq),
      shopifyOrderName: name,
      orderNumber: `lines-${seq}-${Date.now()}`,
      state: "RECEIVED",
    },
  });
}

/**
 * A variant with a first supplier and a backup at position 1, each with its CN stock, and how
 * many times an order's timeline says a line went to that backup.
 */
async function withBackup(
  shop: string,
  variant: string,
  [first, backup]: [string, string],
  [firstStock, backupStock]: [number, number],
) {
  await prisma.backupSupplier.create({
    data: {
      shopDomain: shop,
      shopifyVariantId: variant,
      position: 1,
      svcProductId: "P",
      svcVid: backup,
    },
  });
  await prisma.catalogVariant.createMany({
    data: [
      { vid: first, pid: `P-${first}`, productName: "First", stock: { CN: firstStock } },
      { vid: backup, pid: `P-${backup}`, productName: "Backup", stock: { CN: backupStock } },
    ],
  });
  return async (orderId: string) =>
    (await prisma.timelineEntry.findMany({ where: { orderId } })).filter((t) =>
      t.message?.includes(`goes to supplier 2 (catalog variant ${backup})`),
    ).length;
}

describe("saveLines", () => {
  it("takes each line's catalog variant from this shop's connection only, lines in their order", async () => {
    const shop = `lines-a-${Date.now()}.myshopify.com`;
    const other = `lines-b-${Date.now()}.myshopify.com`;
    const order = await orderOf(shop, "#1001");
    await prisma.productConnection.create({
      data: { shopDomain: shop, shopifyProductId: "77", shopifyVariantId: "901", svcVid: "VID-A" },
    });
    // Another shop connected the same variant id (ids are per shop) to another variant.
    await prisma.productConnection.create({
      data: { shopDomain: other, shopifyProductId: "77", shopifyVariantId: "902", svcVid: "VID-B" },
    });
    const shopOrder = { name: "#1001" } as ShopOrder;
    const saved = await saveLines(
      prisma,
      order,
      shopOrder,
      [line(30, "902"), line(20, "901")],
      ["CN"],
    );
    expect(saved.map((l) => [l.shopifyLineItemId, l.svcVid])).toEqual([
      ["20", "VID-A"],
      ["30", null],
    ]);
  });

  it("saved again, keeps a line's row and what placing wrote on it, deletes a line gone, adds a new one", async () => {
    const shop = `lines-e-${Date.now()}.myshopify.com`;
    const order = await orderOf(shop, "#1001");
    await prisma.productConnection.create({
      data: { shopDomain: shop, shopifyProductId: "77", shopifyVariantId: "911", svcVid: "VID-E" },
    });
    const name = { name: "#1001" } as ShopOrder;
    const first = await saveLines(prisma, order, name, [line(1, "911"), line(2, "912")], ["CN"]);
    expect(first.map((l) => l.shopifyLineItemId)).toEqual(["1", "2"]);
    const kept = first[0]!;
    await prisma.shopOrderLine.update({
      where: { id: kept.id },
      data: { unitPriceUsd: "11.00", fulfilledQuantity: 1 },
    });
    // The shop's order now: line 1 with two of it, line 2 gone, line 3 new (given twice: the
    // last one counts).
    const edited = { ...line(1, "911"), currentQuantity: 2, title: "Line 1 (edited)" };
    const three = line(3, "913");
    const again = await saveLines(
      prisma,
      order,
      name,
      [edited, { ...three, title: "first" }, three],
      ["CN"],
    );
    const stored = await prisma.shopOrderLine.findMany({
      where: { orderId: order.id },
      orderBy: { shopifyLineItemId: "asc" },
    });
    expect(again).toEqual(stored);
    expect(again.map((l) => [l.shopifyLineItemId, l.quantity, l.title, l.svcVid])).toEqual([
      ["1", 2, "Line 1 (edited)", "VID-E"],
      ["3", 1, "Line 3", null],
    ]);
    expect(again[0]).toMatchObject({ id: kept.id, unitPriceUsd: "11.00", fulfilledQuantity: 1 });
    expect(again[0]).toMatchObject({ unitPrice: "10.00", requiresShipping: true, sku: "SKU-1" });
    // Nothing left of it: saving no lines empties the order.
    expect(await saveLines(prisma, order, name, [], ["CN"])).toEqual([]);
    expect(await prisma.shopOrderLine.count({ where: { orderId: order.id } })).toBe(0);
  });

  it("writes the order's name when Shopify's differs, and leaves the row alone when it is the same", async () => {
    const shop = `lines-c-${Date.now()}.myshopify.com`;
    const order = await orderOf(shop, "#1001");
    await saveLines(prisma, order, { name: "#1001-EDIT" } as ShopOrder, [line(40, "903")], ["CN"]);
    const renamed = await prisma.shopOrder.findUniqueOrThrow({ where: { id: order.id } });
    expect(renamed.shopifyOrderName).toBe("#1001-EDIT");
    await saveLines(
      prisma,
      renamed,
      { name: "#1001-EDIT" } as ShopOrder,
      [line(40, "903")],
      ["CN"],
    );
    const again = await prisma.shopOrder.findUniqueOrThrow({ where: { id: order.id } });
    expect(again.updatedAt).toEqual(renamed.updatedAt);
  });

  it("tells a backup supplier's choice once per order, whatever other orders hold", async () => {
    const shop = `lines-d-${Date.now()}.myshopify.com`;
    const [first, backup] = [`VID-FIRST-${Date.now()}`, `VID-BACKUP-${Date.now()}`];
    await prisma.shop.upsert({ where: { domain: shop }, create: { domain: shop }, update: {} });
    await prisma.productConnection.create({
      data: { shopDomain: shop, shopifyProductId: "77", shopifyVariantId: "904", svcVid: first },
    });
    const told = await withBackup(shop, "904", [first, backup], [0, 9]);

    const a = await orderOf(shop, "#2001");
    const savedA = await saveLines(
      prisma,
      a,
      { name: "#2001" } as ShopOrder,
      [line(60, "904")],
      ["CN"],
    );
    expect(savedA.map((l) => l.svcVid)).toEqual([backup]);
    expect(await told(a.id)).toBe(1);

    // Another order holding a line with the same id, already with the backup: this one is told.
    const b = await orderOf(shop, "#2002");
    await saveLines(prisma, b, { name: "#2002" } as ShopOrder, [line(60, "904")], ["CN"]);
    expect(await told(b.id)).toBe(1);
    // Saved again (a retried placement): not told twice, and the order's row is left alone.
    const before = await prisma.shopOrder.findUniqueOrThrow({ where: { id: b.id } });
    await saveLines(prisma, b, { name: "#2002" } as ShopOrder, [line(60, "904")], ["CN"]);
    expect(await told(b.id)).toBe(1);
    expect(await told(a.id)).toBe(1);
    const after = await prisma.shopOrder.findUniqueOrThrow({ where: { id: b.id } });
    expect(after.updatedAt).toEqual(before.updatedAt);
  });

  it("tells the choice when a line saved with its first supplier passes to the backup", async () => {
    const shop = `lines-f-${Date.now()}.myshopify.com`;
    const [first, backup] = [`VID-F1-${Date.now()}`, `VID-B1-${Date.now()}`];
    await prisma.shop.upsert({ where: { domain: shop }, create: { domain: shop }, update: {} });
    // Variant 921 goes to `first`, with `backup` behind it; variant 922 goes to `backup` itself.
    await prisma.productConnection.createMany({
      data: [
        { shopDomain: shop, shopifyProductId: "77", shopifyVariantId: "921", svcVid: first },
        { shopDomain: shop, shopifyProductId: "78", shopifyVariantId: "922", svcVid: backup },
      ],
    });
    const told = await withBackup(shop, "921", [first, backup], [9, 9]);
    const order = await orderOf(shop, "#3001");
    const name = { name: "#3001" } as ShopOrder;
    const lines = [line(70, "921"), line(71, "922")];
    const first1 = await saveLines(prisma, order, name, lines, ["CN"]);
    expect(first1.map((l) => l.svcVid)).toEqual([first, backup]);
    expect(await told(order.id)).toBe(0);
    // The first supplier runs out before the placement is tried again: line 70 passes to the
    // backup and the timeline says so, though the order already had a line with that supplier.
    await prisma.catalogVariant.update({ where: { vid: first }, data: { stock: { CN: 0 } } });
    const again = await saveLines(prisma, order, name, lines, ["CN"]);
    expect(again.map((l) => l.svcVid)).toEqual([backup, backup]);
    expect(await told(order.id)).toBe(1);
  });
});
