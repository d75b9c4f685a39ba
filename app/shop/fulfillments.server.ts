/**
 * Writing fulfilments: the service's parcel placed on the order's fulfilment orders
 * (fulfillmentCreate, in the calls fulfillment-plan.ts lays out), tracking changed
 * (fulfillmentTrackingInfoUpdate), and what a fulfilment holds (to finish one written in part).
 * A line on a held or scheduled fulfilment order is not a conflict but "not yet":
 * ShopFulfillmentNotReadyError, and the track job comes back.
 */
import { z } from "zod";
import {
  ShopFulfillmentNotReadyError,
  ShopFulfillmentPlanError,
  ShopNotFoundError,
  ShopUserError,
} from "./errors";
import { planFulfillment } from "./fulfillment-plan";
import {
  type ShopFulfillmentOrder,
  type Tracking,
  toTracking,
  trackingInfo,
} from "./fulfillment-orders.shapes";
import {
  type ShopifyFulfillmentGid,
  type ShopifyFulfillmentOrderGid,
  type ShopifyLineItemGid,
  type ShopifyOrderGid,
  parseFulfillmentGid,
  parseLineItemGid,
} from "./ids";
import { type Call, allPages, pageInfoSchema, userErrorsSchema } from "./transport.server";

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

const gid = <T>(parse: (v: unknown) => T) => z.string().transform((v) => parse(v));

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
