/**
 * The order's lines as placing saves them (app/fulfilment/place/lines.server.ts, `saveLines`),
 * called directly on the test database: each line takes its catalog variant from this shop's
 * connection only (another shop's connection of the same variant id is not its), the lines come
 * back in line item order, and the order's name is written when Shopify's differs, not again
 * when it is the same. A line passed to a backup supplier is on the order's timeline once: not
 * again when the same order's lines are saved again, and not kept quiet because another order
 * has a line with the same id and supplier.
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
    await prisma.backupSupplier.create({
      data: {
        shopDomain: shop,
        shopifyVariantId: "904",
        position: 1,
        svcProductId: "PID-B",
        svcVid: backup,
      },
    });
    await prisma.catalogVariant.createMany({
      data: [
        { vid: first, pid: "PID-F", productName: "First", stock: { CN: 0 } },
        { vid: backup, pid: "PID-B", productName: "Backup", stock: { CN: 9 } },
      ],
    });
    const told = async (orderId: string) =>
      (await prisma.timelineEntry.findMany({ where: { orderId } })).filter((t) =>
        t.message?.includes(`goes to supplier 2 (catalog variant ${backup})`),
      ).length;

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
    // Saved again (a retried placement): not told twice.
    await saveLines(prisma, b, { name: "#2002" } as ShopOrder, [line(60, "904")], ["CN"]);
    expect(await told(b.id)).toBe(1);
    expect(await told(a.id)).toBe(1);
  });
});
