/**
 * The shop simulator's resolvers over Shopify's real Admin schema (admin-schema.ts): one map per
 * GraphQL type of the fields the simulator implements, and the mutations' rules (what
 * fulfillmentCreate accepts and refuses, and how it moves quantities). A field not in this map
 * is refused before anything runs (see engine.ts), never answered with a silent null.
 *
 * Arguments arrive coerced by graphql-js against the real input types, so input shapes need no
 * checking here; only Shopify's business rules do.
 */
import { GraphQLError, type GraphQLResolveInfo } from "graphql";
import { grants } from "./admin-schema";
import { catalogResolvers } from "./catalog";
import {
  type FulfillmentOrderRec,
  type FulfillmentRec,
  type LineItemRec,
  type LocationRec,
  type OrderRec,
  type ProductRec,
  type ShopRec,
  type VariantRec,
  fulfillmentStatusOf,
  gid,
  isGid,
  parseGid,
  supportedActionsOf,
} from "./state";

export interface Ctx {
  shop: ShopRec;
  nextId: () => number;
  now: () => string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- GraphQL values are untyped JSON
type Any = any;
export type FieldResolver = (
  parent: Any,
  args: Record<string, Any>,
  ctx: Ctx,
  info: GraphQLResolveInfo,
) => unknown;
/** A resolver, or "prop": the parent's own property of the field's name. */
export type FieldImpl = FieldResolver | "prop";

// --- pagination ------------------------------------------------------------------------------

const cursorOf = (id: number) => Buffer.from(JSON.stringify({ last_id: id })).toString("base64url");
const idOfCursor = (cursor: string): number => {
  try {
    const v = JSON.parse(Buffer.from(cursor, "base64url").toString()) as { last_id?: unknown };
    if (typeof v.last_id === "number") return v.last_id;
  } catch {
    /* fall through */
  }
  throw new GraphQLError("Invalid cursor for current pagination sort.", {
    extensions: { code: "BAD_REQUEST" },
  });
};

/**
 * Pages records by id like Shopify's connections (first/after, last/before, reverse). The
 * first/last bounds are checked before execution (engine.ts).
 */
function paginate<T extends { id: number }>(items: T[], args: Record<string, Any>) {
  const { first, last, after, before } = args as {
    first?: number | null;
    last?: number | null;
    after?: string | null;
    before?: string | null;
  };
  let list = args.reverse ? [...items].reverse() : items;
  let hasPreviousPage = false;
  let hasNextPage = false;
  if (after) {
    const at = idOfCursor(after);
    const i = list.findIndex((x) => x.id === at);
    const from = i >= 0 ? i + 1 : list.findIndex((x) => (args.reverse ? x.id < at : x.id > at));
    hasPreviousPage = from > 0;
    list = from < 0 ? [] : list.slice(from);
  }
  if (before) {
    const at = idOfCursor(before);
    const i = list.findIndex((x) => x.id === at);
    if (i >= 0) {
      hasNextPage = i < list.length;
      list = list.slice(0, i);
    }
  }
  let page = list;
  if (first != null) {
    page = list.slice(0, first);
    hasNextPage = hasNextPage || list.length > first;
  }
  if (last != null) {
    const trimmed = page.length > last;
    page = page.slice(Math.max(0, page.length - last));
    hasPreviousPage = hasPreviousPage || trimmed;
  }
  return {
    nodes: page,
    edges: page.map((node) => ({ cursor: cursorOf(node.id), node })),
    pageInfo: {
      hasNextPage,
      hasPreviousPage,
      startCursor: page[0] ? cursorOf(page[0].id) : null,
      endCursor: page.length ? cursorOf(page[page.length - 1]!.id) : null,
    },
  };
}

const money = (amount: string, currencyCode: string) => ({ amount, currencyCode });
const bag = (amount: string, currencyCode: string) => ({
  shopMoney: money(amount, currencyCode),
  presentmentMoney: money(amount, currencyCode),
});

// --- views: records with what resolvers need -------------------------------------------------

type OrderView = OrderRec & { __shop: ShopRec; __typename: "Order" };
type LineView = LineItemRec & { __shop: ShopRec; __order: OrderRec; __typename: "LineItem" };
type FoView = FulfillmentOrderRec & { __shop: ShopRec; __typename: "FulfillmentOrder" };
type FoLineView = FulfillmentOrderRec["lines"][number] & {
  __shop: ShopRec;
  __typename: "FulfillmentOrderLineItem";
};
type FulfillmentView = FulfillmentRec & { __shop: ShopRec; __typename: "Fulfillment" };
type ProductView = ProductRec & { __shop: ShopRec; __typename: "Product" };
type VariantView = VariantRec & { __shop: ShopRec; __typename: "ProductVariant" };
type LocationView = LocationRec & { __shop: ShopRec; __typename: "Location" };

const orderView = (shop: ShopRec, o: OrderRec | undefined): OrderView | null =>
  o ? { ...o, __shop: shop, __typename: "Order" } : null;
const productView = (shop: ShopRec, p: ProductRec | undefined): ProductView | null =>
  p ? { ...p, __shop: shop, __typename: "Product" } : null;
const variantView = (shop: ShopRec, v: VariantRec | undefined): VariantView | null =>
  v ? { ...v, __shop: shop, __typename: "ProductVariant" } : null;
const lineView = (shop: ShopRec, o: OrderRec, l: LineItemRec): LineView => ({
  ...l,
  __shop: shop,
  __order: o,
  __typename: "LineItem",
});
const foView = (shop: ShopRec, fo: FulfillmentOrderRec): FoView => ({
  ...fo,
  __shop: shop,
  __typename: "FulfillmentOrder",
});
const fulfillmentView = (shop: ShopRec, f: FulfillmentRec): FulfillmentView => ({
  ...f,
  __shop: shop,
  __typename: "Fulfillment",
});
const locationView = (shop: ShopRec, l: LocationRec | undefined): LocationView | null =>
  l ? { ...l, __shop: shop, __typename: "Location" } : null;

function lineOf(shop: ShopRec, lineItemId: number): LineView {
  for (const o of shop.orders.values()) {
    const l = o.lineItems.find((x) => x.id === lineItemId);
    if (l) return lineView(shop, o, l);
  }
  throw new Error(`sim: line item ${lineItemId} missing`);
}

/**
 * Whether the app sees a fulfilment order: merchant-managed locations need the merchant-managed
 * scope, fulfilment-service locations the assigned or third-party scope.
 */
export function canSeeFulfillmentOrder(shop: ShopRec, fo: FulfillmentOrderRec): boolean {
  const loc = shop.locations.get(fo.locationId);
  if (loc?.fulfillmentService)
    return grants(shop.scopes, [
      "read_assigned_fulfillment_orders",
      "read_third_party_fulfillment_orders",
    ]);
  return grants(shop.scopes, ["read_merchant_managed_fulfillment_orders"]);
}

function visibleFulfillmentOrders(shop: ShopRec, o: OrderRec): FulfillmentOrderRec[] {
  return o.fulfillmentOrderIds
    .map((id) => shop.fulfillmentOrders.get(id)!)
    .filter((fo) => canSeeFulfillmentOrder(shop, fo));
}

function requireGid(resource: string, value: unknown): number {
  const id = parseGid(resource, value);
  if (id !== null) return id;
  if (isGid(value)) return -1; // a GID of another resource: not found
  throw new GraphQLError(`Invalid global id '${String(value)}'`, {
    extensions: { code: "argumentLiteralsIncompatible" },
  });
}

function matchesQuery(p: ProductRec, shop: ShopRec, query: string | null | undefined): boolean {
  if (!query) return true;
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
  return terms.every((term) => {
    const [field, raw] = term.includes(":")
      ? (term.split(/:(.*)/s) as [string, string])
      : ["", term];
    const needle = raw.replace(/^\*|\*$/g, "").replace(/^"|"$/g, "");
    const skus = p.variantIds.map((id) => shop.variants.get(id)!.sku.toLowerCase());
    if (field === "title") return p.title.toLowerCase().includes(needle);
    if (field === "sku") return skus.some((s) => s.includes(needle));
    if (field === "handle") return p.handle === needle;
    return p.title.toLowerCase().includes(needle) || skus.some((s) => s.includes(needle));
  });
}

/** Any object by its GID (QueryRoot.node). */
function nodeOf(shop: ShopRec, id: unknown): unknown {
  if (!isGid(id)) requireGid("Node", id);
  const [, type, n] = /^gid:\/\/shopify\/([A-Za-z]+)\/(\d+)$/.exec(String(id))!;
  const num = Number(n);
  switch (type) {
    case "Order":
      return orderView(shop, shop.orders.get(num));
    case "Product":
      return productView(shop, shop.products.get(num));
    case "ProductVariant":
      return variantView(shop, shop.variants.get(num));
    case "Location":
      return locationView(shop, shop.locations.get(num));
    case "Fulfillment": {
      const f = shop.fulfillments.get(num);
      return f ? fulfillmentView(shop, f) : null;
    }
    case "FulfillmentOrder": {
      const fo = shop.fulfillmentOrders.get(num);
      return fo && canSeeFulfillmentOrder(shop, fo) ? foView(shop, fo) : null;
    }
    default:
      return null;
  }
}

// --- the resolver map ------------------------------------------------------------------------

const gidOf =
  (resource: string): FieldResolver =>
  (x: { id: number }) =>
    gid(resource, x.id);
const legacyId: FieldResolver = (x: { id: number }) => String(x.id);

export const resolvers: Record<string, Record<string, FieldImpl>> = {
  QueryRoot: {
    node: (_r, { id }, { shop }) => nodeOf(shop, id),
    nodes: (_r, { ids }, { shop }) => (ids as unknown[]).map((id) => nodeOf(shop, id)),
    order: (_r, { id }, { shop }) => orderView(shop, shop.orders.get(requireGid("Order", id))),
    product: (_r, { id }, { shop }) =>
      productView(shop, shop.products.get(requireGid("Product", id))),
    productVariant: (_r, { id }, { shop }) =>
      variantView(shop, shop.variants.get(requireGid("ProductVariant", id))),
    products: (_r, args, { shop }) => {
      const all = [...shop.products.values()]
        .filter((p) => matchesQuery(p, shop, args.query))
        .sort((a, b) => a.id - b.id)
        .map((p) => productView(shop, p)!);
      return paginate(all, args);
    },
    fulfillment: (_r, { id }, { shop }) => {
      const f = shop.fulfillments.get(requireGid("Fulfillment", id));
      return f ? fulfillmentView(shop, f) : null;
    },
    fulfillmentOrder: (_r, { id }, { shop }) => {
      const fo = shop.fulfillmentOrders.get(requireGid("FulfillmentOrder", id));
      return fo && canSeeFulfillmentOrder(shop, fo) ? foView(shop, fo) : null;
    },
    location: (_r, { id }, { shop }) =>
      id == null
        ? locationView(shop, shop.locations.get(shop.defaultLocationId))
        : locationView(shop, shop.locations.get(requireGid("Location", id))),
    locations: (_r, args, { shop }) =>
      paginate(
        [...shop.locations.values()].map((l) => locationView(shop, l)!),
        args,
      ),
  },
  Mutation: {
    fulfillmentCreate: (_r, args, ctx) => fulfillmentCreate(ctx, args.fulfillment),
    fulfillmentTrackingInfoUpdate: (_r, args, ctx) =>
      trackingInfoUpdate(ctx, args.fulfillmentId, args.trackingInfoInput, args.notifyCustomer),
    fulfillmentOrderHold: (_r, args, ctx) => holdMutation(ctx, args.id, args.fulfillmentHold),
    fulfillmentOrderReleaseHold: (_r, args, ctx) => releaseHoldMutation(ctx, args.id),
    fulfillmentOrderOpen: (_r, args, ctx) => openMutation(ctx, args.id),
  },
  Order: {
    id: gidOf("Order"),
    legacyResourceId: legacyId,
    name: "prop",
    email: "prop",
    createdAt: "prop",
    updatedAt: "prop",
    processedAt: (o: OrderView) => o.createdAt,
    cancelledAt: "prop",
    cancelReason: "prop",
    closed: () => false,
    currencyCode: (o: OrderView) => o.currency,
    presentmentCurrencyCode: (o: OrderView) => o.currency,
    displayFinancialStatus: (o: OrderView) => o.financialStatus,
    displayFulfillmentStatus: (o: OrderView) => fulfillmentStatusOf(o.__shop, o),
    fullyPaid: (o: OrderView) => o.financialStatus === "PAID",
    shippingAddress: (o: OrderView) =>
      o.shippingAddress
        ? { ...o.shippingAddress, countryCodeV2: o.shippingAddress.countryCode ?? null }
        : null,
    risk: (o: OrderView) => ({
      recommendation: o.risk,
      assessments: o.riskLevel === "NONE" ? [] : [{ riskLevel: o.riskLevel, facts: [] }],
    }),
    totalPriceSet: (o: OrderView) =>
      bag(o.lineItems.reduce((n, l) => n + Number(l.price) * l.quantity, 0).toFixed(2), o.currency),
    subtotalLineItemsQuantity: (o: OrderView) => o.lineItems.reduce((n, l) => n + l.quantity, 0),
    lineItems: (o: OrderView, args) =>
      paginate(
        o.lineItems.map((l) => lineView(o.__shop, o, l)),
        args,
      ),
    fulfillmentOrders: (o: OrderView, args) =>
      paginate(
        visibleFulfillmentOrders(o.__shop, o).map((fo) => foView(o.__shop, fo)),
        args,
      ),
    fulfillments: (o: OrderView, args) =>
      o.fulfillmentIds
        .slice(0, args.first ?? undefined)
        .map((id) => fulfillmentView(o.__shop, o.__shop.fulfillments.get(id)!)),
  },
  MailingAddress: Object.fromEntries(
    [
      "firstName",
      "lastName",
      "company",
      "address1",
      "address2",
      "city",
      "province",
      "provinceCode",
      "zip",
      "country",
      "countryCodeV2",
      "phone",
    ].map((k) => [k, ((a: Record<string, unknown>) => a[k] ?? null) as FieldResolver]),
  ),
  OrderRiskSummary: { recommendation: "prop", assessments: "prop" },
  OrderRiskAssessment: { riskLevel: "prop", facts: "prop" },
  RiskFact: { description: "prop", sentiment: "prop" },
  LineItem: {
    id: gidOf("LineItem"),
    title: "prop",
    name: (l: LineView) => (l.variantTitle ? `${l.title} - ${l.variantTitle}` : l.title),
    variantTitle: "prop",
    sku: (l: LineView) => l.sku || null,
    quantity: "prop",
    currentQuantity: (l: LineView) => l.quantity,
    unfulfilledQuantity: (l: LineView) =>
      l.__order.fulfillmentOrderIds.reduce(
        (n, id) =>
          n +
          l.__shop.fulfillmentOrders
            .get(id)!
            .lines.filter((x) => x.lineItemId === l.id)
            .reduce((m, x) => m + x.remainingQuantity, 0),
        0,
      ),
    requiresShipping: "prop",
    image: (l: LineView) => (l.image ? { url: l.image, altText: null } : null),
    product: (l: LineView) =>
      productView(l.__shop, l.productId ? l.__shop.products.get(l.productId) : undefined),
    variant: (l: LineView) =>
      variantView(l.__shop, l.variantId ? l.__shop.variants.get(l.variantId) : undefined),
    originalUnitPriceSet: (l: LineView) => bag(l.price, l.__order.currency),
  },
  Image: {
    url: "prop",
    altText: "prop",
    id: () => null,
    width: () => null,
    height: () => null,
  },
  MoneyBag: { shopMoney: "prop", presentmentMoney: "prop" },
  MoneyV2: { amount: "prop", currencyCode: "prop" },
  FulfillmentOrder: {
    id: gidOf("FulfillmentOrder"),
    status: "prop",
    requestStatus: () => "UNSUBMITTED",
    orderId: (f: FoView) => gid("Order", f.orderId),
    orderName: (f: FoView) => f.__shop.orders.get(f.orderId)!.name,
    order: (f: FoView) => orderView(f.__shop, f.__shop.orders.get(f.orderId)),
    createdAt: "prop",
    updatedAt: "prop",
    fulfillAt: "prop",
    fulfillBy: () => null,
    fulfillmentHolds: (f: FoView) =>
      f.holds.map((h) => ({
        id: gid("FulfillmentHold", h.id),
        reason: h.reason,
        reasonNotes: h.reasonNotes,
        displayReason: h.reason
          .toLowerCase()
          .replace(/_/g, " ")
          .replace(/^./, (c) => c.toUpperCase()),
        handle: null,
        heldByRequestingApp: false,
      })),
    assignedLocation: (f: FoView) => {
      const loc = f.__shop.locations.get(f.locationId);
      return {
        name: loc?.name ?? "Shop location",
        countryCode: "US",
        location: locationView(f.__shop, loc),
      };
    },
    supportedActions: (f: FoView) =>
      supportedActionsOf(f).map((action) => ({ action, externalUrl: null })),
    lineItems: (f: FoView, args) =>
      paginate(
        f.lines.map(
          (l): FoLineView => ({
            ...l,
            __shop: f.__shop,
            __typename: "FulfillmentOrderLineItem",
          }),
        ),
        args,
      ),
    fulfillments: (f: FoView, args) =>
      paginate(
        [...f.__shop.fulfillments.values()]
          .filter((x) => x.fulfillmentOrderIds.includes(f.id))
          .map((x) => fulfillmentView(f.__shop, x)),
        args,
      ),
  },
  FulfillmentHold: {
    id: "prop",
    reason: "prop",
    reasonNotes: "prop",
    displayReason: "prop",
    handle: "prop",
    heldByRequestingApp: "prop",
  },
  FulfillmentOrderSupportedAction: { action: "prop", externalUrl: "prop" },
  FulfillmentOrderAssignedLocation: {
    name: "prop",
    location: "prop",
    countryCode: "prop",
    address1: () => null,
    address2: () => null,
    city: () => null,
    province: () => null,
    zip: () => null,
    phone: () => null,
  },
  Location: {
    id: gidOf("Location"),
    legacyResourceId: legacyId,
    name: "prop",
    isActive: () => true,
    isPrimary: (l: LocationView) => l.id === l.__shop.defaultLocationId,
    isFulfillmentService: (l: LocationView) => l.fulfillmentService,
    fulfillsOnlineOrders: () => true,
    shipsInventory: () => true,
  },
  FulfillmentOrderLineItem: {
    id: gidOf("FulfillmentOrderLineItem"),
    remainingQuantity: "prop",
    totalQuantity: "prop",
    lineItem: (l: FoLineView) => lineOf(l.__shop, l.lineItemId),
    sku: (l: FoLineView) => lineOf(l.__shop, l.lineItemId).sku || null,
    productTitle: (l: FoLineView) => lineOf(l.__shop, l.lineItemId).title,
    variantTitle: (l: FoLineView) => lineOf(l.__shop, l.lineItemId).variantTitle,
    requiresShipping: (l: FoLineView) => lineOf(l.__shop, l.lineItemId).requiresShipping,
  },
  Fulfillment: {
    id: gidOf("Fulfillment"),
    legacyResourceId: legacyId,
    name: (f: FulfillmentView) => {
      const o = f.__shop.orders.get(f.orderId)!;
      return `${o.name}-F${o.fulfillmentIds.indexOf(f.id) + 1}`;
    },
    status: "prop",
    displayStatus: (f: FulfillmentView) => (f.status === "SUCCESS" ? "FULFILLED" : "CANCELED"),
    createdAt: "prop",
    updatedAt: "prop",
    totalQuantity: (f: FulfillmentView) => f.lines.reduce((n, l) => n + l.quantity, 0),
    order: (f: FulfillmentView) => orderView(f.__shop, f.__shop.orders.get(f.orderId)),
    trackingInfo: (f: FulfillmentView, a) => f.tracking.slice(0, a.first ?? undefined),
    fulfillmentLineItems: (f: FulfillmentView, args) =>
      paginate(
        f.lines.map((l) => ({ ...l, __shop: f.__shop })),
        args,
      ),
    fulfillmentOrders: (f: FulfillmentView, args) =>
      paginate(
        f.fulfillmentOrderIds
          .map((id) => f.__shop.fulfillmentOrders.get(id)!)
          .filter((fo) => canSeeFulfillmentOrder(f.__shop, fo))
          .map((fo) => foView(f.__shop, fo)),
        args,
      ),
  },
  FulfillmentTrackingInfo: { number: "prop", url: "prop", company: "prop" },
  FulfillmentLineItem: {
    id: gidOf("FulfillmentLineItem"),
    quantity: "prop",
    lineItem: (l: { lineItemId: number; __shop: ShopRec }) => lineOf(l.__shop, l.lineItemId),
  },
  FulfillmentCreatePayload: { fulfillment: "prop", userErrors: "prop" },
  FulfillmentTrackingInfoUpdatePayload: { fulfillment: "prop", userErrors: "prop" },
  FulfillmentOrderHoldPayload: {
    fulfillmentOrder: "prop",
    fulfillmentHold: "prop",
    remainingFulfillmentOrder: () => null,
    userErrors: "prop",
  },
  FulfillmentOrderReleaseHoldPayload: { fulfillmentOrder: "prop", userErrors: "prop" },
  FulfillmentOrderOpenPayload: { fulfillmentOrder: "prop", userErrors: "prop" },
  FulfillmentOrderHoldUserError: { field: "prop", message: "prop", code: "prop" },
  FulfillmentOrderReleaseHoldUserError: { field: "prop", message: "prop", code: "prop" },
  UserError: { field: "prop", message: "prop" },
  Product: {
    id: gidOf("Product"),
    legacyResourceId: legacyId,
    title: "prop",
    handle: "prop",
    status: () => "ACTIVE",
    updatedAt: "prop",
    featuredMedia: (p: ProductView) =>
      p.image
        ? {
            __typename: "MediaImage",
            id: gid("MediaImage", p.id),
            mediaContentType: "IMAGE",
            alt: null,
            preview: { status: "READY", image: { url: p.image, altText: null } },
            image: { url: p.image, altText: null },
          }
        : null,
    variants: (p: ProductView, args) =>
      paginate(
        p.variantIds.map((id) => variantView(p.__shop, p.__shop.variants.get(id))!),
        args,
      ),
  },
  MediaImage: {
    id: "prop",
    alt: "prop",
    mediaContentType: "prop",
    preview: "prop",
    image: "prop",
  },
  MediaPreviewImage: { image: "prop", status: "prop" },
  ProductVariant: {
    id: gidOf("ProductVariant"),
    legacyResourceId: legacyId,
    sku: (v: VariantView) => v.sku || null,
    title: "prop",
    displayName: (v: VariantView) => `${v.__shop.products.get(v.productId)!.title} - ${v.title}`,
    price: "prop",
    selectedOptions: (v: VariantView) => {
      const names = v.__shop.products.get(v.productId)!.optionNames;
      return v.options.map((value, i) => ({ name: names[i] ?? `Option${i + 1}`, value }));
    },
    product: (v: VariantView) => productView(v.__shop, v.__shop.products.get(v.productId)),
  },
  SelectedOption: { name: "prop", value: "prop" },
};

// Products as an app writes them (catalog.ts): productSet, prices, inventory.
for (const [type, fields] of Object.entries(catalogResolvers))
  resolvers[type] = { ...resolvers[type], ...fields };

/** Every `…Connection` and `…Edge` type, and PageInfo, resolve from the paginated value. */
export function implOf(typeName: string, fieldName: string): FieldImpl | undefined {
  const own = resolvers[typeName]?.[fieldName];
  if (own) return own;
  if (typeName === "PageInfo") return "prop";
  if (typeName.endsWith("Connection") && ["nodes", "edges", "pageInfo"].includes(fieldName))
    return "prop";
  if (typeName.endsWith("Edge") && ["cursor", "node"].includes(fieldName)) return "prop";
  return undefined;
}

/** Whether the simulator ever returns objects of this concrete type. */
export function producesType(typeName: string): boolean {
  return (
    typeName in resolvers ||
    typeName === "PageInfo" ||
    typeName.endsWith("Connection") ||
    typeName.endsWith("Edge")
  );
}

// --- mutations -------------------------------------------------------------------------------

type UserErr = { field: string[] | null; message: string };

export const MAX_INPUT_ARRAY = 250;

function trackingFrom(input: unknown) {
  if (input == null) return null;
  const t = input as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === "string" ? v : null);
  const firstOf = (v: unknown) => (Array.isArray(v) && typeof v[0] === "string" ? v[0] : null);
  return {
    number: str(t.number) ?? firstOf(t.numbers),
    url: str(t.url) ?? firstOf(t.urls),
    company: str(t.company),
  };
}

function fulfillmentCreate(ctx: Ctx, input: Record<string, Any>) {
  const { shop } = ctx;
  const fail = (errors: UserErr[]) => ({ fulfillment: null, userErrors: errors });
  const groups = input.lineItemsByFulfillmentOrder as {
    fulfillmentOrderId: string;
    fulfillmentOrderLineItems?: { id: string; quantity: number }[] | null;
  }[];
  if (groups.length === 0)
    return fail([
      {
        field: ["fulfillment", "lineItemsByFulfillmentOrder"],
        message: "Line items by fulfillment order must not be empty.",
      },
    ]);
  const tracking = trackingFrom(input.trackingInfo);
  if (tracking?.url && !/^https?:\/\/[^\s]+$/.test(tracking.url)) {
    return fail([
      { field: ["fulfillment", "trackingInfo", "url"], message: "Tracking url is invalid." },
    ]);
  }

  // Resolve every requested fulfilment order line first; change nothing unless all are valid.
  const moves: {
    fo: FulfillmentOrderRec;
    line: FulfillmentOrderRec["lines"][number];
    quantity: number;
  }[] = [];
  const fos: FulfillmentOrderRec[] = [];
  for (const [gi, g] of groups.entries()) {
    const foId = requireGid("FulfillmentOrder", g.fulfillmentOrderId);
    const found = shop.fulfillmentOrders.get(foId);
    const fo = found && canSeeFulfillmentOrder(shop, found) ? found : undefined;
    if (!fo)
      return fail([
        {
          field: ["fulfillment", "lineItemsByFulfillmentOrder", String(gi), "fulfillmentOrderId"],
          message: "Fulfillment order does not exist.",
        },
      ]);
    if (!supportedActionsOf(fo).includes("CREATE_FULFILLMENT")) {
      return fail([
        {
          field: ["fulfillment"],
          message: `Fulfillment order ${fo.id} has an unfulfillable status= ${fo.status.toLowerCase()}.`,
        },
      ]);
    }
    fos.push(fo);
    const lines = g.fulfillmentOrderLineItems;
    if (!lines || lines.length === 0) {
      for (const line of fo.lines)
        if (line.remainingQuantity > 0) moves.push({ fo, line, quantity: line.remainingQuantity });
      continue;
    }
    for (const [li, l] of lines.entries()) {
      const lineId = parseGid("FulfillmentOrderLineItem", l.id);
      const line = fo.lines.find((x) => x.id === lineId);
      if (!line) {
        return fail([
          {
            field: [
              "fulfillment",
              "lineItemsByFulfillmentOrder",
              String(gi),
              "fulfillmentOrderLineItems",
              String(li),
              "id",
            ],
            message: "Fulfillment order line item does not exist.",
          },
        ]);
      }
      const already = moves.filter((m) => m.line === line).reduce((n, m) => n + m.quantity, 0);
      if (l.quantity <= 0 || l.quantity + already > line.remainingQuantity) {
        return fail([
          {
            field: ["fulfillment"],
            message: "Invalid fulfillment order line item quantity requested.",
          },
        ]);
      }
      moves.push({ fo, line, quantity: l.quantity });
    }
  }
  if (new Set(fos.map((fo) => fo.orderId)).size > 1)
    return fail([
      { field: ["fulfillment"], message: "All fulfillment orders must belong to the same order." },
    ]);
  if (new Set(fos.map((fo) => fo.locationId)).size > 1)
    return fail([
      {
        field: ["fulfillment"],
        message: "All fulfillment orders must be assigned to the same location.",
      },
    ]);
  if (moves.length === 0)
    return fail([
      {
        field: ["fulfillment"],
        message: "Fulfillment orders have no remaining line items to fulfill.",
      },
    ]);

  const order = shop.orders.get(fos[0]!.orderId)!;
  const now = ctx.now();
  const rec: FulfillmentRec = {
    id: ctx.nextId(),
    orderId: order.id,
    status: "SUCCESS",
    createdAt: now,
    updatedAt: now,
    tracking: tracking && (tracking.number || tracking.url) ? [tracking] : [],
    lines: [],
    fulfillmentOrderIds: [...new Set(fos.map((fo) => fo.id))],
    notifications: input.notifyCustomer === true ? 1 : 0,
  };
  for (const m of moves) {
    m.line.remainingQuantity -= m.quantity;
    const existing = rec.lines.find((x) => x.lineItemId === m.line.lineItemId);
    if (existing) existing.quantity += m.quantity;
    else rec.lines.push({ id: ctx.nextId(), lineItemId: m.line.lineItemId, quantity: m.quantity });
  }
  for (const fo of fos) {
    fo.status = fo.lines.every((l) => l.remainingQuantity === 0) ? "CLOSED" : "IN_PROGRESS";
    fo.updatedAt = now;
  }
  shop.fulfillments.set(rec.id, rec);
  order.fulfillmentIds.push(rec.id);
  order.updatedAt = now;
  return { fulfillment: fulfillmentView(shop, rec), userErrors: [] };
}

function trackingInfoUpdate(
  ctx: Ctx,
  fulfillmentId: unknown,
  input: unknown,
  notifyCustomer: unknown,
) {
  const { shop } = ctx;
  const id = requireGid("Fulfillment", fulfillmentId);
  const f = shop.fulfillments.get(id);
  if (!f)
    return {
      fulfillment: null,
      userErrors: [{ field: ["fulfillmentId"], message: "Fulfillment does not exist." }],
    };
  if (f.status === "CANCELLED")
    return {
      fulfillment: null,
      userErrors: [
        { field: ["fulfillmentId"], message: "Cannot update tracking of a cancelled fulfillment." },
      ],
    };
  const t = trackingFrom(input)!;
  if (t.url && !/^https?:\/\/[^\s]+$/.test(t.url)) {
    return {
      fulfillment: null,
      userErrors: [{ field: ["trackingInfoInput", "url"], message: "Tracking url is invalid." }],
    };
  }
  f.tracking = [t];
  f.updatedAt = ctx.now();
  if (notifyCustomer === true) f.notifications++;
  return { fulfillment: fulfillmentView(shop, f), userErrors: [] };
}

// --- fulfilment order state changes (the mutations and the simulator's admin API share them) ---

/** Puts a fulfilment order on hold; the error text when its status does not allow it. */
export function holdFulfillmentOrder(
  fo: FulfillmentOrderRec,
  hold: { id: number; reason: string; reasonNotes: string | null },
  now: string,
): string | null {
  if (!supportedActionsOf(fo).includes("HOLD") && fo.status !== "ON_HOLD")
    return `The fulfillment order's status (${fo.status.toLowerCase()}) does not allow it to be put on hold.`;
  if (fo.status !== "ON_HOLD") fo.statusBeforeHold = fo.status;
  fo.status = "ON_HOLD";
  fo.holds.push(hold);
  fo.updatedAt = now;
  return null;
}

/** Releases every hold; back to the status it had (OPEN or IN_PROGRESS). */
export function releaseFulfillmentOrderHold(fo: FulfillmentOrderRec, now: string): string | null {
  if (fo.status !== "ON_HOLD") return "The fulfillment order is not on hold.";
  fo.status = fo.statusBeforeHold ?? "OPEN";
  fo.statusBeforeHold = undefined;
  fo.holds = [];
  fo.updatedAt = now;
  return null;
}

/** Opens a SCHEDULED fulfilment order now. */
export function openScheduledFulfillmentOrder(fo: FulfillmentOrderRec, now: string): string | null {
  if (fo.status !== "SCHEDULED") return "Fulfillment order is not in a scheduled state.";
  fo.status = "OPEN";
  fo.fulfillAt = null;
  fo.updatedAt = now;
  return null;
}

/** Shopify opens a SCHEDULED fulfilment order when its fulfillAt comes. */
export function openDueFulfillmentOrders(shop: ShopRec, now = new Date()): void {
  for (const fo of shop.fulfillmentOrders.values()) {
    if (fo.status === "SCHEDULED" && fo.fulfillAt && Date.parse(fo.fulfillAt) <= now.getTime())
      openScheduledFulfillmentOrder(fo, now.toISOString());
  }
}

function foForMutation(ctx: Ctx, id: unknown) {
  const found = ctx.shop.fulfillmentOrders.get(requireGid("FulfillmentOrder", id));
  return found && canSeeFulfillmentOrder(ctx.shop, found) ? found : undefined;
}

function holdMutation(ctx: Ctx, id: unknown, input: Record<string, Any>) {
  const fo = foForMutation(ctx, id);
  const none = { fulfillmentOrder: null, fulfillmentHold: null };
  if (!fo)
    return {
      ...none,
      userErrors: [
        {
          field: ["id"],
          message: "Fulfillment order does not exist.",
          code: "FULFILLMENT_ORDER_NOT_FOUND",
        },
      ],
    };
  const hold = {
    id: ctx.nextId(),
    reason: String(input.reason),
    reasonNotes: (input.reasonNotes as string | null | undefined) ?? null,
  };
  const err = holdFulfillmentOrder(fo, hold, ctx.now());
  if (err) return { ...none, userErrors: [{ field: ["id"], message: err, code: null }] };
  const view = foView(ctx.shop, fo);
  return {
    fulfillmentOrder: view,
    fulfillmentHold: resolversHold(hold),
    userErrors: [],
  };
}

function resolversHold(h: { id: number; reason: string; reasonNotes: string | null }) {
  return {
    id: gid("FulfillmentHold", h.id),
    reason: h.reason,
    reasonNotes: h.reasonNotes,
    displayReason: h.reason,
    handle: null,
    heldByRequestingApp: true,
  };
}

function releaseHoldMutation(ctx: Ctx, id: unknown) {
  const fo = foForMutation(ctx, id);
  if (!fo)
    return {
      fulfillmentOrder: null,
      userErrors: [
        {
          field: ["id"],
          message: "Fulfillment order does not exist.",
          code: "FULFILLMENT_ORDER_NOT_FOUND",
        },
      ],
    };
  const err = releaseFulfillmentOrderHold(fo, ctx.now());
  if (err)
    return { fulfillmentOrder: null, userErrors: [{ field: ["id"], message: err, code: null }] };
  return { fulfillmentOrder: foView(ctx.shop, fo), userErrors: [] };
}

function openMutation(ctx: Ctx, id: unknown) {
  const fo = foForMutation(ctx, id);
  if (!fo)
    return {
      fulfillmentOrder: null,
      userErrors: [{ field: ["id"], message: "Fulfillment order does not exist." }],
    };
  const err = openScheduledFulfillmentOrder(fo, ctx.now());
  if (err) return { fulfillmentOrder: null, userErrors: [{ field: ["id"], message: err }] };
  return { fulfillmentOrder: foView(ctx.shop, fo), userErrors: [] };
}
