/**
 * The shop simulator's products as an app writes them: productSet (create or replace a product
 * with its options, variants, images and inventory), productVariantsBulkUpdate (prices),
 * inventorySetQuantities (absolute quantities at a location), and the fields that read them
 * back (inventory items and levels). The rules are Shopify's as published for 2026-10:
 *
 * - productSet: at most 3 options, every variant names a value of every option, no two variants
 *   with the same values, at most 2,048 variants; list fields are replaced (variants not given
 *   are deleted); inventory quantities need `write_inventory` and an existing location, and are
 *   only allowed when the product is created (not on update).
 * - inventorySetQuantities: `@idempotent(key:)` is required (2026-04 on) and a repeat of a key
 *   returns the first result; every quantity must carry `changeFromQuantity` (null opts out of
 *   the compare-and-set), a stale one refuses the whole call; the item must be stocked at the
 *   location; at most 250 quantities; names "available" or "on_hand"; a known reason.
 * - productVariantsBulkUpdate: variants of that product only; no negative prices.
 */
import { GraphQLError, type GraphQLResolveInfo, Kind } from "graphql";
import type { FieldImpl } from "./schema";
import { type ProductRec, type ShopRec, type VariantRec, gid, parseGid } from "./state";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- GraphQL values are untyped JSON
type Any = any;
interface Ctx {
  shop: ShopRec;
  nextId: () => number;
  now: () => string;
}
type UserErr = { field: string[] | null; message: string; code: string };

export const MAX_VARIANTS = 2048;
export const MAX_OPTIONS = 3;
export const MAX_SET_QUANTITIES = 250;
export const INVENTORY_NAMES = ["available", "on_hand"];
export const INVENTORY_REASONS = [
  "correction",
  "cycle_count_available",
  "damaged",
  "movement_created",
  "movement_updated",
  "movement_received",
  "movement_canceled",
  "other",
  "promotion",
  "quality_control",
  "received",
  "reservation_created",
  "reservation_deleted",
  "reservation_updated",
  "restock",
  "safety_stock",
  "shrinkage",
];

const itemsOf = (shop: ShopRec) => (shop.inventoryItems ??= new Map());
const idemOf = (shop: ShopRec) => (shop.idempotent ??= new Map());
const logOf = (shop: ShopRec) => (shop.inventoryLog ??= []);

/** Gives a variant an inventory item (every Shopify variant has one). */
export function ensureItem(shop: ShopRec, v: VariantRec, nextId: () => number): number {
  if (v.inventoryItemId === undefined) {
    v.inventoryItemId = nextId();
    itemsOf(shop).set(v.inventoryItemId, v.id);
  }
  v.available ??= new Map();
  return v.inventoryItemId;
}

/** An order took `quantity` of a tracked variant: available goes down at the location. */
export function takeStock(shop: ShopRec, v: VariantRec, locationId: number, quantity: number) {
  if (!v.tracked || !v.available?.has(locationId) || v.inventoryItemId === undefined) return;
  const after = v.available.get(locationId)! - quantity;
  v.available.set(locationId, after);
  logOf(shop).push({
    itemId: v.inventoryItemId,
    locationId,
    delta: -quantity,
    after,
    reason: "order",
  });
}

function idempotencyKey(info: GraphQLResolveInfo): string | null {
  const d = info.fieldNodes[0]?.directives?.find((x) => x.name.value === "idempotent");
  const arg = d?.arguments?.find((a) => a.name.value === "key");
  if (!arg) return null;
  if (arg.value.kind === Kind.STRING) return arg.value.value;
  if (arg.value.kind === Kind.VARIABLE) {
    const v = info.variableValues[arg.value.name.value];
    return typeof v === "string" ? v : null;
  }
  return null;
}

const productView = (shop: ShopRec, p: ProductRec | undefined) =>
  p ? { ...p, __shop: shop, __typename: "Product" } : null;
const variantView = (shop: ShopRec, v: VariantRec | undefined) =>
  v ? { ...v, __shop: shop, __typename: "ProductVariant" } : null;
const itemView = (shop: ShopRec, v: VariantRec) => ({
  __typename: "InventoryItem",
  __shop: shop,
  __variant: v,
  id: v.inventoryItemId!,
});
type ItemView = ReturnType<typeof itemView>;

function requireId(resource: string, value: unknown): number {
  const id = parseGid(resource, value);
  if (id === null)
    throw new GraphQLError(`Invalid global id '${String(value)}'`, {
      extensions: { code: "argumentLiteralsIncompatible" },
    });
  return id;
}

const handleOf = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

// --- productSet --------------------------------------------------------------------------------

function productSet(ctx: Ctx, args: Record<string, Any>, info: GraphQLResolveInfo) {
  const { shop } = ctx;
  const input = args.input as Record<string, Any>;
  const fail = (errors: UserErr[]) => ({
    product: null,
    productSetOperation: null,
    userErrors: errors,
  });
  if (args.synchronous === false)
    throw new GraphQLError("Asynchronous productSet is not implemented by the shop simulator", {
      extensions: { code: "NOT_IMPLEMENTED_BY_SIMULATOR" },
    });
  if (input.id != null)
    return fail([
      {
        field: ["input", "id"],
        message: "The id field is deprecated: use the identifier argument",
        code: "ID_NOT_ALLOWED",
      },
    ]);

  // Which product: identifier.id, identifier.handle (an existing one is updated), or a new one.
  const ident = (args.identifier ?? {}) as Record<string, Any>;
  let existing: ProductRec | undefined;
  if (ident.id != null) {
    existing = shop.products.get(requireId("Product", ident.id));
    if (!existing)
      return fail([
        { field: ["identifier", "id"], message: "Product does not exist", code: "NOT_FOUND" },
      ]);
  } else if (typeof ident.handle === "string") {
    existing = [...shop.products.values()].find((p) => p.handle === ident.handle);
  }
  const title = (input.title as string | undefined) ?? existing?.title;
  if (!title || !title.trim())
    return fail([
      { field: ["input", "title"], message: "Title can't be blank", code: "INVALID_INPUT" },
    ]);

  const options = (input.productOptions ?? null) as
    | { name?: string; values?: { name?: string }[] }[]
    | null;
  const variants = (input.variants ?? null) as Record<string, Any>[] | null;
  if (variants && !options && !existing)
    return fail([
      {
        field: ["input", "productOptions"],
        message: "Product options input is required when updating variants",
        code: "PRODUCT_OPTIONS_INPUT_MISSING",
      },
    ]);
  if (options && !variants)
    return fail([
      {
        field: ["input", "variants"],
        message: "Variants input is required when updating product options",
        code: "VARIANTS_INPUT_MISSING",
      },
    ]);
  const optionNames = options
    ? options.map((o) => o.name ?? "")
    : (existing?.optionNames ?? ["Title"]);
  if (optionNames.length > MAX_OPTIONS)
    return fail([
      {
        field: ["input", "productOptions"],
        message: `Can only specify a maximum of ${MAX_OPTIONS} options`,
        code: "OPTIONS_OVER_LIMIT",
      },
    ]);
  if (new Set(optionNames.map((n) => n.toLowerCase())).size !== optionNames.length)
    return fail([
      {
        field: ["input", "productOptions"],
        message: "Duplicated option name",
        code: "DUPLICATED_OPTION_NAME",
      },
    ]);
  if (variants && variants.length > MAX_VARIANTS)
    return fail([
      {
        field: ["input", "variants"],
        message: `Can only specify a maximum of ${MAX_VARIANTS} variants`,
        code: "VARIANTS_OVER_LIMIT",
      },
    ]);

  // Every variant: one value per option, values the options declare, no repeated combination.
  const planned: { input: Record<string, Any>; values: string[] }[] = [];
  const seen = new Set<string>();
  for (const [i, v] of (variants ?? []).entries()) {
    const field = ["input", "variants", String(i)];
    const given = (v.optionValues ?? []) as { optionName?: string; name?: string }[];
    const values: string[] = [];
    for (const [k, name] of optionNames.entries()) {
      const hit = given.find((g) => (g.optionName ?? "").toLowerCase() === name.toLowerCase());
      if (!hit?.name)
        return fail([
          {
            field: [...field, "optionValues"],
            message: `Option '${name}' is missing a value`,
            code: "OPTION_VALUES_MISSING",
          },
        ]);
      const declared = options?.[k]?.values?.map((x) => x.name);
      if (declared && !declared.includes(hit.name))
        return fail([
          {
            field: [...field, "optionValues"],
            message: `Option value '${hit.name}' does not exist for option '${name}'`,
            code: "OPTION_VALUE_DOES_NOT_EXIST",
          },
        ]);
      values.push(hit.name);
    }
    if (given.length !== optionNames.length)
      return fail([
        {
          field: [...field, "optionValues"],
          message: "Option does not exist",
          code: "OPTION_DOES_NOT_EXIST",
        },
      ]);
    const key = values.join("\u0000");
    if (seen.has(key))
      return fail([
        {
          field,
          message: `The variant '${values.join(" / ")}' already exists.`,
          code: "DUPLICATED_VALUE",
        },
      ]);
    seen.add(key);
    if (v.price != null && Number(v.price) < 0)
      return fail([
        {
          field: [...field, "price"],
          message: "Price must be greater than or equal to 0",
          code: "INVALID_VARIANT",
        },
      ]);
    for (const [q, level] of ((v.inventoryQuantities ?? []) as Record<string, Any>[]).entries()) {
      const qf = [...field, "inventoryQuantities", String(q)];
      if (existing)
        return fail([
          {
            field: qf,
            message: "Inventory quantities can only be provided during create",
            code: "INVALID_INPUT",
          },
        ]);
      if (!shop.scopes.includes("write_inventory"))
        throw new GraphQLError(
          "Access denied for inventoryQuantities field. Required access: `write_inventory` access scope.",
          {
            extensions: {
              code: "ACCESS_DENIED",
              requiredAccess: "`write_inventory` access scope.",
            },
          },
        );
      const loc = parseGid("Location", level.locationId);
      if (loc === null || !shop.locations.has(loc))
        return fail([
          {
            field: [...qf, "locationId"],
            message: "Location does not exist",
            code: "INVALID_INPUT",
          },
        ]);
      if (!INVENTORY_NAMES.includes(level.name))
        return fail([
          {
            field: [...qf, "name"],
            message: `Invalid name '${String(level.name)}'`,
            code: "INVALID_INPUT",
          },
        ]);
    }
    planned.push({ input: v, values });
  }

  // Nothing refused: write.
  const id = existing?.id ?? ctx.nextId();
  const handle =
    existing?.handle ??
    (typeof input.handle === "string" ? input.handle : (ident.handle ?? handleOf(title)));
  if (!existing && [...shop.products.values()].some((p) => p.handle === handle))
    return fail([
      {
        field: ["input", "handle"],
        message: `Handle '${handle}' already in use`,
        code: "HANDLE_NOT_UNIQUE",
      },
    ]);
  const files = (input.files ?? null) as { originalSource?: string }[] | null;
  const images = files
    ? files.map((f) => f.originalSource ?? "").filter(Boolean)
    : (existing?.images ?? []);
  let variantIds = existing?.variantIds ?? [];
  if (variants) {
    const old = new Map(
      variantIds.map((vid) => [shop.variants.get(vid)!.options.join("\u0000"), vid]),
    );
    variantIds = planned.map(({ input: v, values }) => {
      const reuse = old.get(values.join("\u0000"));
      const vid = reuse ?? ctx.nextId();
      old.delete(values.join("\u0000"));
      const prev = reuse ? shop.variants.get(reuse) : undefined;
      const item = (v.inventoryItem ?? {}) as Record<string, Any>;
      const rec: VariantRec = {
        id: vid,
        productId: id,
        sku: (item.sku as string | undefined) ?? (v.sku as string | undefined) ?? prev?.sku ?? "",
        price: v.price != null ? String(v.price) : (prev?.price ?? "0.00"),
        compareAtPrice:
          v.compareAtPrice != null ? String(v.compareAtPrice) : (prev?.compareAtPrice ?? null),
        title: values.join(" / "),
        options: values,
        image:
          (v.file as { originalSource?: string } | null)?.originalSource ?? prev?.image ?? null,
        tracked: (item.tracked as boolean | undefined) ?? prev?.tracked ?? false,
        inventoryItemId: prev?.inventoryItemId,
        available: prev?.available,
      };
      shop.variants.set(vid, rec);
      ensureItem(shop, rec, ctx.nextId);
      for (const level of (v.inventoryQuantities ?? []) as Record<string, Any>[]) {
        const loc = parseGid("Location", level.locationId)!;
        rec.available!.set(loc, Number(level.quantity));
      }
      return vid;
    });
    for (const gone of old.values()) {
      const v = shop.variants.get(gone);
      if (v?.inventoryItemId !== undefined) itemsOf(shop).delete(v.inventoryItemId);
      shop.variants.delete(gone);
    }
  }
  const rec: ProductRec = {
    id,
    title,
    handle,
    image: images[0] ?? existing?.image ?? null,
    images,
    optionNames,
    variantIds,
    updatedAt: ctx.now(),
    descriptionHtml:
      (input.descriptionHtml as string | undefined) ?? existing?.descriptionHtml ?? "",
    vendor: (input.vendor as string | undefined) ?? existing?.vendor ?? "",
  };
  shop.products.set(id, rec);
  void info;
  return { product: productView(shop, rec), productSetOperation: null, userErrors: [] };
}

// --- productVariantsBulkUpdate -------------------------------------------------------------------

function variantsBulkUpdate(ctx: Ctx, args: Record<string, Any>) {
  const { shop } = ctx;
  const fail = (errors: UserErr[]) => ({
    product: null,
    productVariants: null,
    userErrors: errors,
  });
  const product = shop.products.get(requireId("Product", args.productId));
  if (!product)
    return fail([
      { field: ["productId"], message: "Product does not exist", code: "PRODUCT_DOES_NOT_EXIST" },
    ]);
  const updates: { v: VariantRec; input: Record<string, Any> }[] = [];
  for (const [i, input] of (args.variants as Record<string, Any>[]).entries()) {
    const field = ["variants", String(i)];
    if (input.id == null)
      return fail([
        {
          field: [...field, "id"],
          message: "Product variant is missing ID attribute",
          code: "PRODUCT_VARIANT_ID_MISSING",
        },
      ]);
    const v = shop.variants.get(requireId("ProductVariant", input.id));
    if (!v)
      return fail([
        {
          field: [...field, "id"],
          message: "Product variant does not exist",
          code: "PRODUCT_VARIANT_DOES_NOT_EXIST",
        },
      ]);
    if (v.productId !== product.id)
      return fail([
        {
          field: [...field, "id"],
          message: "Product variant does not belong to this product",
          code: "MUST_BE_FOR_THIS_PRODUCT",
        },
      ]);
    if (input.inventoryQuantities != null)
      return fail([
        {
          field: [...field, "inventoryQuantities"],
          message: "Inventory quantities can only be provided during create",
          code: "NO_INVENTORY_QUANTITIES_ON_VARIANTS_UPDATE",
        },
      ]);
    for (const k of ["price", "compareAtPrice"]) {
      if (input[k] != null && Number(input[k]) < 0)
        return fail([
          {
            field: [...field, k],
            message: "Price must be greater than or equal to 0",
            code: "NEGATIVE_PRICE_VALUE",
          },
        ]);
    }
    updates.push({ v, input });
  }
  for (const { v, input } of updates) {
    if (input.price != null) v.price = String(input.price);
    if ("compareAtPrice" in input)
      v.compareAtPrice = input.compareAtPrice == null ? null : String(input.compareAtPrice);
  }
  product.updatedAt = ctx.now();
  return {
    product: productView(shop, product),
    productVariants: updates.map(({ v }) => variantView(shop, v)),
    userErrors: [],
  };
}

// --- inventorySetQuantities ----------------------------------------------------------------------

function inventorySetQuantities(ctx: Ctx, args: Record<string, Any>, info: GraphQLResolveInfo) {
  const { shop } = ctx;
  const key = idempotencyKey(info);
  if (!key)
    throw new GraphQLError(
      'The @idempotent directive is required for this mutation. Provide a unique idempotency key with @idempotent(key: "...").',
      { extensions: { code: "BAD_REQUEST" } },
    );
  const input = args.input as Record<string, Any>;
  const fingerprint = JSON.stringify(input);
  const previous = idemOf(shop).get(key) as { fingerprint: string; result: unknown } | undefined;
  if (previous) {
    if (previous.fingerprint !== fingerprint)
      return {
        inventoryAdjustmentGroup: null,
        userErrors: [
          {
            field: ["input"],
            message: "The same idempotency key was used with different parameters.",
            code: "IDEMPOTENCY_KEY_PARAMETER_MISMATCH",
          },
        ],
      };
    return previous.result;
  }
  const fail = (errors: UserErr[]) => ({ inventoryAdjustmentGroup: null, userErrors: errors });
  const result = (() => {
    if (!INVENTORY_NAMES.includes(input.name))
      return fail([
        {
          field: ["input", "name"],
          message: `The quantity name '${String(input.name)}' is not valid.`,
          code: "INVALID_NAME",
        },
      ]);
    if (!INVENTORY_REASONS.includes(input.reason))
      return fail([
        {
          field: ["input", "reason"],
          message: "The specified reason is invalid.",
          code: "INVALID_REASON",
        },
      ]);
    const quantities = input.quantities as Record<string, Any>[];
    if (quantities.length > MAX_SET_QUANTITIES)
      return fail([
        {
          field: ["input", "quantities"],
          message: `At most ${MAX_SET_QUANTITIES} quantities per call.`,
          code: "INVALID_INVENTORY_ITEM",
        },
      ]);
    const changes: { v: VariantRec; loc: number; quantity: number; delta: number }[] = [];
    const pairs = new Set<string>();
    for (const [i, q] of quantities.entries()) {
      const field = ["input", "quantities", String(i)];
      if (!("changeFromQuantity" in q))
        return fail([
          {
            field: [...field, "changeFromQuantity"],
            message: "changeFromQuantity is required. Pass null to opt out of the check.",
            code: "COMPARE_QUANTITY_REQUIRED",
          },
        ]);
      const itemId = parseGid("InventoryItem", q.inventoryItemId);
      const variantId = itemId === null ? undefined : itemsOf(shop).get(itemId);
      const v = variantId === undefined ? undefined : shop.variants.get(variantId);
      if (!v)
        return fail([
          {
            field: [...field, "inventoryItemId"],
            message: "The specified inventory item could not be found.",
            code: "INVALID_INVENTORY_ITEM",
          },
        ]);
      const loc = parseGid("Location", q.locationId);
      if (loc === null || !shop.locations.has(loc))
        return fail([
          {
            field: [...field, "locationId"],
            message: "The specified location could not be found.",
            code: "INVALID_LOCATION",
          },
        ]);
      if (!v.available?.has(loc))
        return fail([
          {
            field: [...field, "locationId"],
            message: "The specified inventory item is not stocked at the location.",
            code: "INVALID_LOCATION",
          },
        ]);
      if (pairs.has(`${itemId}@${loc}`))
        return fail([
          {
            field,
            message: "The inventory item and location pair is given twice.",
            code: "NO_DUPLICATE_INVENTORY_ITEM_ID_GROUP_ID_PAIR",
          },
        ]);
      pairs.add(`${itemId}@${loc}`);
      const quantity = Number(q.quantity);
      if (quantity > 1_000_000_000)
        return fail([
          {
            field: [...field, "quantity"],
            message: "The quantity is too high.",
            code: "INVALID_QUANTITY_TOO_HIGH",
          },
        ]);
      if (quantity < -1_000_000_000)
        return fail([
          {
            field: [...field, "quantity"],
            message: "The quantity is too low.",
            code: "INVALID_QUANTITY_TOO_LOW",
          },
        ]);
      const current = v.available.get(loc)!;
      if (q.changeFromQuantity !== null && Number(q.changeFromQuantity) !== current)
        return fail([
          {
            field: [...field, "changeFromQuantity"],
            message: "The specified compare quantity does not match the current quantity.",
            code: "CHANGE_FROM_QUANTITY_STALE",
          },
        ]);
      changes.push({ v, loc, quantity, delta: quantity - current });
    }
    for (const c of changes) {
      c.v.available!.set(c.loc, c.quantity);
      logOf(shop).push({
        itemId: c.v.inventoryItemId!,
        locationId: c.loc,
        delta: c.delta,
        after: c.quantity,
        reason: input.reason,
      });
    }
    return {
      inventoryAdjustmentGroup: {
        __typename: "InventoryAdjustmentGroup",
        id: gid("InventoryAdjustmentGroup", ctx.nextId()),
        createdAt: ctx.now(),
        reason: input.reason,
        referenceDocumentUri: input.referenceDocumentUri ?? null,
        changes: changes.map((c) => ({
          __typename: "InventoryChange",
          name: input.name,
          delta: c.delta,
          quantityAfterChange: c.quantity,
          item: itemView(shop, c.v),
          location: { ...shop.locations.get(c.loc)!, __shop: shop, __typename: "Location" },
        })),
      },
      userErrors: [],
    };
  })();
  idemOf(shop).set(key, { fingerprint, result });
  return result;
}

// --- resolvers (merged into schema.ts's map) ----------------------------------------------------

type PV = ProductRec & { __shop: ShopRec };
type VV = VariantRec & { __shop: ShopRec };

export const catalogResolvers: Record<string, Record<string, FieldImpl>> = {
  Mutation: {
    productSet: (_r, args, ctx, info) => productSet(ctx, args, info),
    productVariantsBulkUpdate: (_r, args, ctx) => variantsBulkUpdate(ctx, args),
    inventorySetQuantities: (_r, args, ctx, info) => inventorySetQuantities(ctx, args, info),
  },
  QueryRoot: {
    shop: (_r, _a, ctx: Ctx) => ({ __typename: "Shop", __shop: ctx.shop }),
  },
  Shop: {
    id: () => gid("Shop", 1),
    currencyCode: (s: { __shop: ShopRec }) => s.__shop.currency,
    ianaTimezone: (s: { __shop: ShopRec }) => s.__shop.ianaTimezone,
    myshopifyDomain: (s: { __shop: ShopRec }) => s.__shop.domain,
  },
  ProductSetPayload: { product: "prop", productSetOperation: "prop", userErrors: "prop" },
  ProductSetUserError: { code: "prop", field: "prop", message: "prop" },
  ProductVariantsBulkUpdatePayload: {
    product: "prop",
    productVariants: "prop",
    userErrors: "prop",
  },
  ProductVariantsBulkUpdateUserError: { code: "prop", field: "prop", message: "prop" },
  InventorySetQuantitiesPayload: { inventoryAdjustmentGroup: "prop", userErrors: "prop" },
  InventorySetQuantitiesUserError: { code: "prop", field: "prop", message: "prop" },
  InventoryAdjustmentGroup: {
    id: "prop",
    createdAt: "prop",
    reason: "prop",
    referenceDocumentUri: "prop",
    changes: "prop",
  },
  InventoryChange: {
    name: "prop",
    delta: "prop",
    quantityAfterChange: "prop",
    item: "prop",
    location: "prop",
  },
  Product: {
    descriptionHtml: (p: PV) => p.descriptionHtml ?? "",
    vendor: (p: PV) => p.vendor ?? "",
  },
  ProductVariant: {
    compareAtPrice: (v: VV) => v.compareAtPrice ?? null,
    inventoryQuantity: (v: VV) =>
      v.tracked
        ? [...(v.available ?? new Map<number, number>()).values()].reduce((a, b) => a + b, 0)
        : null,
    inventoryItem: (v: VV, _a, ctx: Ctx) => {
      ensureItem(v.__shop, v.__shop.variants.get(v.id)!, ctx.nextId);
      return itemView(v.__shop, v.__shop.variants.get(v.id)!);
    },
  },
  InventoryItem: {
    id: (i: ItemView) => gid("InventoryItem", i.id),
    legacyResourceId: (i: ItemView) => String(i.id),
    tracked: (i: ItemView) => Boolean(i.__variant.tracked),
    sku: (i: ItemView) => i.__variant.sku || null,
    inventoryLevel: (i: ItemView, args) => {
      const loc = requireId("Location", args.locationId);
      const v = i.__shop.variants.get(i.__variant.id)!;
      if (!v.available?.has(loc)) return null;
      return {
        __typename: "InventoryLevel",
        id: gid("InventoryLevel", loc * 1_000_000 + i.id),
        isActive: true,
        quantities: (names: string[]) => names,
        __available: v.available.get(loc)!,
      };
    },
  },
  InventoryLevel: {
    id: "prop",
    isActive: "prop",
    quantities: (l: { __available: number }, args) =>
      (args.names as string[])
        .filter((n) => INVENTORY_NAMES.includes(n))
        .map((name) => ({
          __typename: "InventoryQuantity",
          id: `${name}`,
          name,
          quantity: l.__available,
        })),
  },
  InventoryQuantity: { id: "prop", name: "prop", quantity: "prop" },
};
