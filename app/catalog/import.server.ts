/**
 * Imports a catalog product into the shop (issue 16): every variant that is not removed, with
 * its options (the product's attribute names, productKeyEn "Color-Size-Material", and each
 * variant's values, variantKey "Red-M-Cotton"), images, description, SKU, a price by the shop's
 * pricing rule and its stock at the app's location (inventory tracked); then the variants are
 * connected at once (the service's connection and the app's rows) and the product is added to
 * My Products at the service.
 *
 * Safe to run again: productSet goes by a handle made of the catalog SKU, so a retry replaces
 * the same product instead of making a second one, and connecting is an upsert on both sides.
 */
import type { PrismaClient } from "@prisma/client";
import { connectVariants } from "../orders/product-links.server";
import { usdRate } from "../fx/rates.server";
import { getSettings } from "../settings.server";
import type { ProductSetInput, ShopGateway } from "../shop/index.server";
import { SvcBusyError, type ProductDetail, type SvcClient } from "../svc/index.server";
import { stockCountries, stockIn, stockOf, storeDetail } from "./facts.server";
import { priceFor } from "./pricing";

/** Shopify's limit of variants per product. */
export const MAX_IMPORT_VARIANTS = 2048;

export class ImportRefusedError extends Error {
  override name = "ImportRefusedError";
}

/** The handle an imported product gets (the same for a retry). */
export function importHandle(productSku: string, pid: string): string {
  const base = (productSku || pid)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
  return `svc-${base}`.slice(0, 200);
}

/**
 * Option names and each variant's values. The names come from productKeyEn when it has as many
 * parts as the variants' keys; otherwise "Option 1…". A product whose variants have no key is
 * one "Title" option.
 */
export function optionsOf(detail: Pick<ProductDetail, "variants"> & { productKeyEn?: unknown }): {
  names: string[];
  valuesOf: (v: ProductDetail["variants"][number]) => string[];
} {
  const variants = detail.variants ?? [];
  const split = (k: string | null | undefined) =>
    (k ?? "")
      .split("-")
      .map((x) => x.trim())
      .filter(Boolean);
  const width = Math.max(0, ...variants.map((v) => split(v.variantKey).length));
  if (width === 0) return { names: ["Title"], valuesOf: (v) => [v.variantSku || "Default Title"] };
  const keyNames = typeof detail.productKeyEn === "string" ? split(detail.productKeyEn) : [];
  const consistent = variants.every((v) => split(v.variantKey).length === width);
  if (!consistent || width > 3) {
    // Keys of different widths (or more than Shopify's 3 options): one option of the whole key.
    return {
      names: [keyNames.length === 1 ? keyNames[0]! : "Variant"],
      valuesOf: (v) => [split(v.variantKey).join(" ") || v.variantSku || "Default"],
    };
  }
  const names =
    keyNames.length === width
      ? keyNames
      : Array.from({ length: width }, (_, i) => `Option ${i + 1}`);
  return { names, valuesOf: (v) => split(v.variantKey) };
}

export interface ImportOutcome {
  shopifyProductId: string;
  title: string;
  variants: number;
  connected: number;
}

export async function importProduct(opts: {
  db: PrismaClient;
  client: SvcClient;
  gateway: ShopGateway;
  shop: string;
  pid: string;
  now?: () => number;
  fxRatesUrl?: string;
  onProgress?: (p: { title: string; variants: number }) => Promise<void>;
}): Promise<ImportOutcome> {
  const { db, client, gateway, shop } = opts;
  const now = opts.now ?? Date.now;
  const detail = await client.catalog.product({ pid: opts.pid });
  await storeDetail(db, detail, new Date(now()));
  const variants = (detail.variants ?? []).filter((v) => v.vid && v.variantSku);
  if (variants.length === 0)
    throw new ImportRefusedError("The catalog product has no variants to import");
  if (variants.length > MAX_IMPORT_VARIANTS)
    throw new ImportRefusedError(
      `The catalog product has ${variants.length} variants; Shopify takes at most ${MAX_IMPORT_VARIANTS}`,
    );
  const title = detail.productNameEn || detail.productSku || "Imported product";
  await opts.onProgress?.({ title, variants: variants.length });

  const settings = await getSettings(db, shop);
  const basics = await gateway.shopBasics();
  const rate = await usdRate(db, basics.currencyCode, settings, {
    nowMs: now(),
    url: opts.fxRatesUrl,
  });
  if (!rate)
    throw new ImportRefusedError(
      `No exchange rate from USD to ${basics.currencyCode}: set one in Settings → Exchange rates`,
    );
  const countries = stockCountries(settings);
  // Imported before (a retry, or imported again): Shopify takes no quantities when it updates.
  const before = await db.productConnection.count({
    where: { shopDomain: shop, svcProductId: detail.pid ?? opts.pid, imported: true },
  });
  const stockNow = Boolean(basics.locationId) && before === 0;
  const { names, values, planned } = planVariants(detail, variants, (cost) =>
    priceFor(cost, settings, rate.usdPerUnit),
  );
  if (planned.length === 0)
    throw new ImportRefusedError("The service gives no cost for this product's variants");
  const input: ProductSetInput = {
    handle: importHandle(detail.productSku ?? "", opts.pid),
    title,
    descriptionHtml: detail.description ?? "",
    images: (detail.productImageSet?.length ? detail.productImageSet : [detail.bigImage ?? ""])
      .filter((x): x is string => Boolean(x))
      .slice(0, 20),
    options: names.map((name, i) => ({ name, values: values[i]! })),
    variants: planned.map(({ v, vals, priced }) => ({
      optionValues: names.map((optionName, i) => ({ optionName, name: vals[i]! })),
      sku: v.variantSku!,
      price: priced.price,
      compareAtPrice: priced.compareAtPrice,
      image: v.variantImage || null,
      tracked: Boolean(basics.locationId),
      quantity: stockNow ? stockIn(stockOf(v), countries) : null,
    })),
    locationId: basics.locationId,
  };
  const made = await gateway.setProduct(input);
  const productNumeric = made.productId.replace(/^.*\//, "");
  const connected = await connectImported(opts, detail.pid ?? opts.pid, made, planned, {
    productNumeric,
    stockNow,
    countries,
    now,
  });
  try {
    await client.catalog.addToMyProduct(detail.pid ?? opts.pid);
  } catch (error) {
    // 1600000 here: already in My Products (the contract's only stated move).
    if (!(error instanceof SvcBusyError)) throw error;
  }
  return {
    shopifyProductId: productNumeric,
    title,
    variants: made.variants.length,
    connected,
  };
}

type CatalogVariant = ProductDetail["variants"][number];
interface PlannedVariant {
  v: CatalogVariant;
  vals: string[];
  cost: string;
  priced: ReturnType<typeof priceFor>;
}

/**
 * The product's options with the values its variants use, and the variants to make: one per
 * set of option values (the first of two alike), each priced from its cost. A variant the
 * service gives no cost for cannot be priced: it is left out, never sold at 0.
 */
function planVariants(
  detail: ProductDetail,
  variants: CatalogVariant[],
  price: (cost: string) => ReturnType<typeof priceFor>,
): { names: string[]; values: string[][]; planned: PlannedVariant[] } {
  const { names, valuesOf } = optionsOf(detail);
  const values = names.map(() => [] as string[]);
  const seen = new Set<string>();
  const planned = variants.flatMap((v) => {
    const vals = valuesOf(v);
    const key = vals.join("\u0000");
    if (seen.has(key)) return []; // two catalog variants with the same options: the first
    seen.add(key);
    vals.forEach((x, i) => {
      if (!values[i]!.includes(x)) values[i]!.push(x);
    });
    if (v.variantSellPrice == null) return [];
    const cost = String(v.variantSellPrice);
    return [{ v, vals, cost, priced: price(cost) }];
  });
  return { names, values, planned };
}

/**
 * Connects every variant made at once, by SKU (productSet keeps the SKUs it was given), and
 * marks the rows imported with their price, cost and the stock set. Returns how many.
 */
async function connectImported(
  opts: { db: PrismaClient; client: SvcClient; shop: string },
  pid: string,
  made: Awaited<ReturnType<ShopGateway["setProduct"]>>,
  planned: PlannedVariant[],
  rows: { productNumeric: string; stockNow: boolean; countries: string[]; now: () => number },
): Promise<number> {
  const { db, client, shop } = opts;
  const bySku = new Map(planned.map((p) => [p.v.variantSku!, p]));
  const toConnect = made.variants.flatMap((sv) => {
    const p = sv.sku ? bySku.get(sv.sku) : undefined;
    return p ? [{ sv, p }] : [];
  });
  await connectVariants(
    db,
    client,
    shop,
    pid,
    toConnect.map(({ sv, p }) => ({
      shopifyProductId: rows.productNumeric,
      shopifyVariantId: sv.id.replace(/^.*\//, ""),
      sku: sv.sku,
      svcVid: p.v.vid!,
    })),
  );
  await db.$transaction(
    toConnect.map(({ sv, p }) =>
      db.productConnection.update({
        where: {
          shopDomain_shopifyVariantId: {
            shopDomain: shop,
            shopifyVariantId: sv.id.replace(/^.*\//, ""),
          },
        },
        data: {
          imported: true,
          inventoryItemId: sv.inventoryItemId,
          ...(rows.stockNow ? { stockSet: stockIn(stockOf(p.v), rows.countries) } : {}),
          pricedFromUsd: p.cost,
          shopPrice: p.priced.price,
          flag: null,
          syncedAt: new Date(rows.now()),
        },
      }),
    ),
  );
  return toConnect.length;
}
