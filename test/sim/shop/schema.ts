/**
 * The Admin GraphQL subset the simulator answers, with Shopify's field names and types, and
 * the mutations' rules (what fulfillmentCreate accepts and refuses, and how it moves quantities).
 */
import { GqlError, type Schema } from "./gql";
import {
  type FulfillmentOrderRec,
  type FulfillmentRec,
  type LineItemRec,
  type OrderRec,
  type ProductRec,
  type ShopRec,
  type VariantRec,
  fulfillmentStatusOf,
  gid,
  isGid,
  parseGid,
} from "./state";

export interface Ctx {
  shop: ShopRec;
  nextId: () => number;
  now: () => string;
}

const CONNECTION_ARGS = {
  first: "Int",
  after: "String",
  last: "Int",
  before: "String",
  reverse: "Boolean",
};

const cursorOf = (id: number) => Buffer.from(JSON.stringify({ last_id: id })).toString("base64url");
const idOfCursor = (cursor: string): number => {
  try {
    const v = JSON.parse(Buffer.from(cursor, "base64url").toString()) as { last_id?: unknown };
    if (typeof v.last_id === "number") return v.last_id;
  } catch {
    /* fall through */
  }
  throw new GqlError(`Invalid cursor for current pagination sort.`, { code: "BAD_REQUEST" });
};

/** Pages a list of records by id like Shopify's connections (first/after, last/before). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- GraphQL values are untyped JSON
function paginate<T extends { id: number }>(items: T[], args: Record<string, any>) {
  const { first, last, after, before } = args as {
    first?: number | null;
    last?: number | null;
    after?: string | null;
    before?: string | null;
  };
  if (first == null && last == null) {
    throw new GqlError("you must provide one of first or last", { code: "BAD_REQUEST" });
  }
  for (const [k, v] of [
    ["first", first],
    ["last", last],
  ] as const) {
    if (v != null && (v < 0 || v > 250)) {
      throw new GqlError(`The ${k} argument must be between 0 and 250`, { code: "BAD_REQUEST" });
    }
  }
  let list = args.reverse ? [...items].reverse() : items;
  if (after) {
    const i = list.findIndex((x) => x.id === idOfCursor(after));
    list = i >= 0 ? list.slice(i + 1) : list.filter((x) => x.id > idOfCursor(after));
  }
  if (before) {
    const i = list.findIndex((x) => x.id === idOfCursor(before));
    list = i >= 0 ? list.slice(0, i) : list;
  }
  const total = list.length;
  let page = list;
  let hasNextPage = false;
  let hasPreviousPage = Boolean(after);
  if (first != null) {
    page = list.slice(0, first);
    hasNextPage = total > first;
  } else if (last != null) {
    page = list.slice(Math.max(0, total - last));
    hasPreviousPage = total > last;
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

function connection(node: string): Record<string, Record<string, { type: string }>> {
  return {
    [`${node}Connection`]: {
      nodes: { type: `[${node}!]!` },
      edges: { type: `[${node}Edge!]!` },
      pageInfo: { type: "PageInfo!" },
    },
    [`${node}Edge`]: { cursor: { type: "String!" }, node: { type: `${node}!` } },
  };
}

const money = (amount: string, currencyCode: string) => ({ amount, currencyCode });

// Views: records enriched with what resolvers need.
type OrderView = OrderRec & { __shop: ShopRec };
type LineView = LineItemRec & { __shop: ShopRec; __order: OrderRec };
type FoView = FulfillmentOrderRec & { __shop: ShopRec };
type FulfillmentView = FulfillmentRec & { __shop: ShopRec };
type ProductView = ProductRec & { __shop: ShopRec };
type VariantView = VariantRec & { __shop: ShopRec };

const orderView = (shop: ShopRec, o: OrderRec | undefined): OrderView | null =>
  o ? { ...o, __shop: shop } : null;
const productView = (shop: ShopRec, p: ProductRec | undefined): ProductView | null =>
  p ? { ...p, __shop: shop } : null;
const variantView = (shop: ShopRec, v: VariantRec | undefined): VariantView | null =>
  v ? { ...v, __shop: shop } : null;
const lineView = (shop: ShopRec, o: OrderRec, l: LineItemRec): LineView => ({
  ...l,
  __shop: shop,
  __order: o,
});
const foView = (shop: ShopRec, fo: FulfillmentOrderRec): FoView => ({ ...fo, __shop: shop });
const fulfillmentView = (shop: ShopRec, f: FulfillmentRec): FulfillmentView => ({
  ...f,
  __shop: shop,
});

function lineOf(shop: ShopRec, lineItemId: number): LineView {
  for (const o of shop.orders.values()) {
    const l = o.lineItems.find((x) => x.id === lineItemId);
    if (l) return lineView(shop, o, l);
  }
  throw new Error(`sim: line item ${lineItemId} missing`);
}

function requireGid(resource: string, value: unknown): number {
  const id = parseGid(resource, value);
  if (id !== null) return id;
  if (isGid(value)) return -1; // a GID of another resource: not found
  throw new GqlError(`Invalid global id '${String(value)}'`, {
    code: "argumentLiteralsIncompatible",
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

export const schema: Schema<Ctx> = {
  QueryRoot: {
    order: {
      type: "Order",
      args: { id: "ID!" },
      resolve: (_r, { id }, { shop }) => orderView(shop, shop.orders.get(requireGid("Order", id))),
    },
    product: {
      type: "Product",
      args: { id: "ID!" },
      resolve: (_r, { id }, { shop }) =>
        productView(shop, shop.products.get(requireGid("Product", id))),
    },
    productVariant: {
      type: "ProductVariant",
      args: { id: "ID!" },
      resolve: (_r, { id }, { shop }) =>
        variantView(shop, shop.variants.get(requireGid("ProductVariant", id))),
    },
    products: {
      type: "ProductConnection!",
      args: { ...CONNECTION_ARGS, query: "String", sortKey: "ProductSortKeys" },
      resolve: (_r, args, { shop }) => {
        const all = [...shop.products.values()]
          .filter((p) => matchesQuery(p, shop, args.query))
          .sort((a, b) => a.id - b.id);
        const page = paginate(all, args);
        const wrap = (p: ProductRec) => productView(shop, p)!;
        return {
          ...page,
          nodes: page.nodes.map(wrap),
          edges: page.edges.map((e) => ({ ...e, node: wrap(e.node) })),
        };
      },
    },
    fulfillment: {
      type: "Fulfillment",
      args: { id: "ID!" },
      resolve: (_r, { id }, { shop }) => {
        const f = shop.fulfillments.get(requireGid("Fulfillment", id));
        return f ? fulfillmentView(shop, f) : null;
      },
    },
  },
  Mutation: {
    fulfillmentCreate: {
      type: "FulfillmentCreatePayload",
      args: { fulfillment: "FulfillmentInput!", message: "String" },
      resolve: (_r, args, ctx) => fulfillmentCreate(ctx, args.fulfillment),
    },
    fulfillmentTrackingInfoUpdate: {
      type: "FulfillmentTrackingInfoUpdatePayload",
      args: {
        fulfillmentId: "ID!",
        trackingInfoInput: "FulfillmentTrackingInput!",
        notifyCustomer: "Boolean",
      },
      resolve: (_r, args, ctx) =>
        trackingInfoUpdate(ctx, args.fulfillmentId, args.trackingInfoInput, args.notifyCustomer),
    },
  },
  Order: {
    id: { type: "ID!", resolve: (o: OrderView) => gid("Order", o.id) },
    legacyResourceId: { type: "UnsignedInt64!", resolve: (o: OrderView) => String(o.id) },
    name: { type: "String!" },
    email: { type: "String" },
    createdAt: { type: "DateTime!" },
    updatedAt: { type: "DateTime!" },
    cancelledAt: { type: "DateTime" },
    cancelReason: { type: "OrderCancelReason" },
    currencyCode: { type: "CurrencyCode!", resolve: (o: OrderView) => o.currency },
    displayFinancialStatus: {
      type: "OrderDisplayFinancialStatus",
      resolve: (o: OrderView) => o.financialStatus,
    },
    displayFulfillmentStatus: {
      type: "OrderDisplayFulfillmentStatus!",
      resolve: (o: OrderView) => fulfillmentStatusOf(o.__shop, o),
    },
    shippingAddress: {
      type: "MailingAddress",
      resolve: (o: OrderView) =>
        o.shippingAddress
          ? { ...o.shippingAddress, countryCodeV2: o.shippingAddress.countryCode ?? null }
          : null,
    },
    risk: {
      type: "OrderRiskSummary!",
      resolve: (o: OrderView) => ({
        recommendation: o.risk,
        assessments: o.riskLevel === "NONE" ? [] : [{ riskLevel: o.riskLevel, facts: [] }],
      }),
    },
    totalPriceSet: {
      type: "MoneyBag!",
      resolve: (o: OrderView) => {
        const total = o.lineItems.reduce((n, l) => n + Number(l.price) * l.quantity, 0).toFixed(2);
        return { shopMoney: money(total, o.currency), presentmentMoney: money(total, o.currency) };
      },
    },
    lineItems: {
      type: "LineItemConnection!",
      args: CONNECTION_ARGS,
      resolve: (o: OrderView, args) =>
        paginate(
          o.lineItems.map((l) => lineView(o.__shop, o, l)),
          args,
        ),
    },
    fulfillmentOrders: {
      type: "FulfillmentOrderConnection!",
      args: { ...CONNECTION_ARGS, displayable: "Boolean", query: "String" },
      resolve: (o: OrderView, args) =>
        paginate(
          o.fulfillmentOrderIds.map((id) => foView(o.__shop, o.__shop.fulfillmentOrders.get(id)!)),
          args,
        ),
    },
    fulfillments: {
      type: "[Fulfillment!]!",
      args: { first: "Int", query: "String" },
      resolve: (o: OrderView, args) =>
        o.fulfillmentIds
          .slice(0, args.first ?? undefined)
          .map((id) => fulfillmentView(o.__shop, o.__shop.fulfillments.get(id)!)),
    },
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
    ].map((k) => [k, { type: "String", resolve: (a: Record<string, unknown>) => a[k] ?? null }]),
  ),
  OrderRiskSummary: {
    recommendation: { type: "OrderRiskRecommendationResult!" },
    assessments: { type: "[OrderRiskAssessment!]!" },
  },
  OrderRiskAssessment: {
    riskLevel: { type: "RiskAssessmentResult!" },
    facts: { type: "[RiskFact!]!" },
  },
  RiskFact: { description: { type: "String!" }, sentiment: { type: "RiskFactSentiment!" } },
  LineItem: {
    id: { type: "ID!", resolve: (l: LineView) => gid("LineItem", l.id) },
    title: { type: "String!" },
    name: {
      type: "String!",
      resolve: (l: LineView) => (l.variantTitle ? `${l.title} - ${l.variantTitle}` : l.title),
    },
    variantTitle: { type: "String" },
    sku: { type: "String", resolve: (l: LineView) => l.sku || null },
    quantity: { type: "Int!" },
    currentQuantity: { type: "Int!", resolve: (l: LineView) => l.quantity },
    unfulfilledQuantity: {
      type: "Int!",
      resolve: (l: LineView) =>
        l.__order.fulfillmentOrderIds.reduce(
          (n, id) =>
            n +
            l.__shop.fulfillmentOrders
              .get(id)!
              .lines.filter((x) => x.lineItemId === l.id)
              .reduce((m, x) => m + x.remainingQuantity, 0),
          0,
        ),
    },
    requiresShipping: { type: "Boolean!" },
    image: {
      type: "Image",
      resolve: (l: LineView) => (l.image ? { url: l.image, altText: null } : null),
    },
    product: {
      type: "Product",
      resolve: (l: LineView) =>
        productView(l.__shop, l.productId ? l.__shop.products.get(l.productId) : undefined),
    },
    variant: {
      type: "ProductVariant",
      resolve: (l: LineView) =>
        variantView(l.__shop, l.variantId ? l.__shop.variants.get(l.variantId) : undefined),
    },
    originalUnitPriceSet: {
      type: "MoneyBag!",
      resolve: (l: LineView) => ({
        shopMoney: money(l.price, l.__order.currency),
        presentmentMoney: money(l.price, l.__order.currency),
      }),
    },
  },
  Image: {
    url: { type: "URL!", args: { transform: "ImageTransformInput" } },
    altText: { type: "String" },
    id: { type: "ID" },
    width: { type: "Int" },
    height: { type: "Int" },
  },
  MoneyBag: { shopMoney: { type: "MoneyV2!" }, presentmentMoney: { type: "MoneyV2!" } },
  MoneyV2: { amount: { type: "Decimal!" }, currencyCode: { type: "CurrencyCode!" } },
  FulfillmentOrder: {
    id: { type: "ID!", resolve: (f: FoView) => gid("FulfillmentOrder", f.id) },
    status: { type: "FulfillmentOrderStatus!" },
    requestStatus: { type: "FulfillmentOrderRequestStatus!", resolve: () => "UNSUBMITTED" },
    orderId: { type: "ID!", resolve: (f: FoView) => gid("Order", f.orderId) },
    assignedLocation: {
      type: "FulfillmentOrderAssignedLocation!",
      resolve: (f: FoView) => ({
        name: f.__shop.locations.get(f.locationId) ?? "Shop location",
        location: {
          id: gid("Location", f.locationId),
          name: f.__shop.locations.get(f.locationId) ?? "",
        },
      }),
    },
    supportedActions: {
      type: "[FulfillmentOrderSupportedAction!]!",
      resolve: (f: FoView) =>
        f.status === "OPEN" || f.status === "IN_PROGRESS"
          ? [{ action: "CREATE_FULFILLMENT" }, { action: "HOLD" }]
          : [],
    },
    lineItems: {
      type: "FulfillmentOrderLineItemConnection!",
      args: CONNECTION_ARGS,
      resolve: (f: FoView, args) =>
        paginate(
          f.lines.map((l) => ({ ...l, __shop: f.__shop })),
          args,
        ),
    },
  },
  FulfillmentOrderSupportedAction: { action: { type: "FulfillmentOrderAction!" } },
  FulfillmentOrderAssignedLocation: { name: { type: "String!" }, location: { type: "Location" } },
  Location: { id: { type: "ID!" }, name: { type: "String!" } },
  FulfillmentOrderLineItem: {
    id: { type: "ID!", resolve: (l: { id: number }) => gid("FulfillmentOrderLineItem", l.id) },
    remainingQuantity: { type: "Int!" },
    totalQuantity: { type: "Int!" },
    lineItem: {
      type: "LineItem!",
      resolve: (l: { lineItemId: number; __shop: ShopRec }) => lineOf(l.__shop, l.lineItemId),
    },
  },
  Fulfillment: {
    id: { type: "ID!", resolve: (f: FulfillmentView) => gid("Fulfillment", f.id) },
    name: {
      type: "String!",
      resolve: (f: FulfillmentView) =>
        `${f.__shop.orders.get(f.orderId)!.name}-F${f.__shop.orders.get(f.orderId)!.fulfillmentIds.indexOf(f.id) + 1}`,
    },
    status: { type: "FulfillmentStatus!" },
    createdAt: { type: "DateTime!" },
    updatedAt: { type: "DateTime!" },
    order: {
      type: "Order!",
      resolve: (f: FulfillmentView) => orderView(f.__shop, f.__shop.orders.get(f.orderId)),
    },
    trackingInfo: {
      type: "[FulfillmentTrackingInfo!]!",
      args: { first: "Int" },
      resolve: (f: FulfillmentView, a) => f.tracking.slice(0, a.first ?? undefined),
    },
    fulfillmentLineItems: {
      type: "FulfillmentLineItemConnection!",
      args: CONNECTION_ARGS,
      resolve: (f: FulfillmentView, args) =>
        paginate(
          f.lines.map((l) => ({ ...l, __shop: f.__shop })),
          args,
        ),
    },
  },
  FulfillmentTrackingInfo: {
    number: { type: "String" },
    url: { type: "URL" },
    company: { type: "String" },
  },
  FulfillmentLineItem: {
    id: { type: "ID!", resolve: (l: { id: number }) => gid("FulfillmentLineItem", l.id) },
    quantity: { type: "Int" },
    lineItem: {
      type: "LineItem!",
      resolve: (l: { lineItemId: number; __shop: ShopRec }) => lineOf(l.__shop, l.lineItemId),
    },
  },
  FulfillmentCreatePayload: {
    fulfillment: { type: "Fulfillment" },
    userErrors: { type: "[UserError!]!" },
  },
  FulfillmentTrackingInfoUpdatePayload: {
    fulfillment: { type: "Fulfillment" },
    userErrors: { type: "[UserError!]!" },
  },
  UserError: { field: { type: "[String!]" }, message: { type: "String!" } },
  Product: {
    id: { type: "ID!", resolve: (p: ProductView) => gid("Product", p.id) },
    legacyResourceId: { type: "UnsignedInt64!", resolve: (p: ProductView) => String(p.id) },
    title: { type: "String!" },
    handle: { type: "String!" },
    status: { type: "ProductStatus!", resolve: () => "ACTIVE" },
    updatedAt: { type: "DateTime!" },
    featuredMedia: {
      type: "Media",
      resolve: (p: ProductView) =>
        p.image
          ? {
              id: gid("MediaImage", p.id),
              mediaContentType: "IMAGE",
              alt: null,
              preview: { status: "READY", image: { url: p.image, altText: null } },
            }
          : null,
    },
    variants: {
      type: "ProductVariantConnection!",
      args: CONNECTION_ARGS,
      resolve: (p: ProductView, args) =>
        paginate(
          p.variantIds.map((id) => variantView(p.__shop, p.__shop.variants.get(id))!),
          args,
        ),
    },
  },
  Media: {
    id: { type: "ID!" },
    alt: { type: "String" },
    mediaContentType: { type: "MediaContentType!" },
    preview: { type: "MediaPreviewImage" },
  },
  MediaPreviewImage: { image: { type: "Image" }, status: { type: "MediaPreviewImageStatus!" } },
  ProductVariant: {
    id: { type: "ID!", resolve: (v: VariantView) => gid("ProductVariant", v.id) },
    legacyResourceId: { type: "UnsignedInt64!", resolve: (v: VariantView) => String(v.id) },
    sku: { type: "String", resolve: (v: VariantView) => v.sku || null },
    title: { type: "String!" },
    displayName: {
      type: "String!",
      resolve: (v: VariantView) => `${v.__shop.products.get(v.productId)!.title} - ${v.title}`,
    },
    price: { type: "Money!" },
    selectedOptions: {
      type: "[SelectedOption!]!",
      resolve: (v: VariantView) => {
        const names = v.__shop.products.get(v.productId)!.optionNames;
        return v.options.map((value, i) => ({ name: names[i] ?? `Option${i + 1}`, value }));
      },
    },
    product: {
      type: "Product!",
      resolve: (v: VariantView) => productView(v.__shop, v.__shop.products.get(v.productId)),
    },
  },
  SelectedOption: { name: { type: "String!" }, value: { type: "String!" } },
  PageInfo: {
    hasNextPage: { type: "Boolean!" },
    hasPreviousPage: { type: "Boolean!" },
    startCursor: { type: "String" },
    endCursor: { type: "String" },
  },
  ...connection("LineItem"),
  ...connection("FulfillmentOrder"),
  ...connection("FulfillmentOrderLineItem"),
  ...connection("FulfillmentLineItem"),
  ...connection("Product"),
  ...connection("ProductVariant"),
};

// --- mutations -------------------------------------------------------------------------------

type UserErr = { field: string[] | null; message: string };

function invalidVariable(
  name: string,
  type: string,
  explanation: string,
  path: (string | number)[],
): never {
  throw new GqlError(
    `Variable $${name} of type ${type} was provided invalid value for ${path.join(".")} (${explanation})`,
    {
      code: "INVALID_VARIABLE",
      problems: [{ path, explanation }],
    },
  );
}

function trackingFrom(input: unknown, varName: string, type: string) {
  if (input == null) return null;
  const t = input as Record<string, unknown>;
  for (const k of Object.keys(t)) {
    if (!["number", "url", "company", "numbers", "urls"].includes(k))
      invalidVariable(varName, type, "Field is not defined on FulfillmentTrackingInput", [k]);
  }
  const str = (v: unknown) => (typeof v === "string" ? v : null);
  const url = str(t.url);
  return { number: str(t.number), url, company: str(t.company) };
}

function fulfillmentCreate(ctx: Ctx, input: unknown) {
  const { shop } = ctx;
  const fail = (errors: UserErr[]) => ({ fulfillment: null, userErrors: errors });
  const f = input as Record<string, unknown>;
  const T = "FulfillmentInput!";
  for (const k of Object.keys(f)) {
    if (
      !["lineItemsByFulfillmentOrder", "notifyCustomer", "trackingInfo", "originAddress"].includes(
        k,
      )
    )
      invalidVariable("fulfillment", T, "Field is not defined on FulfillmentInput", [k]);
  }
  if (!Array.isArray(f.lineItemsByFulfillmentOrder))
    invalidVariable("fulfillment", T, "Expected value to not be null", [
      "lineItemsByFulfillmentOrder",
    ]);
  const groups = f.lineItemsByFulfillmentOrder as Record<string, unknown>[];
  if (groups.length === 0)
    return fail([
      {
        field: ["fulfillment", "lineItemsByFulfillmentOrder"],
        message: "Line items by fulfillment order must not be empty.",
      },
    ]);
  const tracking = trackingFrom(f.trackingInfo, "fulfillment", T);
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
    if (typeof g.fulfillmentOrderId !== "string")
      invalidVariable("fulfillment", T, "Expected value to not be null", [
        "lineItemsByFulfillmentOrder",
        gi,
        "fulfillmentOrderId",
      ]);
    const foId = parseGid("FulfillmentOrder", g.fulfillmentOrderId);
    if (foId === null && !isGid(g.fulfillmentOrderId)) {
      throw new GqlError(`Invalid global id '${String(g.fulfillmentOrderId)}'`, {
        code: "argumentLiteralsIncompatible",
      });
    }
    const fo = foId === null ? undefined : shop.fulfillmentOrders.get(foId);
    if (!fo)
      return fail([
        {
          field: ["fulfillment", "lineItemsByFulfillmentOrder", String(gi), "fulfillmentOrderId"],
          message: "Fulfillment order does not exist.",
        },
      ]);
    if (fo.status !== "OPEN" && fo.status !== "IN_PROGRESS") {
      return fail([
        {
          field: ["fulfillment"],
          message: `Fulfillment order ${fo.id} has an unfulfillable status= ${fo.status.toLowerCase()}.`,
        },
      ]);
    }
    fos.push(fo);
    const lines = g.fulfillmentOrderLineItems as
      | { id?: unknown; quantity?: unknown }[]
      | undefined
      | null;
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
      if (typeof l.quantity !== "number" || !Number.isInteger(l.quantity))
        invalidVariable("fulfillment", T, "Could not coerce value to Int", [
          "lineItemsByFulfillmentOrder",
          gi,
          "fulfillmentOrderLineItems",
          li,
          "quantity",
        ]);
      const already = moves.filter((m) => m.line === line).reduce((n, m) => n + m.quantity, 0);
      if (
        (l.quantity as number) <= 0 ||
        (l.quantity as number) + already > line.remainingQuantity
      ) {
        return fail([
          {
            field: ["fulfillment"],
            message: "Invalid fulfillment order line item quantity requested.",
          },
        ]);
      }
      moves.push({ fo, line, quantity: l.quantity as number });
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
    notifications: f.notifyCustomer === true ? 1 : 0,
  };
  for (const m of moves) {
    m.line.remainingQuantity -= m.quantity;
    const existing = rec.lines.find((x) => x.lineItemId === m.line.lineItemId);
    if (existing) existing.quantity += m.quantity;
    else rec.lines.push({ id: ctx.nextId(), lineItemId: m.line.lineItemId, quantity: m.quantity });
  }
  for (const fo of fos) {
    fo.status = fo.lines.every((l) => l.remainingQuantity === 0) ? "CLOSED" : "IN_PROGRESS";
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
  const t = trackingFrom(input, "trackingInfoInput", "FulfillmentTrackingInput!")!;
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
