/**
 * Names for the sync log: a change is recorded by the shop variant's id, and the merchant reads
 * it by what the variant is (the supplier's product and variant, and the SKU), never by the id.
 */
import type { PrismaClient } from "@prisma/client";

/**
 * The name of each shop variant the changes touch, from its connection and the catalog variant
 * it is connected to: "Ceramic mug · Black-XL (SKU MUG-BLK-XL)". A variant no longer connected
 * (or never read from the catalog) is named by its SKU alone, and with none known, "a variant
 * that is no longer connected".
 */
export async function syncChangeNames(
  db: PrismaClient,
  shop: string,
  shopifyVariantIds: string[],
): Promise<Record<string, string>> {
  const ids = [...new Set(shopifyVariantIds)];
  if (ids.length === 0) return {};
  const connections = await db.productConnection.findMany({
    where: { shopDomain: shop, shopifyVariantId: { in: ids } },
    select: { shopifyVariantId: true, sku: true, svcVid: true },
  });
  const catalog = await db.catalogVariant.findMany({
    where: { vid: { in: connections.map((c) => c.svcVid) } },
    select: { vid: true, productName: true, variantKey: true, sku: true },
  });
  const byVid = new Map(catalog.map((c) => [c.vid, c]));
  const out: Record<string, string> = {};
  for (const id of ids) {
    const c = connections.find((x) => x.shopifyVariantId === id);
    const v = c ? byVid.get(c.svcVid) : undefined;
    const sku = c?.sku || v?.sku || null;
    const name = [v?.productName?.trim(), v?.variantKey?.trim()].filter(Boolean).join(" · ");
    out[id] = name
      ? `${name}${sku ? ` (SKU ${sku})` : ""}`
      : sku
        ? `SKU ${sku}`
        : "a variant that is no longer connected";
  }
  return out;
}
