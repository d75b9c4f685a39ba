/**
 * Storage detail and private inventory (Part 1 §4.6–4.7). Every account holds the same small,
 * deterministic private stock: the catalog's SERVICE_PRODUCT items.
 */
import type { CatalogProduct } from "./catalog";
import type { Ctx } from "./context";
import { Codes, SvcFault } from "./envelope";
import { moneyNumber } from "./money";
import { bool, int, str, strList, type Json } from "./validate";

const PRIVATE_LIMIT = 12;

function privateProducts(ctx: Ctx): CatalogProduct[] {
  return ctx.state.catalog.products
    .filter((p) => p.productType === "SERVICE_PRODUCT")
    .slice(0, PRIVATE_LIMIT);
}

export function warehouseDetail(ctx: Ctx): unknown {
  const id = str(ctx.body, "id", { required: true, max: 200 });
  const s = ctx.state.catalog.storages.find((x) => x.id === id);
  if (!s) throw new SvcFault(Codes.WAREHOUSE_NOT_FOUND, "warehouse info not found");
  return s;
}

function quantities(n: number): Json {
  return {
    clientTransitQuantity: Math.floor(n / 10),
    clientAvailableQuantity: n,
    clientLockQuantity: 0,
    clientUseQuantity: 0,
    clientDisputeQuantity: 0,
    clientDisputeCompleteQuantity: 0,
    clientFreezeQuantity: 0,
  };
}

function pageA<T>(items: T[], b: Json): Json {
  const pageNum = int(b, "pageNum", { min: 1 }) ?? 1;
  const pageSize = int(b, "pageSize", { min: 1, max: 200 }) ?? 20;
  return {
    pageSize,
    pageNumber: pageNum,
    totalRecords: items.length,
    totalPages: Math.ceil(items.length / pageSize),
    content: items.slice((pageNum - 1) * pageSize, pageNum * pageSize),
  };
}

function stockOf(p: CatalogProduct): number {
  return p.variants.reduce((a, v) => a + (v.inventory.US ?? 0) + (v.inventory.CN ?? 0), 0);
}

function matches(text: string, keyword: string | undefined): boolean {
  return !keyword || text.toLowerCase().includes(keyword.toLowerCase());
}

export function querySpuPage(ctx: Ctx): unknown {
  const b = ctx.body;
  const keyword = str(b, "keyword", { max: 200 });
  const productId = str(b, "productId", { max: 200 });
  const sku = str(b, "sku", { max: 200 });
  const available = bool(b, "availableStock");
  str(b, "sortField", { max: 100 });
  str(b, "sortType", { max: 10 });
  const items = privateProducts(ctx)
    .filter((p) =>
      matches(`${p.nameEn} ${p.sku} ${p.variants.map((v) => v.sku).join(" ")}`, keyword),
    )
    .filter(
      (p) => (!productId || p.pid === productId) && (!sku || p.variants.some((v) => v.sku === sku)),
    )
    .filter((p) => !available || stockOf(p) > 0)
    .map((p) => ({
      productId: p.pid,
      productName: p.nameEn,
      spu: p.sku,
      productPic: p.image,
      productType: p.productType,
      skuQuantity: p.variants.length,
      totalWarehouseQuantity: stockOf(p),
      minStockPrice: moneyNumber(p.sellPrice),
      maxStockPrice: moneyNumber(
        p.variants.reduce((m, v) => (v.sellPrice > m ? v.sellPrice : m), p.sellPrice),
      ),
      warehouseQuantityInfoList: ["US", "CN"].map((c) => ({
        countryCode: c,
        warehouseQuantity: p.variants.reduce((a, v) => a + (v.inventory[c] ?? 0), 0),
        clientTransitQuantity: 0,
      })),
    }));
  return pageA(items, b);
}

export function querySkuListByProductId(ctx: Ctx): unknown {
  const productId = str(ctx.body, "productId", { required: true, max: 200 });
  const keyword = str(ctx.body, "keyword", { max: 200 });
  const variantId = str(ctx.body, "variantId", { max: 200 });
  const p = privateProducts(ctx).find((x) => x.pid === productId);
  if (!p) return [];
  return p.variants
    .filter((v) => (!variantId || v.vid === variantId) && matches(`${v.sku} ${v.key}`, keyword))
    .map((v) => {
      const [v1, v2, v3] = v.key.split("-");
      return {
        merchantId: ctx.account.accountId,
        productId: p.pid,
        variantId: v.vid,
        sku: v.sku,
        productName: p.nameEn,
        variantKey: v.key,
        variantValue1: v1 ?? null,
        variantValue2: v2 ?? null,
        variantValue3: v3 ?? null,
        bigImage: v.image,
        minStockPrice: moneyNumber(v.sellPrice),
        maxStockPrice: moneyNumber(v.sellPrice),
        warehouseQuantityInfoList: ["US", "CN"].map((c) => ({
          countryCode: c,
          warehouseQuantity: v.inventory[c] ?? 0,
          clientTransitQuantity: 0,
        })),
      };
    });
}

function skuRows(ctx: Ctx): Json[] {
  return privateProducts(ctx).flatMap((p) =>
    p.variants.flatMap((v) =>
      (["US", "CN"] as const).map((c) => ({
        merchantId: ctx.account.accountId,
        sku: v.sku,
        variantId: v.vid,
        productId: p.pid,
        productName: p.nameEn,
        storageId: c,
        ...quantities(v.inventory[c] ?? 0),
        variantKey: v.key,
        bigImage: v.image,
      })),
    ),
  );
}

export function querySkuDetailPage(ctx: Ctx): unknown {
  const b = ctx.body;
  const sku = str(b, "sku", { max: 200 });
  const productId = str(b, "productId", { max: 200 });
  const keyword = str(b, "keyword", { max: 200 });
  const storageIds = strList(b, "storageIds");
  const skuList = strList(b, "skuList");
  const available = bool(b, "availableStock");
  const rows = skuRows(ctx).filter(
    (r) =>
      (!sku || r.sku === sku) &&
      (!productId || r.productId === productId) &&
      matches(`${String(r.sku)} ${String(r.productName)}`, keyword) &&
      (!storageIds || storageIds.includes(String(r.storageId))) &&
      (!skuList || skuList.includes(String(r.sku))) &&
      (!available || Number(r.clientAvailableQuantity) > 0),
  );
  return pageA(rows, b);
}

export function querySkuDetailListBySku(ctx: Ctx): unknown {
  const b = ctx.body;
  const sku = str(b, "sku", { required: true, max: 200 });
  const storageIds = strList(b, "storageIds");
  const available = bool(b, "availableStock");
  return skuRows(ctx)
    .filter((r) => r.sku === sku && (!storageIds || storageIds.includes(String(r.storageId))))
    .filter((r) => !available || Number(r.clientAvailableQuantity) > 0)
    .map((r) => ({
      merchantId: r.merchantId,
      sku: r.sku,
      orderCode: `STOCK-${String(r.sku)}-${String(r.storageId)}`,
      storage: r.storageId === "US" ? "Chino Warehouse" : "Shenzhen Warehouse",
      storageId: r.storageId,
      productId: r.productId,
      orderQuantity: Number(r.clientAvailableQuantity),
      unitPrice: 100,
      ...quantities(Number(r.clientAvailableQuantity)),
    }));
}

export function querySkuFlowByCondition(ctx: Ctx): unknown {
  const b = ctx.body;
  const sku = str(b, "sku", { max: 200 });
  const storageId = str(b, "storageId", { max: 100 });
  const recordId = str(b, "recordId", { max: 200 });
  const clientVisible = int(b, "clientVisible", { min: 0, max: 1 });
  const flows = skuRows(ctx)
    .filter((r) => (!sku || r.sku === sku) && (!storageId || r.storageId === storageId))
    .map((r, i) => {
      const n = Number(r.clientAvailableQuantity);
      return {
        clientRecordId: `FLOW${String(i + 1).padStart(6, "0")}`,
        eventDesc: "Stock received",
        changeQuantity: n,
        createDate: Date.UTC(2025, 0, 1) + i * 60_000,
        eventOrderCode: `STOCK-${String(r.sku)}-${String(r.storageId)}`,
        eventOrderCodeType: 1,
        clientVisible: 1,
        orderCode: `STOCK-${String(r.sku)}-${String(r.storageId)}`,
        storage: r.storageId,
        storageId: r.storageId,
        unitPrice: 100,
        ...quantities(n),
        clientTransitChangeQuantity: "+0",
        clientAvailableChangeQuantity: `+${n}`,
        clientLockChangeQuantity: "+0",
        clientUseChangeQuantity: "+0",
        clientDisputeChangeQuantity: "+0",
        clientDisputeChangeCompleteQuantity: "+0",
        clientFreezeChangeQuantity: "+0",
        skuDetailInfo: quantities(n),
      };
    })
    .filter(
      (f) =>
        (!recordId || f.clientRecordId === recordId) &&
        (clientVisible === undefined || f.clientVisible === clientVisible),
    );
  return pageA(flows, b);
}
