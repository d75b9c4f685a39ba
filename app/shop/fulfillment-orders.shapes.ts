/**
 * Fulfilment orders as the app sees them (statuses, lines, fulfilments, tracking), and the
 * schemas that read Shopify's replies into that view (fulfillment-orders.server.ts sends the
 * documents).
 */
import { z } from "zod";
import {
  type ShopifyFulfillmentGid,
  type ShopifyFulfillmentOrderGid,
  type ShopifyFulfillmentOrderLineItemGid,
  type ShopifyLineItemGid,
  parseFulfillmentGid,
  parseFulfillmentOrderGid,
  parseFulfillmentOrderLineItemGid,
  parseLineItemGid,
} from "./ids";
import { pageInfoSchema } from "./transport.server";

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
export const foLinesSchema = z.object({ nodes: z.array(foLineSchema), pageInfo: pageInfoSchema });

const fulfillmentSchema = z.object({
  id: gid(parseFulfillmentGid),
  status: z.string(),
  createdAt: z.string(),
  trackingInfo: z.array(trackingInfo),
});
export const fulfillmentsSchema = z.object({
  nodes: z.array(fulfillmentSchema),
  pageInfo: pageInfoSchema,
});

export const fulfillmentOrderSchema = z.object({
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

export const toFulfillment = (f: z.infer<typeof fulfillmentSchema>): ShopFulfillment => ({
  id: f.id,
  status: f.status,
  createdAt: f.createdAt,
  tracking: f.trackingInfo.map(toTracking),
});

export const toFoLine = (li: z.infer<typeof foLineSchema>) => ({
  id: li.id,
  lineItemId: li.lineItem.id,
  remainingQuantity: li.remainingQuantity,
  totalQuantity: li.totalQuantity,
});
