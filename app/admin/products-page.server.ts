/** The products page: the shop's variants with their catalog variant, the picker, the actions. */
import { startImport } from "../catalog/import-connections.server";
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { bulkConnectStatus, startBulkConnect } from "../jobs/bulk-connect.server";
import type { ShopGateway } from "../shop/index.server";
import { SvcError } from "../svc/index.server";
import { accountOf, clientForShop, describeSvcError } from "./account.server";
import { connectOne, disconnectVariant, numericId } from "./connections.server";
import { type FieldErrors, parseForm } from "./forms.server";

const pageQuery = z.object({
  after: z.string().max(500).optional().catch(undefined),
  q: z.string().trim().max(100).optional().catch(undefined),
  pick: z.string().regex(/^\d+$/).optional().catch(undefined),
  catalogQ: z.string().trim().max(200).optional().catch(undefined),
  pid: z.string().max(200).optional().catch(undefined),
});

export async function productsPageData(
  db: PrismaClient,
  shop: string,
  gateway: ShopGateway,
  search: URLSearchParams,
) {
  const q = pageQuery.parse(Object.fromEntries(search));
  const page = await gateway.listProducts({ first: 20, after: q.after ?? null, query: q.q });
  const variantIds = page.items.flatMap((p) => p.variants.map((v) => numericId(v.id)));
  const rows = await db.productConnection.findMany({
    where: { shopDomain: shop, shopifyVariantId: { in: variantIds } },
  });
  const byVariant = new Map(rows.map((r) => [r.shopifyVariantId, r]));
  const products = page.items.map((p) => ({
    id: numericId(p.id),
    title: p.title,
    imageUrl: p.imageUrl,
    moreVariants: Boolean(p.moreVariantsAfter),
    variants: p.variants.map((v) => {
      const c = byVariant.get(numericId(v.id));
      return {
        id: numericId(v.id),
        title: v.title,
        sku: v.sku,
        price: v.price,
        connection: c ? { svcVid: c.svcVid, svcProductId: c.svcProductId } : null,
      };
    }),
  }));
  const [connectedTotal, bulk, account] = await Promise.all([
    db.productConnection.count({ where: { shopDomain: shop } }),
    bulkConnectStatus(db, shop),
    accountOf(db, shop),
  ]);
  return {
    query: q,
    products,
    nextCursor: page.hasNextPage ? page.endCursor : null,
    connectedTotal,
    bulk,
    connected: Boolean(account),
    picker: q.pick ? await pickerData(db, shop, q) : null,
  };
}

/** The catalog search (list V2) and, once a product is chosen, its variants. */
async function pickerData(db: PrismaClient, shop: string, q: z.output<typeof pageQuery>) {
  const client = await clientForShop(db, shop);
  const out = {
    variantId: q.pick!,
    catalogQ: q.catalogQ ?? "",
    results: [] as { pid: string; name: string; sku: string; price: string; image: string }[],
    pid: q.pid ?? null,
    variants: [] as { vid: string; sku: string; name: string; price: string; image: string }[],
    error: null as string | null,
  };
  if (!client) return { ...out, error: "Connect a service account first" };
  try {
    if (q.pid) {
      const variants = await client.catalog.variants({ pid: q.pid });
      out.variants = variants.map((v) => ({
        vid: v.vid ?? "",
        sku: v.variantSku ?? "",
        name: v.variantNameEn ?? v.variantKey ?? v.variantSku ?? "",
        price: v.variantSellPrice != null ? String(v.variantSellPrice) : "",
        image: v.variantImage ?? "",
      }));
    } else if (q.catalogQ) {
      const page = await client.catalog.listV2({ keyWord: q.catalogQ, size: 10 });
      out.results = page.items
        .flatMap((g) => g.productList)
        .map((p) => ({
          pid: p.id ?? "",
          name: p.nameEn ?? "",
          sku: p.sku ?? "",
          price: p.nowPrice ?? p.sellPrice ?? "",
          image: p.bigImage ?? "",
        }));
    }
  } catch (error) {
    out.error = describeSvcError(error);
  }
  return out;
}

const connectForm = z.object({
  productId: z.string().regex(/^\d+$/, "Not a product id"),
  variantId: z.string().regex(/^\d+$/, "Not a variant id"),
  vid: z.string().trim().min(1, "Choose a catalog variant").max(50, "Not a catalog variant"),
  sku: z.string().max(200).optional(),
});
const disconnectForm = z.object({ variantId: z.string().regex(/^\d+$/, "Not a variant id") });

export type ProductsActionResult =
  | { ok: true; intent: string; message: string }
  | { ok: false; intent: string; errors: FieldErrors };

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
