/**
 * A shop order as the app reads it: the header (address, risk, statuses), every line item (in
 * pages) and, through fulfillment-orders.server.ts, every fulfilment order and fulfilment the app can
 * see. An order of a few lines costs two calls (GetOrder, GetOrderFulfillmentOrders).
 *
 * Protected customer data: until the app is granted it, Shopify answers the order's email and
 * the address's names, street, zip and phone with null (city, province and country stay).
 * `withheldCustomerData` tells that apart from an address that is merely incomplete.
 */
import { z } from "zod";
import {
  fulfillmentPageSizes,
  readFulfillmentState,
  type FulfillmentPageSizes,
} from "./fulfillment-orders.server";
import { type ShopFulfillment, type ShopFulfillmentOrder } from "./fulfillment-orders.shapes";
import {
  type ShopifyLineItemGid,
  type ShopifyOrderGid,
  type ShopifyProductGid,
  type ShopifyVariantGid,
  parseLineItemGid,
  parseOrderGid,
  parseProductGid,
  parseVariantGid,
} from "./ids";
import { GET_ORDER, GET_ORDER_LINE_ITEMS, ORDER_IN_SHOP, ORDER_PAGE } from "./orders.documents";
import { type Call, allPages, clamp, pageInfoSchema } from "./transport.server";

// ---------------------------------------------------------------------------------------------
// The app's view

export type RiskRecommendation = "ACCEPT" | "INVESTIGATE" | "CANCEL" | "NONE";

export interface SelectedOption {
  name: string;
  value: string;
}

export interface ShopOrderLine {
  id: ShopifyLineItemGid;
  productId: ShopifyProductGid | null;
  variantId: ShopifyVariantGid | null;
  sku: string | null;
  title: string;
  variantTitle: string | null;
  options: SelectedOption[];
  imageUrl: string | null;
  /** Quantity ordered, and what is left after removals (edits, refunds). */
  quantity: number;
  currentQuantity: number;
  unitPrice: { amount: string; currencyCode: string };
  requiresShipping: boolean;
}

export interface ShippingAddress {
  firstName: string | null;
  lastName: string | null;
  company: string | null;
  address1: string | null;
  address2: string | null;
  city: string | null;
  province: string | null;
  provinceCode: string | null;
  zip: string | null;
  country: string | null;
  countryCode: string | null;
  phone: string | null;
}

export interface ShopOrder {
  id: ShopifyOrderGid;
  name: string;
  email: string | null;
  createdAt: string;
  cancelledAt: string | null;
  currencyCode: string;
  financialStatus: string | null;
  fulfillmentStatus: string;
  shippingAddress: ShippingAddress | null;
  riskRecommendation: RiskRecommendation;
  /** Every line of the order (all pages). */
  lines: ShopOrderLine[];
  /** Every fulfilment order the app can see (those at a fulfilment service's location are not). */
  fulfillmentOrders: ShopFulfillmentOrder[];
  fulfillments: ShopFulfillment[];
}

// ---------------------------------------------------------------------------------------------
// Response schemas

const gid = <T>(parse: (v: unknown) => T) => z.string().transform((v) => parse(v));
const money = z.object({ amount: z.string(), currencyCode: z.string() });
const option = z.object({ name: z.string(), value: z.string() });

const addressSchema = z.object({
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  company: z.string().nullable(),
  address1: z.string().nullable(),
  address2: z.string().nullable(),
  city: z.string().nullable(),
  province: z.string().nullable(),
  provinceCode: z.string().nullable(),
  zip: z.string().nullable(),
  country: z.string().nullable(),
  countryCodeV2: z.string().nullable(),
  phone: z.string().nullable(),
});

const lineSchema = z.object({
  id: gid(parseLineItemGid),
  title: z.string(),
  variantTitle: z.string().nullable(),
  sku: z.string().nullable(),
  quantity: z.number().int(),
  currentQuantity: z.number().int(),
  requiresShipping: z.boolean(),
  image: z.object({ url: z.string() }).nullable(),
  product: z.object({ id: gid(parseProductGid) }).nullable(),
  variant: z.object({ id: gid(parseVariantGid), selectedOptions: z.array(option) }).nullable(),
  originalUnitPriceSet: z.object({ shopMoney: money }),
});
const linesSchema = z.object({ nodes: z.array(lineSchema), pageInfo: pageInfoSchema });

const orderSchema = z.object({
  id: gid(parseOrderGid),
  name: z.string(),
  email: z.string().nullable(),
  createdAt: z.string(),
  cancelledAt: z.string().nullable(),
  currencyCode: z.string(),
  displayFinancialStatus: z.string().nullable(),
  displayFulfillmentStatus: z.string(),
  shippingAddress: addressSchema.nullable(),
  risk: z.object({ recommendation: z.enum(["ACCEPT", "INVESTIGATE", "CANCEL", "NONE"]) }),
  lineItems: linesSchema,
});

const toLine = (l: z.infer<typeof lineSchema>): ShopOrderLine => ({
  id: l.id,
  productId: l.product?.id ?? null,
  variantId: l.variant?.id ?? null,
  sku: l.sku || null,
  title: l.title,
  variantTitle: l.variantTitle,
  options: l.variant?.selectedOptions ?? [],
  imageUrl: l.image?.url ?? null,
  quantity: l.quantity,
  currentQuantity: l.currentQuantity,
  unitPrice: l.originalUnitPriceSet.shopMoney,
  requiresShipping: l.requiresShipping,
});

// ---------------------------------------------------------------------------------------------
// Reading

export interface OrderPageSizes extends FulfillmentPageSizes {
  lines?: number;
  moreLines?: number;
}

export function orderPageSizes(o: OrderPageSizes = {}) {
  return {
    lines: clamp(o.lines ?? ORDER_PAGE.lines, 1, ORDER_PAGE.lines),
    moreLines: clamp(o.moreLines ?? ORDER_PAGE.moreLines, 1, ORDER_PAGE.moreLines),
    ...fulfillmentPageSizes(o),
  };
}

/** The whole order (every page of lines, fulfilment orders and fulfilments), or null. */
/** Whether the shop has the order (one call of cost 1). */
export async function orderInShop(call: Call, orderGid: ShopifyOrderGid): Promise<boolean> {
  const data = await call(
    ORDER_IN_SHOP,
    { id: orderGid },
    z.object({ order: z.object({ id: z.string() }).nullable() }),
  );
  return data.order !== null;
}

export async function readOrder(
  call: Call,
  shop: string,
  orderGid: ShopifyOrderGid,
  sizes: ReturnType<typeof orderPageSizes>,
): Promise<ShopOrder | null> {
  const data = await call(
    GET_ORDER,
    { id: orderGid, linesFirst: sizes.lines },
    z.object({ order: orderSchema.nullable() }),
  );
  const o = data.order;
  if (!o) return null;
  const lines = await allPages(
    { items: o.lineItems.nodes, pageInfo: o.lineItems.pageInfo },
    async (after) => {
      const next = await call(
        GET_ORDER_LINE_ITEMS,
        { id: orderGid, first: sizes.moreLines, after },
        z.object({ order: z.object({ id: z.string(), lineItems: linesSchema }).nullable() }),
      );
      const conn = next.order?.lineItems;
      return conn
        ? { items: conn.nodes, pageInfo: conn.pageInfo }
        : { items: [], pageInfo: { hasNextPage: false, endCursor: null } };
    },
  );
  const state = (await readFulfillmentState(call, shop, orderGid, sizes)) ?? {
    fulfillmentOrders: [],
    fulfillments: [],
  };
  return {
    id: o.id,
    name: o.name,
    email: o.email,
    createdAt: o.createdAt,
    cancelledAt: o.cancelledAt,
    currencyCode: o.currencyCode,
    financialStatus: o.displayFinancialStatus,
    fulfillmentStatus: o.displayFulfillmentStatus,
    shippingAddress: o.shippingAddress
      ? (({ countryCodeV2, ...rest }) => ({ ...rest, countryCode: countryCodeV2 }))(
          o.shippingAddress,
        )
      : null,
    riskRecommendation: o.risk.recommendation,
    lines: lines.map(toLine),
    fulfillmentOrders: state.fulfillmentOrders,
    fulfillments: state.fulfillments,
  };
}

// ---------------------------------------------------------------------------------------------
// Protected customer data

/** The kinds of protected customer data Shopify withholds from an app (level 2). */
export type WithheldData = "name" | "address";

/**
 * What Shopify withholds from this app on this order, judged from the shipping address: the
 * order has one (city, country are not protected and come through), yet every field of a kind
 * is null, which a real address never is (Shopify requires a last name and a street):
 * the names (firstName, lastName) or the street (address1, address2, zip).
 */
export function withheldCustomerData(o: Pick<ShopOrder, "shippingAddress">): WithheldData[] {
  const a = o.shippingAddress;
  if (!a) return [];
  const blank = (v: string | null) => v == null || v.trim() === "";
  const present = !blank(a.city) || !blank(a.countryCode) || !blank(a.country);
  if (!present) return [];
  const out: WithheldData[] = [];
  if (a.firstName === null && a.lastName === null) out.push("name");
  if (a.address1 === null && a.address2 === null && a.zip === null) out.push("address");
  return out;
}
