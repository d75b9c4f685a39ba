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
import { z } from "zod";
import { ShopAuthError } from "./errors";
import {
  type ShopifyFulfillmentGid,
  type ShopifyFulfillmentOrderGid,
  type ShopifyFulfillmentOrderLineItemGid,
  type ShopifyLineItemGid,
  type ShopifyOrderGid,
  parseFulfillmentGid,
  parseFulfillmentOrderGid,
  parseFulfillmentOrderLineItemGid,
  parseLineItemGid,
} from "./ids";
import { type Call, allPages, clamp, pageInfoSchema } from "./transport.server";

// ---------------------------------------------------------------------------------------------
// Page sizes (the largest the gateway sends; the costs below are computed with these)

export const FULFILLMENT_PAGE = {
  /** Fulfilment orders per page of GetOrderFulfillmentOrders. */
  fulfillmentOrders: 8,
  /** Line items of each fulfilment order on that page. */
  fulfillmentOrderLines: 40,
  /** Fulfilments of each fulfilment order on that page. */
  fulfillmentOrderFulfillments: 5,
  /** Further pages of one fulfilment order's line items. */
  moreFulfillmentOrderLines: 250,
  /** Further pages of one fulfilment order's fulfilments. */
  moreFulfillments: 50,
  /** Line items per page of one fulfilment (GetFulfillmentLineItems). */
  fulfillmentLines: 250,
} as const;

const FO_LINE = `id remainingQuantity totalQuantity lineItem { id }`;
const FULFILLMENT = `id status createdAt trackingInfo(first: 3) { number url company }`;

/**
 * The order's fulfilment orders, a page at a time, each with its first page of line items and
 * of fulfilments. Worst-case requested cost 875 (first 8, linesFirst 40, fulfillmentsFirst 5):
 * order 1 + fulfillmentOrders 2 + 8 × (FulfillmentOrder 1 + supportedActions 1
 * + fulfillmentHolds 1 + assignedLocation 1 + location 1 + lineItems (2 + 40 × 2)
 * + fulfillments (2 + 5 × (1 + trackingInfo 3))) = 1 + 2 + 8 × 109.
 */
export const GET_ORDER_FULFILLMENT_ORDERS = `#graphql
query GetOrderFulfillmentOrders(
  $id: ID!
  $first: Int!
  $after: String
  $linesFirst: Int!
  $fulfillmentsFirst: Int!
) {
  order(id: $id) {
    id
    fulfillmentOrders(first: $first, after: $after) {
      nodes {
        id
        status
        fulfillAt
        supportedActions { action }
        fulfillmentHolds { reason reasonNotes }
        assignedLocation { location { id } }
        lineItems(first: $linesFirst) {
          nodes { ${FO_LINE} }
          pageInfo { hasNextPage endCursor }
        }
        fulfillments(first: $fulfillmentsFirst) {
          nodes { ${FULFILLMENT} }
          pageInfo { hasNextPage endCursor }
        }
      }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

/**
 * The same without the location, for a shop that has not approved `read_locations` yet (an
 * install from before the app asked for it): each fulfilment order then gets its own
 * fulfillmentCreate. Worst-case requested cost 859 (as above without assignedLocation and
 * location: 8 × 107 + 3).
 */
export const GET_ORDER_FULFILLMENT_ORDERS_WITHOUT_LOCATION = `#graphql
query GetOrderFulfillmentOrdersWithoutLocation(
  $id: ID!
  $first: Int!
  $after: String
  $linesFirst: Int!
  $fulfillmentsFirst: Int!
) {
  order(id: $id) {
    id
    fulfillmentOrders(first: $first, after: $after) {
      nodes {
        id
        status
        fulfillAt
        supportedActions { action }
        fulfillmentHolds { reason reasonNotes }
        lineItems(first: $linesFirst) {
          nodes { ${FO_LINE} }
          pageInfo { hasNextPage endCursor }
        }
        fulfillments(first: $fulfillmentsFirst) {
          nodes { ${FULFILLMENT} }
          pageInfo { hasNextPage endCursor }
        }
      }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

/**
 * Further line items of one fulfilment order. Worst-case requested cost 503 (first 250):
 * fulfillmentOrder 1 + lineItems (2 + 250 × (1 + lineItem 1)).
 */
export const GET_FULFILLMENT_ORDER_LINE_ITEMS = `#graphql
query GetFulfillmentOrderLineItems($id: ID!, $first: Int!, $after: String) {
  fulfillmentOrder(id: $id) {
    id
    lineItems(first: $first, after: $after) {
      nodes { ${FO_LINE} }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

/**
 * Further fulfilments of one fulfilment order. Worst-case requested cost 203 (first 50):
 * fulfillmentOrder 1 + fulfillments (2 + 50 × (1 + trackingInfo 3)).
 */
export const GET_FULFILLMENT_ORDER_FULFILLMENTS = `#graphql
query GetFulfillmentOrderFulfillments($id: ID!, $first: Int!, $after: String) {
  fulfillmentOrder(id: $id) {
    id
    fulfillments(first: $first, after: $after) {
      nodes { ${FULFILLMENT} }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

// ---------------------------------------------------------------------------------------------
// The app's view

export type FulfillmentOrderStatus =
  | "OPEN"
  | "IN_PROGRESS"
  | "CLOSED"
  | "CANCELLED"
  | "INCOMPLETE"
  | "ON_HOLD"
  | "SCHEDULED";

export interface ShopFulfillmentOrder {
  id: ShopifyFulfillmentOrderGid;
  status: FulfillmentOrderStatus | (string & {});
  /** What Shopify lets the app do with it now (CREATE_FULFILLMENT, …). */
  supportedActions: string[];
  /** When a SCHEDULED fulfilment order opens. */
  fulfillAt: string | null;
  /** Why it is ON_HOLD (the hold reasons and notes). */
  holds: { reason: string; notes: string | null }[];
  /** The assigned location's GID (`read_locations`); null when Shopify gives none. */
  locationId: string | null;
  lineItems: {
    id: ShopifyFulfillmentOrderLineItemGid;
    lineItemId: ShopifyLineItemGid;
    remainingQuantity: number;
    totalQuantity: number;
  }[];
}

export interface Tracking {
  number: string;
  url?: string | null;
  company?: string | null;
}

export interface ShopFulfillment {
  id: ShopifyFulfillmentGid;
  status: string;
  createdAt: string;
  tracking: Tracking[];
}

/** What the app can see of an order's fulfilment: every fulfilment order and fulfilment. */
export interface ShopFulfillmentState {
  fulfillmentOrders: ShopFulfillmentOrder[];
  fulfillments: ShopFulfillment[];
}

// ---------------------------------------------------------------------------------------------
// Response schemas

const gid = <T>(parse: (v: unknown) => T) => z.string().transform((v) => parse(v));

export const trackingInfo = z.object({
  number: z.string().nullable(),
  url: z.string().nullable(),
  company: z.string().nullable(),
});

const foLineSchema = z.object({
  id: gid(parseFulfillmentOrderLineItemGid),
  remainingQuantity: z.number().int(),
  totalQuantity: z.number().int(),
  lineItem: z.object({ id: gid(parseLineItemGid) }),
});
const foLinesSchema = z.object({ nodes: z.array(foLineSchema), pageInfo: pageInfoSchema });

const fulfillmentSchema = z.object({
  id: gid(parseFulfillmentGid),
  status: z.string(),
  createdAt: z.string(),
  trackingInfo: z.array(trackingInfo),
});
const fulfillmentsSchema = z.object({
  nodes: z.array(fulfillmentSchema),
  pageInfo: pageInfoSchema,
});

const fulfillmentOrderSchema = z.object({
  id: gid(parseFulfillmentOrderGid),
  status: z.string(),
  fulfillAt: z.string().nullable(),
  supportedActions: z.array(z.object({ action: z.string() })),
  fulfillmentHolds: z.array(z.object({ reason: z.string(), reasonNotes: z.string().nullable() })),
  assignedLocation: z
    .object({ location: z.object({ id: z.string() }).nullable() })
    .nullable()
    .optional(),
  lineItems: foLinesSchema,
  fulfillments: fulfillmentsSchema,
});

export const toTracking = (t: z.infer<typeof trackingInfo>): Tracking => ({
  number: t.number ?? "",
  url: t.url,
  company: t.company,
});

const toFulfillment = (f: z.infer<typeof fulfillmentSchema>): ShopFulfillment => ({
  id: f.id,
  status: f.status,
  createdAt: f.createdAt,
  tracking: f.trackingInfo.map(toTracking),
});

const toFoLine = (li: z.infer<typeof foLineSchema>) => ({
  id: li.id,
  lineItemId: li.lineItem.id,
  remainingQuantity: li.remainingQuantity,
  totalQuantity: li.totalQuantity,
});

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
