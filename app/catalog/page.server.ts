/**
 * The Catalog page: browse the supplier's catalog by category or keyword, 20 a page, with each
 * product's price (USD), supplier and stock; import a product into the shop (a job, with its
 * progress listed); and the latest imports.
 */
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { startCatalogImport } from "./import-job.server";
import {
  type CategoryTree,
  SvcBusyError,
  type SvcClient,
  SvcNetworkError,
  SvcRateLimitError,
  SvcServerError,
} from "../svc/index.server";
import { accountOf, describeSvcError } from "../svc-account/account.server";
import {
  PageDeadlineError,
  deadlineText,
  pageClientForShop,
  withinPageDeadline,
} from "../page-kit/page-reads.server";
import { type FieldErrors, type IntentResult, parseForm } from "../page-kit/forms.server";

export const CATALOG_PAGE_SIZE = 20;

const pageQuery = z.object({
  q: z.string().trim().max(200).optional().catch(undefined),
  cat: z
    .string()
    .trim()
    .max(100)
    .regex(/^[\w-]+$/)
    .optional()
    .catch(undefined),
  page: z.coerce.number().int().min(1).max(300).optional().catch(undefined),
});

/** The category tree changes rarely: kept a while per account in this process. */
const categoryCache = new Map<string, { at: number; tree: CategoryTree }>();
const CATEGORY_TTL_MS = 3600_000;

/** Why the catalog cannot be shown, in the merchant's words. */
export function browseErrorText(error: unknown): string {
  if (error instanceof PageDeadlineError) return deadlineText(error);
  if (
    error instanceof SvcServerError ||
    error instanceof SvcNetworkError ||
    error instanceof SvcRateLimitError ||
    error instanceof SvcBusyError
  )
    return "The supplier's catalog is not answering right now. Try again in a moment.";
  return describeSvcError(error);
}

/** The catalog's third-level categories as select options ("Home › Kitchen › Mugs"). */
export async function categoryOptions(
  accountId: string,
  client: SvcClient,
): Promise<{ value: string; label: string }[]> {
  let hit = categoryCache.get(accountId);
  if (!hit || Date.now() - hit.at >= CATEGORY_TTL_MS) {
    hit = { at: Date.now(), tree: await client.catalog.categories() };
    categoryCache.set(accountId, hit);
  }
  return hit.tree.flatMap((first) =>
    (first.categoryFirstList ?? []).flatMap((second) =>
      (second.categorySecondList ?? []).map((third) => ({
        value: third.categoryId ?? "",
        label: `${first.categoryFirstName ?? ""} › ${second.categorySecondName ?? ""} › ${third.categoryName ?? ""}`,
      })),
    ),
  );
}

export interface CatalogCard {
  pid: string;
  name: string;
  image: string;
  priceUsd: string;
  supplier: string;
  stock: number | null;
  options: string;
  /** Imported into this shop already (the Shopify product id), or being imported. */
  imported: string | null;
  importing: boolean;
}

export async function catalogPageData(db: PrismaClient, shop: string, search: URLSearchParams) {
  const q = pageQuery.parse(Object.fromEntries(search));
  const page = q.page ?? 1;
  const account = await accountOf(db, shop);
  const imports = await db.catalogImport.findMany({
    where: { shopDomain: shop },
    orderBy: { createdAt: "desc" },
    take: 10,
  });
  const base = {
    query: { q: q.q ?? "", cat: q.cat ?? "", page },
    connected: Boolean(account),
    categories: [] as { value: string; label: string }[],
    results: [] as CatalogCard[],
    totalPages: 0,
    total: 0,
    error: null as string | null,
    imports: imports.map((i) => ({
      id: i.id,
      pid: i.pid,
      // Never the catalog's id: the name comes with the form, or from the job once it reads it.
      title: i.title ?? "A catalog product",
      status: i.status,
      variants: i.variants,
      shopifyProductId: i.shopifyProductId,
      error: i.error,
      at: i.updatedAt.toISOString(),
    })),
  };
  const client = account ? await pageClientForShop(db, shop) : null;
  if (!account || !client) return base;
  try {
    await withinPageDeadline(read(client, account.id), "The supplier's catalog");
  } catch (error) {
    base.error = browseErrorText(error);
  }
  return base;

  async function read(client: SvcClient, accountId: string) {
    base.categories = await categoryOptions(accountId, client);
    const res = await client.catalog.listV2({
      keyWord: q.q || undefined,
      categoryId: q.cat || undefined,
      page,
      size: CATALOG_PAGE_SIZE,
    });
    const list = res.items.flatMap((g) => g.productList ?? []);
    const pids = list.map((p) => p.id ?? "").filter(Boolean);
    const [done, running] = await Promise.all([
      db.productConnection.findMany({
        where: { shopDomain: shop, svcProductId: { in: pids }, imported: true },
        select: { svcProductId: true, shopifyProductId: true },
        distinct: ["svcProductId"],
      }),
      db.catalogImport.findMany({
        where: { shopDomain: shop, pid: { in: pids }, status: { in: ["queued", "running"] } },
        select: { pid: true },
      }),
    ]);
    base.results = list.map((p) => ({
      pid: p.id ?? "",
      name: p.nameEn ?? "",
      image: p.bigImage ?? "",
      priceUsd: p.nowPrice || p.sellPrice || "",
      supplier: p.supplierName ?? "",
      stock: p.warehouseInventoryNum ?? null,
      options: variantCount((p.variantKeyEn ?? "").split(",").filter(Boolean).length),
      imported: done.find((d) => d.svcProductId === p.id)?.shopifyProductId ?? null,
      importing: running.some((r) => r.pid === p.id),
    }));
    base.total = res.total ?? base.results.length;
    base.totalPages = res.totalPages ?? Math.ceil(base.total / CATALOG_PAGE_SIZE);
  }
}

/** "3 variants", "1 variant", or nothing when the list does not say. */
export function variantCount(n: number): string {
  return n === 0 ? "" : n === 1 ? "1 variant" : `${n} variants`;
}

const importForm = z.object({
  pid: z.string().trim().min(1, "Choose a catalog product").max(100, "Not a catalog product"),
});

export type CatalogActionResult = IntentResult;

export async function catalogAction(
  db: PrismaClient,
  shop: string,
  form: FormData,
): Promise<CatalogActionResult> {
  const intent = String(form.get("intent") ?? "");
  const fail = (errors: FieldErrors): CatalogActionResult => ({ ok: false, intent, errors });
  if (intent !== "import") return fail({ form: "Unknown action" });
  if (!(await accountOf(db, shop))) return fail({ form: "Connect a service account first" });
  const parsed = parseForm(importForm, form);
  if (!parsed.ok) return fail(parsed.errors);
  const name = form.get("name");
  const row = await startCatalogImport(
    db,
    shop,
    parsed.data.pid,
    typeof name === "string" ? name : null,
  );
  return {
    ok: true,
    intent,
    message: row.started
      ? "Import started: the product shows in your shop in a moment"
      : "This product is being imported already",
  };
}
