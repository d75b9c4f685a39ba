/**
 * Reading an order's fulfilment orders and their fulfilments, every page: the fulfilment orders
 * a page at a time, each with its first page of line items and of fulfilments, and further
 * pages of either for the fulfilment orders that have more. An ordinary order: one call.
 *
 * What Shopify shows here (2026-10): seven statuses, supportedActions (what the app may do
 * now), holds and fulfillAt; the assigned location (`read_locations`; an install that has not
 * approved it yet is read without it); fulfilment orders at a fulfilment-service location are
 * invisible with merchant-managed scopes and simply absent.
 *
 * Costs: each document's worst-case requested cost, with the page sizes the gateway sends
 * (FULFILLMENT_PAGE), is written beside it and checked by test/shop/documents.test.ts.
 */
import {
  FULFILLMENT_PAGE,
  GET_ORDER_FULFILLMENT_ORDERS,
  GET_ORDER_FULFILLMENT_ORDERS_WITHOUT_LOCATION,
  GET_FULFILLMENT_ORDER_LINE_ITEMS,
  GET_FULFILLMENT_ORDER_FULFILLMENTS,
} from "./fulfillment-orders.documents";
import {
  foLinesSchema,
  fulfillmentOrderSchema,
  fulfillmentsSchema,
  toFoLine,
  toFulfillment,
  type ShopFulfillment,
  type ShopFulfillmentOrder,
  type ShopFulfillmentState,
} from "./fulfillment-orders.shapes";
import { z } from "zod";
import { ShopAuthError } from "./errors";
import { type ShopifyFulfillmentOrderGid, type ShopifyOrderGid } from "./ids";
import { type Call, allPages, clamp, pageInfoSchema } from "./transport.server";
// ---------------------------------------------------------------------------------------------
// Reading

export interface FulfillmentPageSizes {
  fulfillmentOrders?: number;
  fulfillmentOrderLines?: number;
  fulfillmentOrderFulfillments?: number;
  moreFulfillmentOrderLines?: number;
  moreFulfillments?: number;
  fulfillmentLines?: number;
}

/** Page sizes as sent: the caller's (tests page small) but never above FULFILLMENT_PAGE. */
export function fulfillmentPageSizes(o: FulfillmentPageSizes = {}) {
  const size = (k: keyof typeof FULFILLMENT_PAGE) =>
    clamp(o[k] ?? FULFILLMENT_PAGE[k], 1, FULFILLMENT_PAGE[k]);
  return {
    fulfillmentOrders: size("fulfillmentOrders"),
    fulfillmentOrderLines: size("fulfillmentOrderLines"),
    fulfillmentOrderFulfillments: size("fulfillmentOrderFulfillments"),
    moreFulfillmentOrderLines: size("moreFulfillmentOrderLines"),
    moreFulfillments: size("moreFulfillments"),
    fulfillmentLines: size("fulfillmentLines"),
  };
}

/**
 * Shops whose token lacks `read_locations` (seen denied in this process), until when the
 * location is left out (then asked again: the merchant may have approved it meanwhile).
 */
const withoutLocation = new Map<string, number>();
const WITHOUT_LOCATION_MS = 3600_000;

const isLocationDenied = (error: unknown) =>
  error instanceof ShopAuthError &&
  error.status === 200 &&
  /Access denied for location field/i.test(error.message);

/**
 * Every fulfilment order of the order the app can see (with every line item) and every
 * fulfilment on them; null when the order is not found. A fulfilment on several fulfilment
 * orders is listed once.
 */
export async function readFulfillmentState(
  call: Call,
  shop: string,
  orderGid: ShopifyOrderGid,
  sizes: ReturnType<typeof fulfillmentPageSizes>,
): Promise<ShopFulfillmentState | null> {
  const pageSchema = z.object({
    order: z
      .object({
        id: z.string(),
        fulfillmentOrders: z.object({
          nodes: z.array(fulfillmentOrderSchema),
          pageInfo: pageInfoSchema,
        }),
      })
      .nullable(),
  });
  type PageData = z.infer<typeof pageSchema>["order"];
  const page = async (after: string | null): Promise<PageData> => {
    const withLocation = (withoutLocation.get(shop) ?? 0) < Date.now();
    const run = () =>
      call(
        withLocation ? GET_ORDER_FULFILLMENT_ORDERS : GET_ORDER_FULFILLMENT_ORDERS_WITHOUT_LOCATION,
        {
          id: orderGid,
          first: sizes.fulfillmentOrders,
          after,
          linesFirst: sizes.fulfillmentOrderLines,
          fulfillmentsFirst: sizes.fulfillmentOrderFulfillments,
        },
        pageSchema,
      );
    try {
      return (await run()).order;
    } catch (error) {
      if (!withLocation || !isLocationDenied(error)) throw error;
      // Not approved yet: read without it from now on (until the process restarts).
      withoutLocation.set(shop, Date.now() + WITHOUT_LOCATION_MS);
      return page(after);
    }
  };
  const first = await page(null);
  if (!first) return null;
  const nodes = await allPages(
    { items: first.fulfillmentOrders.nodes, pageInfo: first.fulfillmentOrders.pageInfo },
    async (after) => {
      const next = await page(after);
      if (!next) return { items: [], pageInfo: { hasNextPage: false, endCursor: null } };
      return { items: next.fulfillmentOrders.nodes, pageInfo: next.fulfillmentOrders.pageInfo };
    },
  );

  const fulfillments = new Map<string, ShopFulfillment>();
  const fulfillmentOrders: ShopFulfillmentOrder[] = [];
  for (const fo of nodes) {
    const lines = await allPages(
      { items: fo.lineItems.nodes, pageInfo: fo.lineItems.pageInfo },
      (after) => moreFoLines(call, fo.id, after, sizes.moreFulfillmentOrderLines),
    );
    const done = await allPages(
      { items: fo.fulfillments.nodes, pageInfo: fo.fulfillments.pageInfo },
      (after) => moreFulfillments(call, fo.id, after, sizes.moreFulfillments),
    );
    for (const f of done) if (!fulfillments.has(f.id)) fulfillments.set(f.id, toFulfillment(f));
    fulfillmentOrders.push({
      id: fo.id,
      status: fo.status,
      supportedActions: fo.supportedActions.map((a) => a.action),
      fulfillAt: fo.fulfillAt,
      holds: fo.fulfillmentHolds.map((h) => ({ reason: h.reason, notes: h.reasonNotes })),
      // Without the location, a fulfilment order is its own group (always accepted alone).
      locationId: fo.assignedLocation ? (fo.assignedLocation.location?.id ?? null) : `fo:${fo.id}`,
      lineItems: lines.map(toFoLine),
    });
  }
  return { fulfillmentOrders, fulfillments: [...fulfillments.values()] };
}

async function moreFoLines(
  call: Call,
  foGid: ShopifyFulfillmentOrderGid,
  after: string,
  first: number,
) {
  const data = await call(
    GET_FULFILLMENT_ORDER_LINE_ITEMS,
    { id: foGid, first, after },
    z.object({
      fulfillmentOrder: z.object({ id: z.string(), lineItems: foLinesSchema }).nullable(),
    }),
  );
  const conn = data.fulfillmentOrder?.lineItems;
  return conn
    ? { items: conn.nodes, pageInfo: conn.pageInfo }
    : { items: [], pageInfo: { hasNextPage: false, endCursor: null } };
}

async function moreFulfillments(
  call: Call,
  foGid: ShopifyFulfillmentOrderGid,
  after: string,
  first: number,
) {
  const data = await call(
    GET_FULFILLMENT_ORDER_FULFILLMENTS,
    { id: foGid, first, after },
    z.object({
      fulfillmentOrder: z.object({ id: z.string(), fulfillments: fulfillmentsSchema }).nullable(),
    }),
  );
  const conn = data.fulfillmentOrder?.fulfillments;
  return conn
    ? { items: conn.nodes, pageInfo: conn.pageInfo }
    : { items: [], pageInfo: { hasNextPage: false, endCursor: null } };
}
