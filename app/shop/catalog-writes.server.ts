/**
 * Writing the supplier's catalog into the shop: productSet (import a product with its options,
 * variants, images and inventory), productVariantsBulkUpdate (prices), inventorySetQuantities
 * (stock at the app's location), and the reads they need (variants' inventory items; the
 * shop's currency and primary location are read by shop-basics.server.ts). The documents and
 * their requested costs (all far under Shopify's 1,000 points) are in
 * catalog-writes.documents.ts.
 */
import {
  CATALOG_WRITE_LIMITS,
  PRODUCT_SET,
  PRODUCT_VARIANT_ITEMS,
  VARIANT_INVENTORY_ITEMS,
  VARIANTS_BULK_UPDATE,
  INVENTORY_SET,
} from "./catalog-writes.documents";
import { z } from "zod";
import { ShopUserError } from "./errors";
import { type Call, pageInfoSchema } from "./transport.server";

const userErrors = z.array(
  z.object({
    field: z.array(z.string()).nullable().optional(),
    message: z.string(),
    code: z.string().nullable().optional(),
  }),
);

function refuse(shop: string, operation: string, errors: z.infer<typeof userErrors>): never {
  throw new ShopUserError({
    shop,
    operation,
    userErrors: errors.map((e) => ({
      field: e.field ?? null,
      message: e.message,
      code: e.code ?? null,
    })),
  });
}

export interface ProductSetInput {
  handle: string;
  title: string;
  descriptionHtml: string;
  vendor?: string;
  images: string[];
  options: { name: string; values: string[] }[];
  variants: {
    optionValues: { optionName: string; name: string }[];
    sku: string;
    price: string;
    compareAtPrice: string | null;
    image?: string | null;
    /** Inventory tracked by Shopify (orders take their quantity off). */
    tracked: boolean;
    /**
     * Stock at the location; null: none given (Shopify takes quantities only when it creates
     * the product: a product set again keeps its stock, the stock sync sets it).
     */
    quantity: number | null;
  }[];
  locationId: string | null;
}

export interface VariantItem {
  id: string;
  sku: string | null;
  price: string;
  options: { name: string; value: string }[];
  inventoryItemId: string;
}

const variantItemSchema = z.object({
  id: z.string(),
  sku: z.string().nullable(),
  price: z.string(),
  selectedOptions: z.array(z.object({ name: z.string(), value: z.string() })),
  inventoryItem: z.object({ id: z.string() }),
});

/** productSet by handle (a retry replaces the same product), then its variants read back. */
export async function setProduct(
  call: Call,
  shop: string,
  input: ProductSetInput,
): Promise<{ productId: string; variants: VariantItem[] }> {
  const data = await call(
    PRODUCT_SET,
    {
      identifier: { handle: input.handle },
      input: {
        handle: input.handle,
        title: input.title,
        descriptionHtml: input.descriptionHtml,
        ...(input.vendor ? { vendor: input.vendor } : {}),
        status: "ACTIVE",
        files: input.images.map((src) => ({ originalSource: src, contentType: "IMAGE" })),
        productOptions: input.options.map((o, i) => ({
          name: o.name,
          position: i + 1,
          values: o.values.map((name) => ({ name })),
        })),
        variants: input.variants.map((v) => ({
          optionValues: v.optionValues,
          price: v.price,
          compareAtPrice: v.compareAtPrice,
          inventoryItem: { sku: v.sku, tracked: v.tracked },
          ...(v.image ? { file: { originalSource: v.image, contentType: "IMAGE" } } : {}),
          ...(v.quantity !== null && input.locationId
            ? {
                inventoryQuantities: [
                  { locationId: input.locationId, name: "available", quantity: v.quantity },
                ],
              }
            : {}),
        })),
      },
    },
    z.object({
      productSet: z.object({
        product: z.object({ id: z.string(), title: z.string() }).nullable(),
        userErrors,
      }),
    }),
  );
  const payload = data.productSet;
  if (payload.userErrors.length || !payload.product)
    refuse(
      shop,
      "ProductSet",
      payload.userErrors.length ? payload.userErrors : [{ message: "no product was set" }],
    );
  const productId = payload.product.id;
  const variants: VariantItem[] = [];
  for (let after: string | null = null; ; ) {
    const page: {
      product: {
        variants: {
          nodes: z.infer<typeof variantItemSchema>[];
          pageInfo: z.infer<typeof pageInfoSchema>;
        };
      } | null;
    } = await call(
      PRODUCT_VARIANT_ITEMS,
      { id: productId, first: CATALOG_WRITE_LIMITS.variantItems, after },
      z.object({
        product: z
          .object({
            variants: z.object({ nodes: z.array(variantItemSchema), pageInfo: pageInfoSchema }),
          })
          .nullable(),
      }),
    );
    if (!page.product) break;
    for (const v of page.product.variants.nodes)
      variants.push({
        id: v.id,
        sku: v.sku,
        price: v.price,
        options: v.selectedOptions,
        inventoryItemId: v.inventoryItem.id,
      });
    if (!page.product.variants.pageInfo.hasNextPage) break;
    after = page.product.variants.pageInfo.endCursor;
  }
  return { productId, variants };
}

export interface VariantStock {
  id: string;
  price: string;
  inventoryItemId: string;
  tracked: boolean;
  /** "available" at the location; null when the item is not stocked there. */
  available: number | null;
}

/** Variants' inventory items and stock at the location, 100 ids a call. */
export async function variantStock(
  call: Call,
  variantGids: string[],
  locationId: string,
): Promise<Map<string, VariantStock>> {
  const out = new Map<string, VariantStock>();
  const node = z
    .object({
      id: z.string().optional(),
      price: z.string().optional(),
      inventoryItem: z
        .object({
          id: z.string(),
          tracked: z.boolean(),
          inventoryLevel: z
            .object({ quantities: z.array(z.object({ name: z.string(), quantity: z.number() })) })
            .nullable(),
        })
        .optional(),
    })
    .nullable();
  for (let i = 0; i < variantGids.length; i += CATALOG_WRITE_LIMITS.nodes) {
    const ids = variantGids.slice(i, i + CATALOG_WRITE_LIMITS.nodes);
    const data = await call(
      VARIANT_INVENTORY_ITEMS,
      { ids, locationId },
      z.object({ nodes: z.array(node) }),
    );
    for (const n of data.nodes) {
      if (!n?.id || !n.inventoryItem) continue;
      const level = n.inventoryItem.inventoryLevel;
      out.set(n.id, {
        id: n.id,
        price: n.price ?? "",
        inventoryItemId: n.inventoryItem.id,
        tracked: n.inventoryItem.tracked,
        available: level
          ? (level.quantities.find((q) => q.name === "available")?.quantity ?? 0)
          : null,
      });
    }
  }
  return out;
}

/** New prices for variants of one product (≤ 250 a call). */
export async function updatePrices(
  call: Call,
  shop: string,
  productGid: string,
  variants: { id: string; price: string; compareAtPrice: string | null }[],
): Promise<void> {
  for (let i = 0; i < variants.length; i += CATALOG_WRITE_LIMITS.bulkVariants) {
    const data = await call(
      VARIANTS_BULK_UPDATE,
      { productId: productGid, variants: variants.slice(i, i + CATALOG_WRITE_LIMITS.bulkVariants) },
      z.object({ productVariantsBulkUpdate: z.object({ userErrors }) }),
    );
    if (data.productVariantsBulkUpdate.userErrors.length)
      refuse(shop, "VariantsBulkUpdate", data.productVariantsBulkUpdate.userErrors);
  }
}

/**
 * Sets "available" at the location for ≤ 250 items (the caller batches). `key` makes a retry of
 * the same batch harmless; changeFromQuantity is null: the supplier's stock is the truth.
 */
export async function setStock(
  call: Call,
  shop: string,
  key: string,
  locationId: string,
  items: { inventoryItemId: string; quantity: number }[],
): Promise<void> {
  const data = await call(
    INVENTORY_SET,
    {
      key,
      input: {
        name: "available",
        reason: "correction",
        referenceDocumentUri: `app://dropship-autopilot/stock-sync/${key}`,
        quantities: items.map((i) => ({
          inventoryItemId: i.inventoryItemId,
          locationId,
          quantity: i.quantity,
          changeFromQuantity: null,
        })),
      },
    },
    z.object({ inventorySetQuantities: z.object({ userErrors }) }),
  );
  if (data.inventorySetQuantities.userErrors.length)
    refuse(shop, "InventorySet", data.inventorySetQuantities.userErrors);
}
