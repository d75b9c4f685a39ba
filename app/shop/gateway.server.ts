/**
 * The Shopify Admin GraphQL gateway: the app's only door to a shop's data. It runs over the
 * library's admin client (`admin.graphql(query, { variables })` → `Response`), so the same code
 * serves a request (`authenticate.admin`) and background work (`unauthenticated.admin`).
 *
 * Every response is parsed with zod into the app's own types with branded ids; every failure
 * becomes a typed ShopError (app/shop/errors.ts) whose message names the operation and the shop
 * and never carries the access token.
 */
import { z } from "zod";
import {
  type GraphqlErrorItem,
  ShopAuthError,
  ShopError,
  ShopFulfillmentPlanError,
  ShopGraphqlError,
  ShopNoSessionError,
  ShopNotFoundError,
  ShopThrottledError,
  ShopUnavailableError,
  ShopUserError,
  redact,
} from "./errors";
import {
  type ShopDomain,
  type ShopifyFulfillmentGid,
  type ShopifyFulfillmentOrderGid,
  type ShopifyFulfillmentOrderLineItemGid,
  type ShopifyLineItemGid,
  type ShopifyOrderGid,
  type ShopifyProductGid,
  type ShopifyVariantGid,
  parseFulfillmentGid,
  parseFulfillmentOrderGid,
  parseFulfillmentOrderLineItemGid,
  parseLineItemGid,
  parseOrderGid,
  parseProductGid,
  parseVariantGid,
} from "./ids";
import {
  CREATE_FULFILLMENT,
  GET_ORDER,
  GET_ORDER_FULFILLMENT_ORDERS,
  LIST_PRODUCTS,
  LIST_PRODUCT_VARIANTS,
  UPDATE_FULFILLMENT_TRACKING,
  operationName,
} from "./operations.server";

// ---------------------------------------------------------------------------------------------
// The app's view of a shop

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
  lineItems: { lineItemId: ShopifyLineItemGid; quantity: number }[];
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
  lines: ShopOrderLine[];
  /** True when the order has more than 250 lines and `lines` is the first 250. */
  moreLines: boolean;
  fulfillmentOrders: ShopFulfillmentOrder[];
  fulfillments: ShopFulfillment[];
}

export interface CreateFulfillmentInput {
  orderGid: ShopifyOrderGid;
  lineItems: { lineItemGid: ShopifyLineItemGid; quantity: number }[];
  tracking: Tracking;
  notifyCustomer: boolean;
  /**
   * The order's fulfilment orders as last read (e.g. from getOrder), to save a round trip.
   * Without it the gateway reads them first. A stale copy is safe: Shopify refuses
   * quantities that are no longer open, and that refusal comes back as a ShopUserError.
   */
  fulfillmentOrders?: ShopFulfillmentOrder[];
}

export interface CreatedFulfillment {
  id: ShopifyFulfillmentGid;
  status: string;
  tracking: Tracking[];
  fulfillmentOrderIds: ShopifyFulfillmentOrderGid[];
}

export interface ShopVariant {
  id: ShopifyVariantGid;
  sku: string | null;
  title: string;
  price: string;
  options: SelectedOption[];
}

export interface ShopProduct {
  id: ShopifyProductGid;
  title: string;
  handle: string;
  imageUrl: string | null;
  variants: ShopVariant[];
  /** Set when the product has more variants than were listed; page with listProductVariants. */
  moreVariantsAfter: string | null;
}

export interface Page<T> {
  items: T[];
  hasNextPage: boolean;
  endCursor: string | null;
}

export interface ShopGateway {
  readonly shop: ShopDomain;
  /** The order with its lines, risk, fulfilment orders and fulfilments; null if not found. */
  getOrder(orderGid: ShopifyOrderGid): Promise<ShopOrder | null>;
  /**
   * Fulfils the given quantities of the given order lines with one tracking number: the lines
   * are placed on the order's open fulfilment orders (one fulfilment per location) and
   * `fulfillmentCreate` is called. Lines not named stay unfulfilled (split shipments).
   */
  createFulfillment(input: CreateFulfillmentInput): Promise<CreatedFulfillment[]>;
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
}

/** The shape of `admin.graphql` in @shopify/shopify-app-remix. */
export type AdminGraphql = (
  query: string,
  options?: { variables?: Record<string, unknown> },
) => Promise<Response>;

export interface GatewayOptions {
  shop: ShopDomain;
  graphql: AdminGraphql;
  /** Strings never to show in an error (the access token). */
  secrets?: (string | undefined)[];
  /** Retries of a THROTTLED answer (GraphQL cost limit) before giving up. Default 3. */
  throttleRetries?: number;
  /** Upper bound of one wait between throttle retries. Default 10 s. */
  maxThrottleWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Response schemas (what the operations select)

const gid = <T>(parse: (v: unknown) => T) => z.string().transform((v) => parse(v));
const money = z.object({ amount: z.string(), currencyCode: z.string() });
const option = z.object({ name: z.string(), value: z.string() });
const trackingInfo = z.object({
  number: z.string().nullable(),
  url: z.string().nullable(),
  company: z.string().nullable(),
});
const pageInfo = z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() });

const fulfillmentOrderSchema = z.object({
  id: gid(parseFulfillmentOrderGid),
  status: z.string(),
  assignedLocation: z.object({ location: z.object({ id: z.string() }).nullable() }).nullable(),
  lineItems: z.object({
    nodes: z.array(
      z.object({
        id: gid(parseFulfillmentOrderLineItemGid),
        remainingQuantity: z.number().int(),
        totalQuantity: z.number().int(),
        lineItem: z.object({ id: gid(parseLineItemGid) }),
      }),
    ),
  }),
});

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
  lineItems: z.object({
    nodes: z.array(
      z.object({
        id: gid(parseLineItemGid),
        title: z.string(),
        variantTitle: z.string().nullable(),
        sku: z.string().nullable(),
        quantity: z.number().int(),
        currentQuantity: z.number().int(),
        requiresShipping: z.boolean(),
        image: z.object({ url: z.string() }).nullable(),
        product: z.object({ id: gid(parseProductGid) }).nullable(),
        variant: z
          .object({ id: gid(parseVariantGid), selectedOptions: z.array(option) })
          .nullable(),
        originalUnitPriceSet: z.object({ shopMoney: money }),
      }),
    ),
    pageInfo,
  }),
  fulfillmentOrders: z.object({ nodes: z.array(fulfillmentOrderSchema) }),
  fulfillments: z.array(
    z.object({
      id: gid(parseFulfillmentGid),
      status: z.string(),
      createdAt: z.string(),
      trackingInfo: z.array(trackingInfo),
      fulfillmentLineItems: z.object({
        nodes: z.array(
          z.object({
            quantity: z.number().int(),
            lineItem: z.object({ id: gid(parseLineItemGid) }),
          }),
        ),
      }),
    }),
  ),
});

const userErrorsSchema = z.array(
  z.object({ field: z.array(z.string()).nullable().optional(), message: z.string() }),
);

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

const variantSchema = z.object({
  id: gid(parseVariantGid),
  sku: z.string().nullable(),
  title: z.string(),
  price: z.string(),
  selectedOptions: z.array(option),
});

const variantConnection = z.object({ nodes: z.array(variantSchema), pageInfo });

const productsSchema = z.object({
  products: z.object({
    edges: z.array(
      z.object({
        cursor: z.string(),
        node: z.object({
          id: gid(parseProductGid),
          title: z.string(),
          handle: z.string(),
          featuredMedia: z
            .object({
              preview: z.object({ image: z.object({ url: z.string() }).nullable() }).nullable(),
            })
            .nullable(),
          variants: variantConnection,
        }),
      }),
    ),
    pageInfo,
  }),
});

// ---------------------------------------------------------------------------------------------

const toTracking = (t: z.infer<typeof trackingInfo>): Tracking => ({
  number: t.number ?? "",
  url: t.url,
  company: t.company,
});

const toVariant = (v: z.infer<typeof variantSchema>): ShopVariant => ({
  id: v.id,
  sku: v.sku || null,
  title: v.title,
  price: v.price,
  options: v.selectedOptions,
});

const toFulfillmentOrder = (fo: z.infer<typeof fulfillmentOrderSchema>): ShopFulfillmentOrder => ({
  id: fo.id,
  status: fo.status,
  locationId: fo.assignedLocation?.location?.id ?? null,
  lineItems: fo.lineItems.nodes.map((li) => ({
    id: li.id,
    lineItemId: li.lineItem.id,
    remainingQuantity: li.remainingQuantity,
    totalQuantity: li.totalQuantity,
  })),
});

/** Fulfilment orders that accept a new fulfilment. */
const FULFILLABLE = new Set(["OPEN", "IN_PROGRESS"]);

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function createShopGateway(opts: GatewayOptions): ShopGateway {
  const { shop, graphql } = opts;
  const secrets = opts.secrets ?? [];
  const throttleRetries = opts.throttleRetries ?? 3;
  const maxWait = opts.maxThrottleWaitMs ?? 10_000;
  const sleep = opts.sleep ?? defaultSleep;

  async function call<T>(
    doc: string,
    variables: Record<string, unknown>,
    schema: z.ZodType<T>,
  ): Promise<T> {
    const operation = operationName(doc);
    for (let attempt = 0; ; attempt++) {
      let body: unknown;
      try {
        const res = await graphql(doc, { variables });
        body = await res.json();
      } catch (error) {
        // A Response is the library's answer for the browser (re-auth redirect): pass it on.
        if (error instanceof Response) throw error;
        const mapped = mapLibraryError(error, { shop, operation, secrets });
        if (mapped instanceof ShopThrottledError && attempt < throttleRetries) {
          await sleep(Math.min(maxWait, mapped.retryAfterMs ?? 1000));
          continue;
        }
        throw mapped;
      }
      const data = (body as { data?: unknown } | null)?.data;
      const parsed = schema.safeParse(data);
      if (!parsed.success) {
        throw new ShopError("BAD_RESPONSE", {
          shop,
          operation,
          message: `unexpected response shape: ${redact(z.prettifyError(parsed.error), secrets).slice(0, 500)}`,
        });
      }
      return parsed.data;
    }
  }

  async function readFulfillmentOrders(orderGid: ShopifyOrderGid) {
    const data = await call(
      GET_ORDER_FULFILLMENT_ORDERS,
      { id: orderGid },
      z.object({
        order: z
          .object({
            id: z.string(),
            fulfillmentOrders: z.object({ nodes: z.array(fulfillmentOrderSchema) }),
          })
          .nullable(),
      }),
    );
    if (!data.order) {
      throw new ShopNotFoundError("NOT_FOUND", {
        shop,
        operation: "GetOrderFulfillmentOrders",
        message: `order ${orderGid} not found`,
      });
    }
    return data.order.fulfillmentOrders.nodes.map(toFulfillmentOrder);
  }

  return {
    shop,

    async getOrder(orderGid) {
      const data = await call(
        GET_ORDER,
        { id: orderGid },
        z.object({ order: orderSchema.nullable() }),
      );
      const o = data.order;
      if (!o) return null;
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
        lines: o.lineItems.nodes.map((l) => ({
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
        })),
        moreLines: o.lineItems.pageInfo.hasNextPage,
        fulfillmentOrders: o.fulfillmentOrders.nodes.map(toFulfillmentOrder),
        fulfillments: o.fulfillments.map((f) => ({
          id: f.id,
          status: f.status,
          createdAt: f.createdAt,
          tracking: f.trackingInfo.map(toTracking),
          lineItems: f.fulfillmentLineItems.nodes.map((n) => ({
            lineItemId: n.lineItem.id,
            quantity: n.quantity,
          })),
        })),
      };
    },

    async createFulfillment(input) {
      const operation = "CreateFulfillment";
      const fulfillmentOrders =
        input.fulfillmentOrders ?? (await readFulfillmentOrders(input.orderGid));
      const plan = planFulfillment(fulfillmentOrders, input.lineItems);
      if (plan.problems.length || plan.groups.length === 0) {
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
      for (const group of plan.groups) {
        const data = await call(
          CREATE_FULFILLMENT,
          {
            fulfillment: {
              notifyCustomer: input.notifyCustomer,
              trackingInfo: {
                number: input.tracking.number,
                ...(input.tracking.url ? { url: input.tracking.url } : {}),
                ...(input.tracking.company ? { company: input.tracking.company } : {}),
              },
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
    },

    async updateTracking(fulfillmentGid, tracking, notifyCustomer) {
      const data = await call(
        UPDATE_FULFILLMENT_TRACKING,
        {
          fulfillmentId: fulfillmentGid,
          trackingInfoInput: {
            number: tracking.number,
            ...(tracking.url ? { url: tracking.url } : {}),
            ...(tracking.company ? { company: tracking.company } : {}),
          },
          notifyCustomer,
        },
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
    },

    async listProducts(o = {}) {
      const data = await call(
        LIST_PRODUCTS,
        {
          first: clamp(o.first ?? 50, 1, 250),
          after: o.after ?? null,
          query: o.query || null,
          variantsFirst: clamp(o.variantsFirst ?? 100, 1, 250),
        },
        productsSchema,
      );
      const conn = data.products;
      return {
        items: conn.edges.map(({ node }) => ({
          id: node.id,
          title: node.title,
          handle: node.handle,
          imageUrl: node.featuredMedia?.preview?.image?.url ?? null,
          variants: node.variants.nodes.map(toVariant),
          moreVariantsAfter: node.variants.pageInfo.hasNextPage
            ? node.variants.pageInfo.endCursor
            : null,
        })),
        hasNextPage: conn.pageInfo.hasNextPage,
        endCursor: conn.pageInfo.endCursor,
      };
    },

    async listProductVariants(productGid, o = {}) {
      const data = await call(
        LIST_PRODUCT_VARIANTS,
        { id: productGid, first: clamp(o.first ?? 100, 1, 250), after: o.after ?? null },
        z.object({ product: z.object({ id: z.string(), variants: variantConnection }).nullable() }),
      );
      if (!data.product) {
        throw new ShopNotFoundError("NOT_FOUND", {
          shop,
          operation: "ListProductVariants",
          message: `product ${productGid} not found`,
        });
      }
      return {
        items: data.product.variants.nodes.map(toVariant),
        hasNextPage: data.product.variants.pageInfo.hasNextPage,
        endCursor: data.product.variants.pageInfo.endCursor,
      };
    },
  };
}

const clamp = (n: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, Math.floor(n)));

// ---------------------------------------------------------------------------------------------
// Placing order lines on fulfilment orders

export interface FulfillmentPlan {
  /** One group per location (fulfillmentCreate takes fulfilment orders of one location). */
  groups: {
    fulfillmentOrderId: ShopifyFulfillmentOrderGid;
    lines: { id: ShopifyFulfillmentOrderLineItemGid; quantity: number }[];
  }[][];
  problems: { lineItemGid: string; requested: number; fulfillable: number }[];
}

/**
 * Spreads the requested quantities of order lines over the open fulfilment orders' remaining
 * quantities, first fulfilment order first. A line that asks for more than is open is a problem
 * (nothing is sent): it would otherwise be refused by Shopify, or worse, double-ship on a retry.
 */
export function planFulfillment(
  fulfillmentOrders: ShopFulfillmentOrder[],
  requested: { lineItemGid: ShopifyLineItemGid; quantity: number }[],
): FulfillmentPlan {
  const wanted = new Map<string, number>();
  for (const r of requested) {
    if (!Number.isInteger(r.quantity) || r.quantity <= 0) continue;
    wanted.set(r.lineItemGid, (wanted.get(r.lineItemGid) ?? 0) + r.quantity);
  }
  const byFo = new Map<
    ShopifyFulfillmentOrderGid,
    { location: string; lines: { id: ShopifyFulfillmentOrderLineItemGid; quantity: number }[] }
  >();
  const problems: FulfillmentPlan["problems"] = [];
  for (const [lineItemGid, total] of wanted) {
    let need = total;
    const picks: { fo: ShopFulfillmentOrder; id: ShopifyFulfillmentOrderLineItemGid; q: number }[] =
      [];
    for (const fo of fulfillmentOrders) {
      if (!FULFILLABLE.has(fo.status) || need === 0) continue;
      for (const li of fo.lineItems) {
        if (li.lineItemId !== lineItemGid || li.remainingQuantity <= 0 || need === 0) continue;
        const q = Math.min(need, li.remainingQuantity);
        picks.push({ fo, id: li.id, q });
        need -= q;
      }
    }
    if (need > 0) {
      problems.push({ lineItemGid, requested: total, fulfillable: total - need });
      continue;
    }
    for (const p of picks) {
      const entry = byFo.get(p.fo.id) ?? { location: p.fo.locationId ?? "", lines: [] };
      entry.lines.push({ id: p.id, quantity: p.q });
      byFo.set(p.fo.id, entry);
    }
  }
  for (const r of requested) {
    if (!Number.isInteger(r.quantity) || r.quantity <= 0) {
      problems.push({ lineItemGid: r.lineItemGid, requested: r.quantity, fulfillable: 0 });
    }
  }
  const byLocation = new Map<string, FulfillmentPlan["groups"][number]>();
  for (const [fulfillmentOrderId, { location, lines }] of byFo) {
    const group = byLocation.get(location) ?? [];
    group.push({ fulfillmentOrderId, lines });
    byLocation.set(location, group);
  }
  return { groups: problems.length ? [] : [...byLocation.values()], problems };
}

// ---------------------------------------------------------------------------------------------
// Library errors → ShopError

interface LibraryErrorShape {
  name?: string;
  message?: string;
  response?: { code?: number; statusText?: string; retryAfter?: number } | Response;
  body?: {
    errors?: { graphQLErrors?: unknown[]; networkStatusCode?: number };
    extensions?: {
      cost?: {
        requestedQueryCost?: number;
        throttleStatus?: { currentlyAvailable?: number; restoreRate?: number };
      };
    };
  };
}

function mapLibraryError(
  error: unknown,
  ctx: { shop: string; operation: string; secrets: (string | undefined)[] },
): ShopError {
  if (error instanceof ShopError) return error;
  const e = (error ?? {}) as LibraryErrorShape;
  const name = e.name ?? (error as object)?.constructor?.name ?? "Error";
  const base = { shop: ctx.shop, operation: ctx.operation, cause: undefined as unknown };

  if (name === "SessionNotFoundError") {
    return new ShopNoSessionError("NO_SESSION", {
      ...base,
      message: "no offline session is stored for this shop (is the app installed?)",
    });
  }

  // GraphqlQueryError: HTTP 200 with top-level `errors`.
  const gqlErrors = e.body?.errors?.graphQLErrors;
  if (Array.isArray(gqlErrors)) {
    const errors: GraphqlErrorItem[] = gqlErrors.map((g) => {
      const item = (g ?? {}) as {
        message?: unknown;
        extensions?: { code?: unknown };
        path?: unknown;
      };
      return {
        message: redact(String(item.message ?? "unknown error"), ctx.secrets),
        code: typeof item.extensions?.code === "string" ? item.extensions.code : undefined,
        path: Array.isArray(item.path) ? (item.path as (string | number)[]) : undefined,
      };
    });
    if (errors.some((x) => x.code === "THROTTLED")) {
      const cost = e.body?.extensions?.cost;
      const available = cost?.throttleStatus?.currentlyAvailable ?? 0;
      const rate = cost?.throttleStatus?.restoreRate ?? 50;
      const need = (cost?.requestedQueryCost ?? rate) - available;
      return new ShopThrottledError({
        ...base,
        message: "throttled (query cost limit)",
        status: 200,
        retryAfterMs: Math.max(100, Math.ceil((Math.max(need, 0) / Math.max(rate, 1)) * 1000)),
      });
    }
    if (errors.some((x) => x.code === "ACCESS_DENIED")) {
      return new ShopAuthError("AUTH", {
        ...base,
        status: 200,
        message: `access denied: ${errors.map((x) => x.message).join("; ")} (missing scope?)`,
      });
    }
    return new ShopGraphqlError({
      ...base,
      status: 200,
      message: errors.map((x) => x.message).join("; "),
      errors,
    });
  }

  // HttpResponseError and subclasses: `response.code` is the HTTP status.
  const resp = e.response as
    | { code?: number; statusText?: string; retryAfter?: number }
    | undefined;
  const status = typeof resp?.code === "number" ? resp.code : undefined;
  if (status === 401 || status === 403) {
    return new ShopAuthError("AUTH", {
      ...base,
      status,
      message:
        status === 401
          ? "the stored access token was rejected (401); the shop must reinstall or re-authorize the app"
          : "forbidden (403); the app lacks a required scope or permission",
    });
  }
  if (status === 429 || name === "HttpThrottlingError") {
    return new ShopThrottledError({
      ...base,
      status,
      message: "throttled (HTTP 429)",
      retryAfterMs: resp?.retryAfter ? resp.retryAfter * 1000 : 1000,
    });
  }
  if (status === 404) {
    return new ShopNotFoundError("NOT_FOUND", { ...base, status, message: "not found (404)" });
  }
  if ((status !== undefined && status >= 500) || name === "HttpMaxRetriesError") {
    return new ShopUnavailableError("UNAVAILABLE", {
      ...base,
      status,
      message: `Shopify is unavailable (${status ?? "max retries"})`,
    });
  }
  if (status !== undefined) {
    return new ShopError("GRAPHQL", {
      ...base,
      status,
      message: `HTTP ${status} ${resp?.statusText ?? ""}`.trim(),
    });
  }
  // Network failures (HttpRequestError, fetch errors) and anything unforeseen.
  return new ShopUnavailableError("UNAVAILABLE", {
    ...base,
    message: `request failed: ${redact(String(e.message ?? error), ctx.secrets).slice(0, 300)}`,
  });
}
