/**
 * The read-only Inventory page: the account's private stock (merchant-owned goods kept in the
 * service's warehouses) as the five private-inventory queries give it (part 1 §4.7), and the
 * warehouse the settings name (warehouse/detail). Nothing is stored: each view is one or two
 * calls, paged as the service pages.
 */
import type { PrismaClient } from "@prisma/client";
import type { SvcClient } from "../svc/client.server";
import { describeSvcError, isOutage } from "../svc-account/account.server";
import {
  PageDeadlineError,
  deadlineText,
  pageClientForShop,
  withinPageDeadline,
} from "../page-kit/page-reads.server";
import { getSettings } from "../settings.server";

export const INVENTORY_TABS = ["products", "stock", "records"] as const;
export type InventoryTab = (typeof INVENTORY_TABS)[number];
const PAGE_SIZE = 20;

const n = (v: number | null | undefined) => (typeof v === "number" && Number.isFinite(v) ? v : 0);

export interface InventoryQuery {
  tab: InventoryTab;
  q: string;
  page: number;
  product: string;
  sku: string;
}

export function inventoryQuery(search: URLSearchParams): InventoryQuery {
  const tab = search.get("tab") ?? "products";
  return {
    tab: (INVENTORY_TABS as readonly string[]).includes(tab) ? (tab as InventoryTab) : "products",
    q: (search.get("q") ?? "").trim().slice(0, 200),
    page: Math.max(1, Math.min(10_000, Number.parseInt(search.get("page") ?? "1", 10) || 1)),
    product: (search.get("product") ?? "").slice(0, 200),
    sku: (search.get("sku") ?? "").slice(0, 200),
  };
}

function pages(total: number | undefined, totalPages: number | undefined) {
  return Math.max(1, totalPages ?? Math.ceil(n(total) / PAGE_SIZE));
}

const byCountry = (
  list:
    | {
        countryCode?: string | null;
        warehouseQuantity?: number | null;
        clientTransitQuantity?: number | null;
      }[]
    | null
    | undefined,
) =>
  (list ?? []).map((w) => ({
    country: w.countryCode ?? "—",
    stock: n(w.warehouseQuantity),
    inTransit: n(w.clientTransitQuantity),
  }));

/** The products tab, and one product's variants when asked. */
async function productsTab(client: SvcClient, q: InventoryQuery) {
  // The list and the chosen product's variants are read together, not one after the other.
  const [p, skus] = await Promise.all([
    client.inventory.querySpuPage({
      pageNum: q.page,
      pageSize: PAGE_SIZE,
      ...(q.q ? { keyword: q.q } : {}),
    }),
    q.product ? client.inventory.querySkuListByProductId({ productId: q.product }) : null,
  ]);
  const variants = skus
    ? skus.map((v) => ({
        sku: v.sku ?? "—",
        variantId: v.variantId ?? "",
        name:
          [v.variantValue1, v.variantValue2, v.variantValue3].filter(Boolean).join(" / ") ||
          (v.variantKey ?? "—"),
        image: v.bigImage ?? null,
        price: v.minStockPrice ?? null,
        warehouses: byCountry(v.warehouseQuantityInfoList),
      }))
    : null;
  return {
    total: n(p.total),
    pages: pages(p.total, p.totalPages),
    products: p.items.map((s) => ({
      id: s.productId ?? "",
      name: s.productName ?? "—",
      spu: s.spu ?? null,
      image: s.productPic ?? null,
      variants: n(s.skuQuantity),
      stock: n(s.totalWarehouseQuantity),
      price:
        s.minStockPrice && s.maxStockPrice && s.minStockPrice !== s.maxStockPrice
          ? `${s.minStockPrice}–${s.maxStockPrice}`
          : (s.minStockPrice ?? s.maxStockPrice ?? null),
      warehouses: byCountry(s.warehouseQuantityInfoList),
    })),
    variants,
    variantsOf: skus?.[0]?.productName ?? null,
  };
}

/** The stock tab (each SKU in each warehouse, the quantity set), and one SKU's batches. */
async function stockTab(client: SvcClient, q: InventoryQuery) {
  const p = await client.inventory.querySkuDetailPage({
    pageNum: q.page,
    pageSize: PAGE_SIZE,
    ...(q.q ? { keyword: q.q } : {}),
  });
  const batches = q.sku
    ? (await client.inventory.querySkuDetailListBySku({ sku: q.sku })).map((b) => ({
        orderCode: b.orderCode ?? "—",
        warehouse: b.storage ?? b.storageId ?? "—",
        received: n(b.orderQuantity),
        available: n(b.clientAvailableQuantity),
        inTransit: n(b.clientTransitQuantity),
        locked: n(b.clientLockQuantity),
      }))
    : null;
  return {
    total: n(p.total),
    pages: pages(p.total, p.totalPages),
    rows: p.items.map((r) => ({
      key: `${r.sku ?? ""}@${r.storageId ?? ""}`,
      sku: r.sku ?? "—",
      name: r.productName ?? "—",
      variant: r.variantKey ?? null,
      warehouse: r.storageId ?? "—",
      available: n(r.clientAvailableQuantity),
      inTransit: n(r.clientTransitQuantity),
      locked: n(r.clientLockQuantity),
      inUse: n(r.clientUseQuantity),
      disputed: n(r.clientDisputeQuantity),
      frozen: n(r.clientFreezeQuantity),
    })),
    batches,
  };
}

/** The records tab: every change to the stock (received, used, locked…), newest as given. */
async function recordsTab(client: SvcClient, q: InventoryQuery) {
  const p = await client.inventory.querySkuFlowByCondition({
    pageNum: q.page,
    pageSize: PAGE_SIZE,
    ...(q.q ? { sku: q.q } : {}),
    clientVisible: 1,
  });
  return {
    total: n(p.total),
    pages: pages(p.total, p.totalPages),
    records: p.items.map((f) => ({
      id: f.clientRecordId ?? "",
      at: f.createDate?.toISOString() ?? null,
      what: f.eventDesc ?? "—",
      change: n(f.changeQuantity),
      warehouse: f.storage ?? f.storageId ?? "—",
      order: f.eventOrderCode ?? f.orderCode ?? null,
      available: n(f.clientAvailableQuantity),
    })),
  };
}

/** The warehouse the settings name (storageId), in full; null when none is named. */
export async function namedWarehouse(client: SvcClient, storageId: string) {
  if (!storageId) return null;
  const s = await client.warehouses.detail(storageId);
  return {
    id: s.id ?? storageId,
    name: s.name ?? storageId,
    address: [s.address1, s.address2, s.city, s.province, s.zipCode, s.areaCountryCode]
      .filter(Boolean)
      .join(", "),
    contact: [s.contacts, s.phone].filter(Boolean).join(" · ") || null,
    selfPickup: s.isSelfPickup === 1,
    carriers: (s.logisticsBrandList ?? []).map((b) => b.name ?? "").filter(Boolean),
  };
}

export async function inventoryView(client: SvcClient, q: InventoryQuery) {
  if (q.tab === "stock") return { tab: "stock" as const, ...(await stockTab(client, q)) };
  if (q.tab === "records") return { tab: "records" as const, ...(await recordsTab(client, q)) };
  return { tab: "products" as const, ...(await productsTab(client, q)) };
}

/**
 * The page's data: the view the address asks for and the settings' warehouse, read together
 * within the page's deadline; with no account, or when the service fails, a sentence instead.
 */
export async function inventoryPageData(db: PrismaClient, shop: string, search: URLSearchParams) {
  const query = inventoryQuery(search);
  const client = await pageClientForShop(db, shop);
  if (!client)
    return {
      query,
      view: null,
      warehouse: null,
      error: "Connect a service account first (Settings).",
    };
  const { storageId } = await getSettings(db, shop);
  try {
    // Both reads together, bounded: a slow service never holds the page.
    const [view, warehouse] = await withinPageDeadline(
      Promise.all([
        inventoryView(client, query),
        namedWarehouse(client, storageId).catch(() => null),
      ]),
      "The service's warehouses",
    );
    return { query, view, warehouse, error: null };
  } catch (error) {
    const text =
      error instanceof PageDeadlineError
        ? deadlineText(error)
        : isOutage(error)
          ? "The service is not answering now. Nothing is lost: try again in a few minutes."
          : describeSvcError(error);
    return { query, view: null, warehouse: null, error: text };
  }
}
