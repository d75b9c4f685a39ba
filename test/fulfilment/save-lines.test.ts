/**
 * The order's lines as placing saves them (app/fulfilment/place/lines.server.ts, `saveLines`),
 * called directly on the test database: each line takes its catalog variant from this shop's
 * connection only (another shop's connection of the same variant id is not its), the lines come
 * back in line item order, and the order's name is written when Shopify's differs, not again
 * when it is the same.
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
});
