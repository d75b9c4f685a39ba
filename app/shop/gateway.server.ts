/**
 * The Shopify Admin GraphQL gateway: the app's only door to a shop's data. It runs over the
 * library's admin client (`admin.graphql(query, { variables })` → `Response`), so the same code
 * serves a request (`authenticate.admin`) and background work (`unauthenticated.admin`).
 *
 * One interface, split by resource: orders.server.ts (the order and its lines),
 * fulfillment-orders.server.ts (reading fulfilment orders and fulfilments), fulfillment-plan.ts
 * (where a parcel's lines go), fulfillments.server.ts (writing fulfilments and tracking),
 * products.server.ts; each
 * keeps its GraphQL documents beside it, and transport.server.ts runs them. Every response is
 * parsed with zod into the app's own types with branded ids (kept as strings); every failure
 * becomes a typed ShopError (errors.ts).
 */
import { readFulfillmentState } from "./fulfillment-orders.server";
import { type ShopFulfillmentState, type Tracking } from "./fulfillment-orders.shapes";
import {
  type CreateFulfillmentInput,
  type CreatedFulfillment,
  createFulfillment,
  readFulfillmentLines,
  updateTracking,
} from "./fulfillments.server";
import type {
  ShopDomain,
  ShopifyFulfillmentGid,
  ShopifyLineItemGid,
  ShopifyOrderGid,
  ShopifyProductGid,
} from "./ids";
import {
  type OrderPageSizes,
  type ShopOrder,
  orderInShop,
  orderPageSizes,
  readOrder,
} from "./orders.server";
import {
  type Page,
  type ShopProduct,
  type ShopVariant,
  listProductVariants,
  listProducts,
} from "./products.server";
import { type GatewayOptions, createCall } from "./transport.server";
import {
  type ProductSetInput,
  type VariantItem,
  type VariantStock,
  setProduct,
  setStock,
  updatePrices,
  variantStock,
} from "./catalog-writes.server";
import { type ShopBasics, shopBasics, shopTimeZone } from "./shop-basics.server";

export * from "./fulfillment-orders.server";
export * from "./fulfillment-orders.shapes";
export * from "./fulfillment-plan";
export * from "./fulfillments.server";
export * from "./orders.server";
export * from "./products.server";
export * from "./catalog-writes.server";
export * from "./shop-basics.server";
export { type AdminGraphql, type GatewayOptions, operationName } from "./transport.server";

export interface ShopGateway {
  readonly shop: ShopDomain;
  /**
   * The order with every line, its risk, and every fulfilment order and fulfilment the app can
   * see; null if not found. Two calls for an ordinary order; more pages as the order needs.
   */
  getOrder(orderGid: ShopifyOrderGid): Promise<ShopOrder | null>;
  /** Whether the shop has the order (one call of cost 1: a webhook's order checked). */
  hasOrder(orderGid: ShopifyOrderGid): Promise<boolean>;
  /** Only the fulfilment orders and fulfilments (one call for an ordinary order); null if gone. */
  getFulfillmentState(orderGid: ShopifyOrderGid): Promise<ShopFulfillmentState | null>;
  /**
   * Fulfils the given quantities of the given order lines with one tracking number: the lines
   * are placed on the order's fulfillable fulfilment orders (one call per location, ≤ 250 items
   * per call) and `fulfillmentCreate` is called. Lines not named stay unfulfilled (split
   * shipments). Throws ShopFulfillmentNotReadyError when lines wait on a held or scheduled
   * fulfilment order, ShopFulfillmentPlanError when more is asked than is open.
   */
  createFulfillment(input: CreateFulfillmentInput): Promise<CreatedFulfillment[]>;
  /**
   * The order lines and quantities of a fulfilment (quantity null when Shopify does not say);
   * null if it is not found.
   */
  getFulfillmentLines(
    fulfillmentGid: ShopifyFulfillmentGid,
  ): Promise<{ lineItemId: ShopifyLineItemGid; quantity: number | null }[] | null>;
  /** Replaces a fulfilment's tracking (`fulfillmentTrackingInfoUpdate`). */
  updateTracking(
    fulfillmentGid: ShopifyFulfillmentGid,
    tracking: Tracking,
    notifyCustomer: boolean,
  ): Promise<{ id: ShopifyFulfillmentGid; tracking: Tracking[] }>;
  listProducts(opts?: {
    first?: number;
    after?: string | null;
    query?: string;
    variantsFirst?: number;
  }): Promise<Page<ShopProduct>>;
  listProductVariants(
    productGid: ShopifyProductGid,
    opts?: { first?: number; after?: string | null },
  ): Promise<Page<ShopVariant>>;
  /** The shop's currency and primary location (catalog/ import and stock sync). */
  shopBasics(): Promise<ShopBasics>;
  /** The shop's IANA time zone (the pages show times in it). */
  timeZone(): Promise<string>;
  /** productSet by handle, then every variant with its inventory item. */
  setProduct(input: ProductSetInput): Promise<{ productId: string; variants: VariantItem[] }>;
  /** Variants' price, inventory item and "available" at the location (100 ids a call). */
  variantStock(variantGids: string[], locationId: string): Promise<Map<string, VariantStock>>;
  updatePrices(
    productGid: string,
    variants: { id: string; price: string; compareAtPrice: string | null }[],
  ): Promise<void>;
  /** ≤ 250 absolute quantities in one idempotent call. */
  setStock(
    key: string,
    locationId: string,
    items: { inventoryItemId: string; quantity: number }[],
  ): Promise<void>;
}

export function createShopGateway(
  opts: GatewayOptions & {
    /** Smaller pages than the defaults (tests); never larger. */
    pageSizes?: OrderPageSizes;
  },
): ShopGateway {
  const { shop } = opts;
  const call = createCall(opts);
  const sizes = orderPageSizes(opts.pageSizes);
  return {
    shop,
    getOrder: (orderGid) => readOrder(call, shop, orderGid, sizes),
    hasOrder: (orderGid) => orderInShop(call, orderGid),
    getFulfillmentState: (orderGid) => readFulfillmentState(call, shop, orderGid, sizes),
    createFulfillment: (input) =>
      createFulfillment(call, shop, input, async () => {
        const state = await readFulfillmentState(call, shop, input.orderGid, sizes);
        return state?.fulfillmentOrders ?? null;
      }),
    getFulfillmentLines: (fulfillmentGid) =>
      readFulfillmentLines(call, fulfillmentGid, sizes.fulfillmentLines),
    updateTracking: (fulfillmentGid, tracking, notifyCustomer) =>
      updateTracking(call, shop, fulfillmentGid, tracking, notifyCustomer),
    listProducts: (o) => listProducts(call, o),
    listProductVariants: (productGid, o) => listProductVariants(call, shop, productGid, o),
    shopBasics: () => shopBasics(call),
    timeZone: () => shopTimeZone(call),
    setProduct: (input) => setProduct(call, shop, input),
    variantStock: (ids, locationId) => variantStock(call, ids, locationId),
    updatePrices: (productGid, variants) => updatePrices(call, shop, productGid, variants),
    setStock: (key, locationId, items) => setStock(call, shop, key, locationId, items),
  };
}
