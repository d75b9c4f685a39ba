/**
 * The products page's actions: match by SKU, import the service's connections, connect one
 * variant or a whole product, add a backup supplier, quote shipping, keep a price after a cost
 * change, sync now, disconnect. Each answers with the page's IntentResult.
 */
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { startImport } from "../svc-account/import-connections.server";
import { startBulkConnect } from "./bulk-connect.server";
import { SvcError, type SvcClient } from "../svc/index.server";
import { accountOf, clientForShop, describeSvcError } from "../svc-account/account.server";
import { connectOne, disconnectVariant } from "./connections.server";
import { connectVariants } from "../orders/product-links.server";
import { startShopSync } from "../catalog/jobs.server";
import { refreshFacts } from "../catalog/facts.server";
import { type FieldErrors, type IntentResult, parseForm } from "../page-kit/forms.server";
import { quoteShipping } from "./products-facts.server";

const connectForm = z.object({
  productId: z.string().regex(/^\d+$/, "Not a product id"),
  variantId: z.string().regex(/^\d+$/, "Not a variant id"),
  vid: z.string().trim().min(1, "Choose a catalog variant").max(50, "Not a catalog variant"),
  sku: z.string().max(200).optional(),
});
const disconnectForm = z.object({ variantId: z.string().regex(/^\d+$/, "Not a variant id") });
const connectAllForm = z.object({
  productId: z.string().regex(/^\d+$/, "Not a product id"),
  pid: z.string().trim().min(1, "Choose a catalog product").max(50, "Not a catalog product"),
  pairs: z
    .string()
    .max(20_000)
    .transform((v, ctx) => {
      const out: { variantId: string; vid: string; sku: string }[] = [];
      for (const line of v.split("\n").filter(Boolean)) {
        const [variantId, vid, sku] = line.split("\t");
        if (!variantId || !/^\d+$/.test(variantId) || !vid || vid.length > 50) {
          ctx.addIssue({ code: "custom", message: "A pairing is not valid" });
          return z.NEVER;
        }
        out.push({ variantId, vid, sku: sku ?? "" });
      }
      if (out.length === 0) {
        ctx.addIssue({ code: "custom", message: "No variant pairs up by its options" });
        return z.NEVER;
      }
      return out;
    }),
});
const backupForm = z.object({
  variantId: z.string().regex(/^\d+$/, "Not a variant id"),
  pid: z.string().trim().min(1, "Choose a catalog product").max(50, "Not a catalog product"),
  vid: z.string().trim().min(1, "Choose a catalog variant").max(50, "Not a catalog variant"),
});

export type ProductsActionResult = IntentResult;

export async function productsAction(
  db: PrismaClient,
  shop: string,
  form: FormData,
): Promise<ProductsActionResult> {
  const intent = String(form.get("intent") ?? "");
  const fail = (errors: FieldErrors): ProductsActionResult => ({ ok: false, intent, errors });
  const client = await clientForShop(db, shop);
  if (!client && intent !== "disconnect") return fail({ form: "Connect a service account first" });
  try {
    switch (intent) {
      case "auto-match": {
        await startBulkConnect(db, shop);
        return { ok: true, intent, message: "Matching by SKU started" };
      }
      case "import-connections": {
        const account = await accountOf(db, shop);
        if (!account) return fail({ form: "Connect a service account first" });
        await startImport(db, shop, account.id);
        return {
          ok: true,
          intent,
          message: "Reading the connections made at the service: matched variants show in a moment",
        };
      }
      case "connect": {
        const parsed = parseForm(connectForm, form);
        if (!parsed.ok) return fail(parsed.errors);
        const d = parsed.data;
        await connectOne(db, client!, shop, {
          shopifyProductId: d.productId,
          shopifyVariantId: d.variantId,
          sku: d.sku,
          svcVid: d.vid,
        });
        return { ok: true, intent, message: "Variant connected" };
      }
      case "connect-all":
        return connectAll(db, client!, shop, form, intent);
      case "add-backup":
        return addBackup(db, client!, shop, form, intent);
      case "quote-shipping": {
        const vids = String(form.get("vids") ?? "")
          .split(",")
          .map((v) => v.trim())
          .filter((v) => v && v.length <= 50);
        if (vids.length === 0) return fail({ form: "No connected variant on this page" });
        const n = await quoteShipping(db, shop, vids);
        return { ok: true, intent, message: `Shipping quoted for ${n} catalog variants` };
      }
      case "keep-price":
        return keepPrice(db, shop, form, intent);
      case "sync-now": {
        await startShopSync(db, shop);
        return { ok: true, intent, message: "Stock and prices are being brought in step" };
      }
      case "disconnect": {
        const parsed = parseForm(disconnectForm, form);
        if (!parsed.ok) return fail(parsed.errors);
        const gone = await disconnectVariant(db, client, shop, parsed.data.variantId);
        return gone
          ? { ok: true, intent, message: "Variant disconnected" }
          : fail({ form: "This variant is not connected" });
      }
      default:
        return fail({ form: "Unknown action" });
    }
  } catch (error) {
    if (error instanceof SvcError) return fail({ form: describeSvcError(error) });
    throw error;
  }
}

/** All of a product's variants paired by options to one catalog product's. */
async function connectAll(
  db: PrismaClient,
  client: SvcClient,
  shop: string,
  form: FormData,
  intent: string,
): Promise<ProductsActionResult> {
  const fail = (errors: FieldErrors): ProductsActionResult => ({ ok: false, intent, errors });
  const parsed = parseForm(connectAllForm, form);
  if (!parsed.ok) return fail(parsed.errors);
  const d = parsed.data;
  const n = await connectVariants(
    db,
    client,
    shop,
    d.pid,
    d.pairs.map((p) => ({
      shopifyProductId: d.productId,
      shopifyVariantId: p.variantId,
      sku: p.sku || null,
      svcVid: p.vid,
    })),
  );
  return { ok: true, intent, message: `${n} variants connected` };
}

/** A backup supplier for a connected variant (at most 3, each a variant of the catalog product). */
async function addBackup(
  db: PrismaClient,
  client: SvcClient,
  shop: string,
  form: FormData,
  intent: string,
): Promise<ProductsActionResult> {
  const fail = (errors: FieldErrors): ProductsActionResult => ({ ok: false, intent, errors });
  const parsed = parseForm(backupForm, form);
  if (!parsed.ok) return fail(parsed.errors);
  const d = parsed.data;
  const first = await db.productConnection.findUnique({
    where: {
      shopDomain_shopifyVariantId: { shopDomain: shop, shopifyVariantId: d.variantId },
    },
  });
  if (!first) return fail({ form: "Connect the variant to its first supplier first" });
  if (first.svcVid === d.vid) return fail({ form: "This is the variant's first supplier" });
  const taken = await db.backupSupplier.findMany({
    where: { shopDomain: shop, shopifyVariantId: d.variantId },
  });
  if (taken.some((b) => b.svcVid === d.vid))
    return fail({ form: "This catalog variant is a backup already" });
  if (taken.length >= 3) return fail({ form: "At most 3 backup suppliers per variant" });
  // The catalog's word on it first: the variant must be one of that product's.
  await refreshFacts(db, client, [d.pid], { maxAgeMs: 60_000 });
  const fact = await db.catalogVariant.findUnique({ where: { vid: d.vid } });
  if (!fact || fact.pid !== d.pid || fact.removed)
    return fail({ vid: "Not a variant of that catalog product" });
  await db.backupSupplier.create({
    data: {
      shopDomain: shop,
      shopifyVariantId: d.variantId,
      position: Math.max(0, ...taken.map((b) => b.position)) + 1,
      svcProductId: d.pid,
      svcVid: d.vid,
    },
  });
  return { ok: true, intent, message: `Backup supplier ${taken.length + 2} added` };
}

/** The merchant has seen the cost change and keeps the price: the new cost is the base. */
async function keepPrice(
  db: PrismaClient,
  shop: string,
  form: FormData,
  intent: string,
): Promise<ProductsActionResult> {
  const fail = (errors: FieldErrors): ProductsActionResult => ({ ok: false, intent, errors });
  const parsed = parseForm(disconnectForm, form);
  if (!parsed.ok) return fail(parsed.errors);
  const row = await db.productConnection.findUnique({
    where: {
      shopDomain_shopifyVariantId: {
        shopDomain: shop,
        shopifyVariantId: parsed.data.variantId,
      },
    },
  });
  if (!row || row.flag !== "cost_change")
    return fail({ form: "This variant has no cost change to review" });
  const fact = await db.catalogVariant.findUnique({ where: { vid: row.svcVid } });
  await db.productConnection.update({
    where: { id: row.id },
    data: { flag: null, flaggedAt: null, pricedFromUsd: fact?.costUsd ?? row.pricedFromUsd },
  });
  return { ok: true, intent, message: "Price kept; the new cost is the base from now on" };
}
