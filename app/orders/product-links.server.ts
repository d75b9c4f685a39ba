/**
 * Product links: a shop variant bound to a catalog variant, both at the service (connections
 * create) and in the ProductConnection table the order pipeline reads to place an order's lines.
 * Connecting sends the orders held for unmatched lines on at once. Shared by the Products page
 * (app/connections/) and the catalog's import (app/catalog/import.server.ts).
 *
 * Ids: ProductConnection keeps Shopify's numeric product and variant ids (the REST webhook
 * payloads and the service's store-flow fields carry those); the service gets the same.
 */
import type { Prisma, PrismaClient } from "@prisma/client";
import { getSettings } from "../settings.server";
import { legacyId } from "../shop/index.server";
import type { SvcClient } from "../svc/index.server";
import { recheckHeld } from "./recheck.server";

/** The connection's logistics when the shop has not chosen one (the contract requires a value). */
export const DEFAULT_CONNECTION_LOGISTICS = "SvcPacket Ordinary";
/** The connection's default area (the contract requires an int; its meaning is not shown). */
export const DEFAULT_AREA = 1;

/** Shopify's numeric id of a GID (or of an id already numeric), as ProductConnection keeps it. */
export const shopifyNumericId = (id: string) => (/^\d+$/.test(id) ? id : legacyId(id));

export interface VariantToConnect {
  shopifyProductId: string;
  shopifyVariantId: string;
  sku?: string | null;
  svcVid: string;
}

/**
 * Connects variants of ONE shop product to variants of ONE catalog product: one service call,
 * then the rows (the service's create is an upsert, so a retry after a crash is harmless).
 */
export async function connectVariants(
  db: PrismaClient,
  client: SvcClient,
  shop: string,
  svcProductId: string,
  variants: VariantToConnect[],
): Promise<number> {
  if (variants.length === 0) return 0;
  const settings = await getSettings(db, shop);
  const platformProductId = shopifyNumericId(variants[0]!.shopifyProductId);
  await client.connections.create({
    defaultArea: DEFAULT_AREA,
    logistics: settings.logisticName || DEFAULT_CONNECTION_LOGISTICS,
    svcProductId,
    platformProductId,
    sourceCountryCode: settings.fromCountryCode,
    variantList: variants.map((v) => ({
      svcVariantId: v.svcVid,
      platformVariantId: shopifyNumericId(v.shopifyVariantId),
    })),
  });
  const ops: Prisma.PrismaPromise<unknown>[] = variants.map((v) => {
    const data = {
      shopifyProductId: platformProductId,
      sku: v.sku || null,
      svcProductId,
      svcVid: v.svcVid,
      // The service's connection now points at svcVid (a backup's route is undone).
      routedVid: null,
    };
    return db.productConnection.upsert({
      where: {
        shopDomain_shopifyVariantId: {
          shopDomain: shop,
          shopifyVariantId: shopifyNumericId(v.shopifyVariantId),
        },
      },
      create: { shopDomain: shop, shopifyVariantId: shopifyNumericId(v.shopifyVariantId), ...data },
      update: data,
    });
  });
  await db.$transaction(ops);
  // Orders held for unmatched lines go on at once (the place step checks every line again).
  await recheckHeld(db, shop, ["unconnected_lines"], `matched:${Date.now()}:${platformProductId}`);
  return variants.length;
}
