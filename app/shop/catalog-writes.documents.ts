/**
 * The Admin GraphQL documents of catalog-writes.server.ts (products, variants, stock, the shop's
 * basics) and the limits they are costed with; test/shop/documents.test.ts checks each.
 */
export const CATALOG_WRITE_LIMITS = {
  /** Variants read back per page after productSet (ProductVariantItems). */
  variantItems: 250,
  /** Quantities per inventorySetQuantities call (Shopify's limit). */
  quantities: 250,
  /** Variants per productVariantsBulkUpdate call. */
  bulkVariants: 250,
  /** Variant ids per VariantInventoryItems call. */
  nodes: 100,
} as const;

/** Requested cost 2: shop 1 + location 1. */
export const SHOP_BASICS = `#graphql
query ShopBasics {
  shop { currencyCode }
  location { id }
}`;

/**
 * Creates (or, with the same handle, replaces) a product. Requested cost 12: mutation 10 +
 * product 1 + userErrors 1 (the variants are read back with ProductVariantItems).
 */
export const PRODUCT_SET = `#graphql
mutation ProductSet($identifier: ProductSetIdentifiers, $input: ProductSetInput!) {
  productSet(identifier: $identifier, input: $input, synchronous: true) {
    product { id title }
    userErrors { field message code }
  }
}`;

/**
 * A product's variants with their inventory items and options. Worst-case requested cost 753:
 * product 1 + variants (2 + 250 × (ProductVariant 1 + inventoryItem 1 + selectedOptions 1)).
 */
export const PRODUCT_VARIANT_ITEMS = `#graphql
query ProductVariantItems($id: ID!, $first: Int!, $after: String) {
  product(id: $id) {
    id
    variants(first: $first, after: $after) {
      nodes {
        id
        sku
        price
        selectedOptions { name value }
        inventoryItem { id }
      }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

/**
 * Variants by id with their price, inventory item and quantity at one location. Worst-case
 * requested cost 400 (100 ids): 100 × (ProductVariant 1 + inventoryItem 1 + inventoryLevel 1 +
 * quantities 1).
 */
export const VARIANT_INVENTORY_ITEMS = `#graphql
query VariantInventoryItems($ids: [ID!]!, $locationId: ID!) {
  nodes(ids: $ids) {
    ... on ProductVariant {
      id
      price
      inventoryItem {
        id
        tracked
        inventoryLevel(locationId: $locationId) {
          quantities(names: ["available"]) { name quantity }
        }
      }
    }
  }
}`;

/** Prices of up to 250 variants of one product. Requested cost 12: mutation 10 + lists. */
export const VARIANTS_BULK_UPDATE = `#graphql
mutation VariantsBulkUpdate($productId: ID!, $variants: [ProductVariantsBulkInput!]!) {
  productVariantsBulkUpdate(productId: $productId, variants: $variants) {
    productVariants { id price }
    userErrors { field message code }
  }
}`;

/**
 * Absolute "available" quantities for up to 250 items (one idempotency key per batch, so a
 * retried call is applied once). Requested cost 12.
 */
export const INVENTORY_SET = `#graphql
mutation InventorySet($key: String!, $input: InventorySetQuantitiesInput!) {
  inventorySetQuantities(input: $input) @idempotent(key: $key) {
    inventoryAdjustmentGroup { id }
    userErrors { field message code }
  }
}`;

/** Requested cost 1: the shop's time zone (IANA name, e.g. "Europe/Paris"). */
export const SHOP_TIME_ZONE = `#graphql
query ShopTimeZone {
  shop { ianaTimezone }
}`;
