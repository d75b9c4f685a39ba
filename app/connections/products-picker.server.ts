/** The products page's picker: the supplier's catalog browsed, and a product's variants. */
import type { PrismaClient } from "@prisma/client";
import { pageClientForShop, withinPageDeadline } from "../page-kit/page-reads.server";
import { browseErrorText, categoryOptions } from "../catalog/page.server";
import { stockCountries, stockIn, stockOf, storeDetail } from "../catalog/facts.server";
import type { ShopSettings } from "../settings.server";
import type { SvcClient } from "../svc/index.server";

/** The page's query as the picker reads it (products-page.server.ts parses it). */
export interface PickerQuery {
  pick?: string;
  catalogQ?: string;
  cat?: string;
  catalogPage?: number;
  pid?: string;
}

/**
 * The picker: the catalog by keyword (list V2, 10 a page, paged) and, once a product is chosen,
 * its variants with cost and stock, paired with the shop product's variants by option values so
 * that all of them can be connected at once.
 */
export async function pickerData(
  db: PrismaClient,
  shop: string,
  q: PickerQuery,
  settings: ShopSettings,
  accountId: string | null,
) {
  const client = await pageClientForShop(db, shop);
  const out = {
    variantId: q.pick!,
    catalogQ: q.catalogQ ?? "",
    cat: q.cat ?? "",
    categories: [] as { value: string; label: string }[],
    catalogPage: q.catalogPage ?? 1,
    totalPages: 0,
    results: [] as {
      pid: string;
      name: string;
      sku: string;
      price: string;
      image: string;
      supplier: string;
      stock: number | null;
    }[],
    pid: q.pid ?? null,
    variants: [] as {
      vid: string;
      sku: string;
      name: string;
      key: string;
      price: string;
      image: string;
      stock: number;
    }[],
    error: null as string | null,
  };
  if (!client || !accountId) return { ...out, error: "Connect a service account first" };
  try {
    await withinPageDeadline(read(client, accountId), "The supplier's catalog");
  } catch (error) {
    out.error = browseErrorText(error);
  }
  return out;

  async function read(client: SvcClient, accountId: string) {
    out.categories = await categoryOptions(accountId, client);
    if (q.pid) {
      const detail = await client.catalog.product({ pid: q.pid });
      await storeDetail(db, detail, new Date());
      const countries = stockCountries(settings);
      out.variants = (detail.variants ?? []).map((v) => ({
        vid: v.vid ?? "",
        sku: v.variantSku ?? "",
        name: v.variantNameEn ?? v.variantKey ?? v.variantSku ?? "",
        key: v.variantKey ?? "",
        price: v.variantSellPrice != null ? String(v.variantSellPrice) : "",
        image: v.variantImage ?? "",
        stock: stockIn(stockOf(v), countries),
      }));
    } else if (q.catalogQ || q.cat) {
      const page = await client.catalog.listV2({
        keyWord: q.catalogQ || undefined,
        categoryId: q.cat || undefined,
        size: 10,
        page: out.catalogPage,
      });
      out.totalPages = page.totalPages ?? 0;
      out.results = page.items
        .flatMap((g) => g.productList)
        .map((p) => ({
          pid: p.id ?? "",
          name: p.nameEn ?? "",
          sku: p.sku ?? "",
          price: p.nowPrice ?? p.sellPrice ?? "",
          image: p.bigImage ?? "",
          supplier: p.supplierName ?? "",
          stock: p.warehouseInventoryNum ?? null,
        }));
    }
  }
}
