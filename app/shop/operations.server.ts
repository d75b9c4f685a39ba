/**
 * Every Admin GraphQL operation the app sends, named (the name shows in Shopify's logs and in
 * the shop simulator's call log), with the variables of its most expensive call: the largest
 * page sizes the gateway sends. test/shop/documents.test.ts validates each against Shopify's
 * schema, computes its requested cost with these variables (≤ 1,000) and checks that the app's
 * scopes can read every field. API version: the app's (October26 = 2026-10).
 */
import {
  FULFILLMENT_PAGE,
  GET_FULFILLMENT_ORDER_FULFILLMENTS,
  GET_FULFILLMENT_ORDER_LINE_ITEMS,
  GET_ORDER_FULFILLMENT_ORDERS,
  GET_ORDER_FULFILLMENT_ORDERS_WITHOUT_LOCATION,
} from "./fulfillment-orders.documents";
import {
  CREATE_FULFILLMENT,
  GET_FULFILLMENT_LINE_ITEMS,
  UPDATE_FULFILLMENT_TRACKING,
} from "./fulfillments.server";
import { GET_ORDER, GET_ORDER_LINE_ITEMS, ORDER_IN_SHOP, ORDER_PAGE } from "./orders.documents";
import { LIST_PRODUCTS, LIST_PRODUCT_VARIANTS, PRODUCT_PAGE } from "./products.server";
import {
  CATALOG_WRITE_LIMITS,
  INVENTORY_SET,
  PRODUCT_SET,
  PRODUCT_VARIANT_ITEMS,
  SHOP_BASICS,
  SHOP_TIME_ZONE,
  VARIANTS_BULK_UPDATE,
  VARIANT_INVENTORY_ITEMS,
} from "./catalog-writes.documents";

export {
  CREATE_FULFILLMENT,
  GET_FULFILLMENT_LINE_ITEMS,
  GET_FULFILLMENT_ORDER_FULFILLMENTS,
  GET_FULFILLMENT_ORDER_LINE_ITEMS,
  GET_ORDER,
  GET_ORDER_FULFILLMENT_ORDERS,
  GET_ORDER_FULFILLMENT_ORDERS_WITHOUT_LOCATION,
  GET_ORDER_LINE_ITEMS,
  LIST_PRODUCTS,
  LIST_PRODUCT_VARIANTS,
  UPDATE_FULFILLMENT_TRACKING,
};
export { operationName } from "./transport.server";

export interface Operation {
  document: string;
  /** The variables of the most expensive call the app makes with it. */
  worstCaseVariables: Record<string, unknown>;
  /** Where it lives (for a reader of the cost table). */
  module: string;
}

const ID = "gid://shopify/Order/1";
const FO = "gid://shopify/FulfillmentOrder/1";

export const OPERATIONS: Record<string, Operation> = {
  GetOrder: {
    document: GET_ORDER,
    worstCaseVariables: { id: ID, linesFirst: ORDER_PAGE.lines },
    module: "app/shop/orders.documents.ts",
  },
  OrderInShop: {
    document: ORDER_IN_SHOP,
    worstCaseVariables: { id: ID },
    module: "app/shop/orders.documents.ts",
  },
  GetOrderLineItems: {
    document: GET_ORDER_LINE_ITEMS,
    worstCaseVariables: { id: ID, first: ORDER_PAGE.moreLines, after: "c" },
    module: "app/shop/orders.documents.ts",
  },
  GetOrderFulfillmentOrders: {
    document: GET_ORDER_FULFILLMENT_ORDERS,
    worstCaseVariables: {
      id: ID,
      first: FULFILLMENT_PAGE.fulfillmentOrders,
      after: "c",
      linesFirst: FULFILLMENT_PAGE.fulfillmentOrderLines,
      fulfillmentsFirst: FULFILLMENT_PAGE.fulfillmentOrderFulfillments,
    },
    module: "app/shop/fulfillment-orders.documents.ts",
  },
  GetOrderFulfillmentOrdersWithoutLocation: {
    document: GET_ORDER_FULFILLMENT_ORDERS_WITHOUT_LOCATION,
    worstCaseVariables: {
      id: ID,
      first: FULFILLMENT_PAGE.fulfillmentOrders,
      after: "c",
      linesFirst: FULFILLMENT_PAGE.fulfillmentOrderLines,
      fulfillmentsFirst: FULFILLMENT_PAGE.fulfillmentOrderFulfillments,
    },
    module: "app/shop/fulfillment-orders.documents.ts",
  },
  GetFulfillmentOrderLineItems: {
    document: GET_FULFILLMENT_ORDER_LINE_ITEMS,
    worstCaseVariables: { id: FO, first: FULFILLMENT_PAGE.moreFulfillmentOrderLines, after: "c" },
    module: "app/shop/fulfillment-orders.documents.ts",
  },
  GetFulfillmentOrderFulfillments: {
    document: GET_FULFILLMENT_ORDER_FULFILLMENTS,
    worstCaseVariables: { id: FO, first: FULFILLMENT_PAGE.moreFulfillments, after: "c" },
    module: "app/shop/fulfillment-orders.documents.ts",
  },
  GetFulfillmentLineItems: {
    document: GET_FULFILLMENT_LINE_ITEMS,
    worstCaseVariables: {
      id: "gid://shopify/Fulfillment/1",
      first: FULFILLMENT_PAGE.fulfillmentLines,
      after: "c",
    },
    module: "app/shop/fulfillments.server.ts",
  },
  CreateFulfillment: {
    document: CREATE_FULFILLMENT,
    worstCaseVariables: {},
    module: "app/shop/fulfillments.server.ts",
  },
  UpdateFulfillmentTracking: {
    document: UPDATE_FULFILLMENT_TRACKING,
    worstCaseVariables: {},
    module: "app/shop/fulfillments.server.ts",
  },
  ListProducts: {
    document: LIST_PRODUCTS,
    worstCaseVariables: {
      first: PRODUCT_PAGE.products,
      after: "c",
      query: "sku:X",
      variantsFirst: PRODUCT_PAGE.variants,
    },
    module: "app/shop/products.server.ts",
  },
  ListProductVariants: {
    document: LIST_PRODUCT_VARIANTS,
    worstCaseVariables: { id: "gid://shopify/Product/1", first: PRODUCT_PAGE.moreVariants },
    module: "app/shop/products.server.ts",
  },
  ShopBasics: {
    document: SHOP_BASICS,
    worstCaseVariables: {},
    module: "app/shop/catalog-writes.documents.ts",
  },
  ShopTimeZone: {
    document: SHOP_TIME_ZONE,
    worstCaseVariables: {},
    module: "app/shop/catalog-writes.documents.ts",
  },
  ProductSet: {
    document: PRODUCT_SET,
    worstCaseVariables: {},
    module: "app/shop/catalog-writes.documents.ts",
  },
  ProductVariantItems: {
    document: PRODUCT_VARIANT_ITEMS,
    worstCaseVariables: {
      id: "gid://shopify/Product/1",
      first: CATALOG_WRITE_LIMITS.variantItems,
      after: "c",
    },
    module: "app/shop/catalog-writes.documents.ts",
  },
  VariantInventoryItems: {
    document: VARIANT_INVENTORY_ITEMS,
    worstCaseVariables: {
      ids: Array.from(
        { length: CATALOG_WRITE_LIMITS.nodes },
        (_, i) => `gid://shopify/ProductVariant/${i + 1}`,
      ),
      locationId: "gid://shopify/Location/1",
    },
    module: "app/shop/catalog-writes.documents.ts",
  },
  VariantsBulkUpdate: {
    document: VARIANTS_BULK_UPDATE,
    worstCaseVariables: {},
    module: "app/shop/catalog-writes.documents.ts",
  },
  InventorySet: {
    document: INVENTORY_SET,
    worstCaseVariables: {},
    module: "app/shop/catalog-writes.documents.ts",
  },
};
