/**
 * Fulfilment orders and fulfilments of a shop order: reading them (every page), placing the
 * service's parcels on them (fulfillmentCreate, in calls Shopify accepts) and changing tracking.
 *
 * Shopify's rules applied here (2026-10):
 * - a fulfilment order is fulfilled only when its supportedActions list CREATE_FULFILLMENT; one
 *   ON_HOLD or SCHEDULED (or otherwise not yet fulfillable) is not a conflict but "not yet":
 *   ShopFulfillmentNotReadyError, retried later by the track job;
 * - fulfillmentCreate takes fulfilment orders of one location only (grouped by the assigned
 *   location, which needs `read_locations`), and no input array holds more than 250 items;
 * - fulfilment orders at a fulfilment-service location are invisible with merchant-managed
 *   scopes: they are not the app's to fulfil (placing leaves their lines out).
 *
 * Costs: each document's worst-case requested cost, with the page sizes the gateway sends
 * (PAGE below), is written beside it and checked by test/shop/documents.test.ts.
 */
import { z } from "zod";
import {
  ShopAuthError,
  ShopFulfillmentNotReadyError,
  ShopFulfillmentPlanError,
  ShopNotFoundError,
  ShopUserError,
} from "./errors";
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
import { type Call, allPages, clamp, pageInfoSchema, userErrorsSchema } from "./transport.server";

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

/** At most this many items in one input array (Shopify's limit for list arguments). */
export const MAX_INPUT_ITEMS = 250;

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

/**
 * The line items of one fulfilment (to finish a fulfilment written in part before a crash).
 * Worst-case requested cost 503 (first 250): fulfillment 1 + fulfillmentLineItems (2 + 250 ×
 * (FulfillmentLineItem 1 + lineItem 1)).
 */
export const GET_FULFILLMENT_LINE_ITEMS = `#graphql
query GetFulfillmentLineItems($id: ID!, $first: Int!, $after: String) {
  fulfillment(id: $id) {
    id
    fulfillmentLineItems(first: $first, after: $after) {
      nodes { id quantity lineItem { id } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

/**
 * One fulfilment with tracking. Requested cost 15: mutation 10 + fulfillment 1 + trackingInfo
 * 3 + userErrors 1. Its input holds ≤ 250 fulfilment orders of one location and ≤ 250 lines.
 */
export const CREATE_FULFILLMENT = `#graphql
mutation CreateFulfillment($fulfillment: FulfillmentInput!) {
  fulfillmentCreate(fulfillment: $fulfillment) {
    fulfillment {
      id
      status
      trackingInfo(first: 3) { number url company }
    }
    userErrors { field message }
  }
}`;

/** A fulfilment's new tracking. Requested cost 15 (as CreateFulfillment). */
export const UPDATE_FULFILLMENT_TRACKING = `#graphql
mutation UpdateFulfillmentTracking(
  $fulfillmentId: ID!
  $trackingInfoInput: FulfillmentTrackingInput!
  $notifyCustomer: Boolean
) {
  fulfillmentTrackingInfoUpdate(
    fulfillmentId: $fulfillmentId
    trackingInfoInput: $trackingInfoInput
    notifyCustomer: $notifyCustomer
  ) {
    fulfillment {
      id
      status
      trackingInfo(first: 3) { number url company }
    }
    userErrors { field message }
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

export interface CreateFulfillmentInput {
  orderGid: ShopifyOrderGid;
  lineItems: { lineItemGid: ShopifyLineItemGid; quantity: number }[];
  tracking: Tracking;
  notifyCustomer: boolean;
  /**
   * The order's fulfilment orders as last read, to save a round trip. Without them the gateway
   * reads them first. A stale copy is safe: Shopify refuses quantities no longer open, and that
   * refusal comes back as a ShopUserError.
   */
  fulfillmentOrders?: ShopFulfillmentOrder[];
}

export interface CreatedFulfillment {
  id: ShopifyFulfillmentGid;
  status: string;
  tracking: Tracking[];
  fulfillmentOrderIds: ShopifyFulfillmentOrderGid[];
}

// ---------------------------------------------------------------------------------------------
// Response schemas

const gid = <T>(parse: (v: unknown) => T) => z.string().transform((v) => parse(v));

const trackingInfo = z.object({
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

const fulfillmentPayload = z.object({
  fulfillment: z
    .object({
      id: gid(parseFulfillmentGid),
      status: z.string(),
      trackingInfo: z.array(trackingInfo),
    })
    .nullable(),
  userErrors: userErrorsSchema,
});

const toTracking = (t: z.infer<typeof trackingInfo>): Tracking => ({
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

/**
 * What a fulfilment holds: order line and quantity. Shopify's FulfillmentLineItem.quantity may
 * be null (unknown); it is passed on as null. Null when the fulfilment is not found.
 */
export async function readFulfillmentLines(
  call: Call,
  fulfillmentGid: ShopifyFulfillmentGid,
  first: number,
): Promise<{ lineItemId: ShopifyLineItemGid; quantity: number | null }[] | null> {
  const lineSchema = z.object({
    id: z.string(),
    quantity: z.number().int().nullable(),
    lineItem: z.object({ id: gid(parseLineItemGid) }),
  });
  const schema = z.object({
    fulfillment: z
      .object({
        id: z.string(),
        fulfillmentLineItems: z.object({ nodes: z.array(lineSchema), pageInfo: pageInfoSchema }),
      })
      .nullable(),
  });
  const page = async (after: string | null) => {
    const data = await call(
      GET_FULFILLMENT_LINE_ITEMS,
      { id: fulfillmentGid, first, after },
      schema,
    );
    return data.fulfillment?.fulfillmentLineItems ?? null;
  };
  const head = await page(null);
  if (!head) return null;
  const nodes = await allPages({ items: head.nodes, pageInfo: head.pageInfo }, async (after) => {
    const next = await page(after);
    return next
      ? { items: next.nodes, pageInfo: next.pageInfo }
      : { items: [], pageInfo: { hasNextPage: false, endCursor: null } };
  });
  return nodes.map((n) => ({ lineItemId: n.lineItem.id, quantity: n.quantity }));
}

// ---------------------------------------------------------------------------------------------
// Writing

export async function createFulfillment(
  call: Call,
  shop: string,
  input: CreateFulfillmentInput,
  readFulfillmentOrders: () => Promise<ShopFulfillmentOrder[] | null>,
): Promise<CreatedFulfillment[]> {
  const operation = "CreateFulfillment";
  const fulfillmentOrders = input.fulfillmentOrders ?? (await readFulfillmentOrders());
  if (!fulfillmentOrders) {
    throw new ShopNotFoundError("NOT_FOUND", {
      shop,
      operation: "GetOrderFulfillmentOrders",
      message: `order ${input.orderGid} not found`,
    });
  }
  const plan = planFulfillment(fulfillmentOrders, input.lineItems);
  if (plan.notReady.length) {
    throw new ShopFulfillmentNotReadyError({
      shop,
      operation,
      notReady: plan.notReady,
      retryAt: plan.retryAt,
    });
  }
  if (plan.problems.length || plan.calls.length === 0) {
    throw new ShopFulfillmentPlanError({
      shop,
      operation,
      problems: plan.problems.length
        ? plan.problems
        : input.lineItems.map((l) => ({
            lineItemGid: l.lineItemGid,
            requested: l.quantity,
            fulfillable: 0,
          })),
    });
  }
  const created: CreatedFulfillment[] = [];
  for (const group of plan.calls) {
    const data = await call(
      CREATE_FULFILLMENT,
      {
        fulfillment: {
          notifyCustomer: input.notifyCustomer,
          trackingInfo: trackingInput(input.tracking),
          lineItemsByFulfillmentOrder: group.map((g) => ({
            fulfillmentOrderId: g.fulfillmentOrderId,
            fulfillmentOrderLineItems: g.lines.map((l) => ({ id: l.id, quantity: l.quantity })),
          })),
        },
      },
      z.object({ fulfillmentCreate: fulfillmentPayload }),
    );
    const payload = data.fulfillmentCreate;
    if (payload.userErrors.length || !payload.fulfillment) {
      throw new ShopUserError({
        shop,
        operation,
        userErrors: payload.userErrors.length
          ? payload.userErrors.map((e) => ({ field: e.field ?? null, message: e.message }))
          : [{ field: null, message: "no fulfillment was created" }],
      });
    }
    created.push({
      id: payload.fulfillment.id,
      status: payload.fulfillment.status,
      tracking: payload.fulfillment.trackingInfo.map(toTracking),
      fulfillmentOrderIds: group.map((g) => g.fulfillmentOrderId),
    });
  }
  return created;
}

export async function updateTracking(
  call: Call,
  shop: string,
  fulfillmentGid: ShopifyFulfillmentGid,
  tracking: Tracking,
  notifyCustomer: boolean,
): Promise<{ id: ShopifyFulfillmentGid; tracking: Tracking[] }> {
  const data = await call(
    UPDATE_FULFILLMENT_TRACKING,
    { fulfillmentId: fulfillmentGid, trackingInfoInput: trackingInput(tracking), notifyCustomer },
    z.object({ fulfillmentTrackingInfoUpdate: fulfillmentPayload }),
  );
  const payload = data.fulfillmentTrackingInfoUpdate;
  if (payload.userErrors.length || !payload.fulfillment) {
    throw new ShopUserError({
      shop,
      operation: "UpdateFulfillmentTracking",
      userErrors: payload.userErrors.length
        ? payload.userErrors.map((e) => ({ field: e.field ?? null, message: e.message }))
        : [{ field: null, message: "fulfillment not updated" }],
    });
  }
  return {
    id: payload.fulfillment.id,
    tracking: payload.fulfillment.trackingInfo.map(toTracking),
  };
}

const trackingInput = (t: Tracking) => ({
  number: t.number,
  ...(t.url ? { url: t.url } : {}),
  ...(t.company ? { company: t.company } : {}),
});

// ---------------------------------------------------------------------------------------------
// Placing order lines on fulfilment orders

/** Can the app create a fulfilment on it now? */
export const canFulfil = (fo: ShopFulfillmentOrder) =>
  fo.supportedActions.includes("CREATE_FULFILLMENT");

/** Statuses that will never take a fulfilment again. */
const FINISHED = new Set(["CLOSED", "CANCELLED"]);

export interface NotReadyLine {
  lineItemGid: string;
  fulfillmentOrderId: string;
  status: string;
  /** Why, in words: "on hold (AWAITING_PAYMENT: …)", "scheduled for 2026-12-01T…". */
  reason: string;
}

export interface FulfillmentPlan {
  /**
   * The fulfillmentCreate calls: each holds fulfilment orders of one location, at most 250 of
   * them and at most 250 line items in all.
   */
  calls: {
    fulfillmentOrderId: ShopifyFulfillmentOrderGid;
    lines: { id: ShopifyFulfillmentOrderLineItemGid; quantity: number }[];
  }[][];
  /** Lines asking for more than is open anywhere (nothing is sent). */
  problems: { lineItemGid: string; requested: number; fulfillable: number }[];
  /** Lines whose open quantity sits on fulfilment orders not fulfillable yet (nothing is sent). */
  notReady: NotReadyLine[];
  /** When the earliest SCHEDULED one of those opens, if any. */
  retryAt: Date | null;
}

function notReadyReason(fo: ShopFulfillmentOrder): string {
  if (fo.status === "ON_HOLD") {
    const why = fo.holds.map((h) => h.reason + (h.notes ? `: ${h.notes}` : "")).join("; ");
    return `on hold${why ? ` (${why})` : ""}`;
  }
  if (fo.status === "SCHEDULED")
    return `scheduled${fo.fulfillAt ? ` to open at ${fo.fulfillAt}` : ""}`;
  return `${fo.status.toLowerCase().replace(/_/g, " ")}, not fulfillable yet`;
}

/**
 * Spreads the requested quantities of order lines over the fulfillable fulfilment orders'
 * remaining quantities, first fulfilment order first. A line that asks for more than is open
 * is a problem, unless the rest is open on fulfilment orders that are not fulfillable yet (on
 * hold, scheduled): then it is "not ready". Either way nothing is sent: a fulfilment is written
 * whole or not at all, so one tracking number never ends up on two half fulfilments.
 */
export function planFulfillment(
  fulfillmentOrders: ShopFulfillmentOrder[],
  requested: { lineItemGid: ShopifyLineItemGid; quantity: number }[],
): FulfillmentPlan {
  const wanted = new Map<string, number>();
  const problems: FulfillmentPlan["problems"] = [];
  for (const r of requested) {
    if (!Number.isInteger(r.quantity) || r.quantity <= 0) {
      problems.push({ lineItemGid: r.lineItemGid, requested: r.quantity, fulfillable: 0 });
      continue;
    }
    wanted.set(r.lineItemGid, (wanted.get(r.lineItemGid) ?? 0) + r.quantity);
  }
  const ready = fulfillmentOrders.filter(canFulfil);
  const waiting = fulfillmentOrders.filter((fo) => !canFulfil(fo) && !FINISHED.has(fo.status));
  const byFo = new Map<
    ShopifyFulfillmentOrderGid,
    { location: string; lines: { id: ShopifyFulfillmentOrderLineItemGid; quantity: number }[] }
  >();
  const notReady: NotReadyLine[] = [];
  let retryAt: Date | null = null;
  for (const [lineItemGid, total] of wanted) {
    let need = total;
    const picks: { fo: ShopFulfillmentOrder; id: ShopifyFulfillmentOrderLineItemGid; q: number }[] =
      [];
    for (const fo of ready) {
      for (const li of fo.lineItems) {
        if (need === 0) break;
        if (li.lineItemId !== lineItemGid || li.remainingQuantity <= 0) continue;
        const q = Math.min(need, li.remainingQuantity);
        picks.push({ fo, id: li.id, q });
        need -= q;
      }
    }
    if (need > 0) {
      const holding = waiting.filter((fo) =>
        fo.lineItems.some((li) => li.lineItemId === lineItemGid && li.remainingQuantity > 0),
      );
      const later = holding.reduce(
        (n, fo) =>
          n +
          fo.lineItems
            .filter((li) => li.lineItemId === lineItemGid)
            .reduce((m, li) => m + Math.max(0, li.remainingQuantity), 0),
        0,
      );
      if (holding.length && later >= need) {
        for (const fo of holding) {
          notReady.push({
            lineItemGid,
            fulfillmentOrderId: fo.id,
            status: fo.status,
            reason: notReadyReason(fo),
          });
          const at = fo.status === "SCHEDULED" && fo.fulfillAt ? new Date(fo.fulfillAt) : null;
          if (at && !Number.isNaN(at.getTime()) && (!retryAt || at < retryAt)) retryAt = at;
        }
      } else {
        problems.push({ lineItemGid, requested: total, fulfillable: total - need });
      }
      continue;
    }
    for (const p of picks) {
      const entry = byFo.get(p.fo.id) ?? { location: p.fo.locationId ?? "", lines: [] };
      entry.lines.push({ id: p.id, quantity: p.q });
      byFo.set(p.fo.id, entry);
    }
  }
  if (problems.length || notReady.length) return { calls: [], problems, notReady, retryAt };

  // One location per call; ≤ 250 fulfilment orders and ≤ 250 line items per call (a fulfilment
  // order with more lines than that is split over calls).
  const byLocation = new Map<string, { id: ShopifyFulfillmentOrderGid; lines: FoLine[] }[]>();
  for (const [id, { location, lines }] of byFo) {
    byLocation.set(location, [...(byLocation.get(location) ?? []), { id, lines }]);
  }
  const calls: FulfillmentPlan["calls"] = [];
  for (const fos of byLocation.values()) {
    let cur: FulfillmentPlan["calls"][number] = [];
    let count = 0;
    for (const fo of fos) {
      for (let i = 0; i < fo.lines.length; ) {
        if (count === MAX_INPUT_ITEMS || cur.length === MAX_INPUT_ITEMS) {
          calls.push(cur);
          cur = [];
          count = 0;
        }
        const take = fo.lines.slice(i, i + (MAX_INPUT_ITEMS - count));
        const last = cur.at(-1);
        if (last && last.fulfillmentOrderId === fo.id) last.lines.push(...take);
        else cur.push({ fulfillmentOrderId: fo.id, lines: take });
        count += take.length;
        i += take.length;
      }
    }
    if (cur.length) calls.push(cur);
  }
  return { calls, problems, notReady, retryAt };
}

type FoLine = { id: ShopifyFulfillmentOrderLineItemGid; quantity: number };
