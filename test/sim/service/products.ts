/** Catalog operations of Part 2 (§4.1–4.9). */
import {
  productInventory,
  totalInventory,
  type CatalogProduct,
  type CatalogVariant,
} from "./catalog";
import { formatUtc } from "./clock";
import type { Ctx } from "./context";
import { Codes, SvcFault, paramError } from "./envelope";
import { formatMoney, moneyNumber, parseMoney } from "./money";
import { int, queryList, str, type Json } from "./validate";

export const LISTV2_MAX_PAGE = 1000;
export const LISTV2_MAX_SIZE = 100;
export const LISTV2_RECORD_CAP = 6000;
export const LIST_V1_MAX_PAGE_SIZE = 200;

export function getCategory(ctx: Ctx): unknown {
  return ctx.state.catalog.categories.map((c) => ({
    categoryFirstName: c.firstName,
    categoryFirstList: c.seconds.map((s) => ({
      categorySecondName: s.name,
      categorySecondList: s.thirds.map((t) => ({ categoryId: t.id, categoryName: t.name })),
    })),
  }));
}

export function globalWarehouseList(ctx: Ctx): unknown {
  return ctx.state.catalog.globalWarehouses;
}

function visibleProducts(ctx: Ctx): CatalogProduct[] {
  return ctx.state.catalog.products.filter((p) => !p.removed);
}

function decimalParam(q: Json, field: string): bigint | undefined {
  const v = q[field];
  if (v === undefined || v === "") return undefined;
  try {
    return parseMoney(String(v));
  } catch {
    throw paramError(`${field} must be a decimal`);
  }
}

function hasStockIn(p: CatalogProduct, countries: string[] | undefined): boolean {
  if (!countries) return true;
  return p.variants.some((v) => countries.some((c) => (v.inventory[c.toUpperCase()] ?? 0) > 0));
}

export function listV2(ctx: Ctx): unknown {
  const q = ctx.body;
  const page = int(q, "page", { min: 1, max: LISTV2_MAX_PAGE }) ?? 1;
  const size = int(q, "size", { min: 1, max: LISTV2_MAX_SIZE }) ?? 10;
  const keyWord = str(q, "keyWord", { max: 200 });
  const categoryId = str(q, "categoryId");
  const countries = queryList(q, "countryCode");
  const lv2 = queryList(q, "lv2categoryList");
  const lv3 = queryList(q, "lv3categoryList");
  const start = decimalParam(q, "startSellPrice");
  const end = decimalParam(q, "endSellPrice");
  const addMark = int(q, "addMarkStatus", { min: 0, max: 1 });
  const productType = int(q, "productType");
  const invFrom = int(q, "startWarehouseInventory");
  const invTo = int(q, "endWarehouseInventory");
  const timeStart = int(q, "timeStart");
  const timeEnd = int(q, "timeEnd");
  const supplierId = str(q, "supplierId");
  const sort = str(q, "sort") ?? "desc";
  if (sort !== "asc" && sort !== "desc") throw paramError("sort must be asc or desc");
  const orderBy = int(q, "orderBy", { min: 0, max: 4 }) ?? 0;
  const features = new Set(queryList(q, "features") ?? []);

  let items = visibleProducts(ctx).filter((p) => {
    if (keyWord && !matchesKeyword(p, keyWord)) return false;
    if (categoryId && p.categoryId !== categoryId) return false;
    if (lv2 && !lv2.includes(p.twoCategoryId)) return false;
    if (lv3 && !lv3.includes(p.categoryId)) return false;
    if (!hasStockIn(p, countries)) return false;
    if (start !== undefined && p.sellPrice < start) return false;
    if (end !== undefined && p.sellPrice > end) return false;
    if (addMark !== undefined && Number(p.freeShipping) !== addMark) return false;
    if (productType === 4 && p.productType !== "SUPPLIER_PRODUCT") return false;
    if (productType === 10 && !p.hasVideo) return false;
    if (productType === 11 && p.hasVideo) return false;
    const inv = productInventory(p);
    if (invFrom !== undefined && inv < invFrom) return false;
    if (invTo !== undefined && inv > invTo) return false;
    if (timeStart !== undefined && p.createAt < timeStart) return false;
    if (timeEnd !== undefined && p.createAt > timeEnd) return false;
    if (supplierId && p.supplierId !== supplierId) return false;
    return true;
  });
  const key: Record<number, (p: CatalogProduct) => number> = {
    1: (p) => p.listedNum,
    2: (p) => Number(p.sellPrice),
    3: (p) => p.createAt,
    4: (p) => productInventory(p),
  };
  const by = key[orderBy];
  if (by) items = [...items].sort((a, b) => (sort === "asc" ? by(a) - by(b) : by(b) - by(a)));
  const totalRecords = Math.min(items.length, LISTV2_RECORD_CAP);
  const offset = (page - 1) * size;
  const pageItems =
    offset >= totalRecords ? [] : items.slice(offset, Math.min(offset + size, totalRecords));
  const myProducts = ctx.account.myProducts;
  return {
    pageSize: size,
    pageNumber: page,
    totalRecords,
    totalPages: Math.ceil(totalRecords / size),
    content: [
      {
        productList: pageItems.map((p) => summaryV2(p, features, myProducts.has(p.pid))),
        relatedCategoryList: [
          ...new Map(pageItems.map((p) => [p.categoryId, p.categoryName])).entries(),
        ].map(([id, name]) => ({ categoryId: id, categoryName: name })),
        keyWord: keyWord ?? "",
        keyWordOld: keyWord ?? "",
      },
    ],
  };
}

function matchesKeyword(p: CatalogProduct, keyword: string): boolean {
  const k = keyword.toLowerCase();
  return (
    p.nameEn.toLowerCase().includes(k) ||
    p.sku.toLowerCase().includes(k) ||
    p.variants.some((v) => v.sku.toLowerCase().includes(k))
  );
}

function summaryV2(p: CatalogProduct, features: Set<string>, mine: boolean): Json {
  const price = formatMoney(p.sellPrice);
  const out: Json = {
    id: p.pid,
    nameEn: p.nameEn,
    sku: p.sku,
    spu: p.sku,
    bigImage: p.image,
    sellPrice: price,
    nowPrice: price,
    discountPrice: price,
    discountPriceRate: "0",
    listedNum: p.listedNum,
    isCollect: 0,
    categoryId: p.categoryId,
    twoCategoryId: p.twoCategoryId,
    oneCategoryId: p.oneCategoryId,
    addMarkStatus: p.freeShipping ? 1 : 0,
    isVideo: p.hasVideo ? 1 : 0,
    productType: p.productType,
    supplierName: p.supplierName,
    createAt: p.createAt,
    setRecommendedTime: p.createAt,
    warehouseInventoryNum: productInventory(p),
    totalVerifiedInventory: productInventory(p),
    totalUnVerifiedInventory: 0,
    verifiedWarehouse: 1,
    customization: p.customizationVersion > 0 ? 1 : 0,
    isPersonalized: 0,
    hasCECertification: 0,
    myProduct: mine,
    deliveryCycle: "3-7",
    saleStatus: "3",
    authorityStatus: "1",
    autStatus: "0",
    isAut: "0",
    isList: 0,
    syncListedProductStatus: "0",
    isAd: 0,
    activityId: "",
    directMinOrderNum: "1",
    zoneRecommendJson: [],
    inventoryInfo: JSON.stringify(countryTotals(p)),
    variantInventories: JSON.stringify(
      p.variants.map((v) => ({ vid: v.vid, inventory: totalInventory(v) })),
    ),
    variantKeyEn: p.variants.map((v) => v.key).join(","),
    propertyKey: "COMMON",
  };
  if (features.has("enable_category")) {
    out.threeCategoryName = p.categoryName;
    out.twoCategoryName = p.twoCategoryName;
    out.oneCategoryName = p.oneCategoryName;
  }
  if (features.has("enable_video")) out.videoList = p.hasVideo ? [videoId(p, 0)] : [];
  if (features.has("enable_description")) out.description = p.description;
  return out;
}

function countryTotals(p: CatalogProduct): Array<{ countryCode: string; totalInventory: number }> {
  const totals = new Map<string, number>();
  for (const v of p.variants)
    for (const [c, n] of Object.entries(v.inventory)) totals.set(c, (totals.get(c) ?? 0) + n);
  return [...totals].map(([countryCode, n]) => ({ countryCode, totalInventory: n }));
}

export function list(ctx: Ctx): unknown {
  const q = ctx.body;
  const pageNum = int(q, "pageNum", { min: 1 }) ?? 1;
  const pageSize = int(q, "pageSize", { min: 1, max: LIST_V1_MAX_PAGE_SIZE }) ?? 20;
  const categoryId = str(q, "categoryId");
  const pid = str(q, "pid");
  const productSku = str(q, "productSku");
  const productType = str(q, "productType");
  const name = str(q, "productNameEn") ?? str(q, "productName");
  const minPrice = decimalParam(q, "minPrice");
  const maxPrice = decimalParam(q, "maxPrice");
  const countries = queryList(q, "countryCode");
  const isFreeShipping = int(q, "isFreeShipping", { min: 0, max: 1 });
  const sort = str(q, "sort") ?? "desc";
  const orderBy = str(q, "orderBy") ?? "createAt";
  let items = visibleProducts(ctx).filter((p) => {
    if (categoryId && p.categoryId !== categoryId) return false;
    if (pid && p.pid !== pid) return false;
    if (productSku && p.sku !== productSku) return false;
    if (productType && p.productType !== productType) return false;
    if (name && !p.nameEn.toLowerCase().includes(name.toLowerCase())) return false;
    if (minPrice !== undefined && p.sellPrice < minPrice) return false;
    if (maxPrice !== undefined && p.sellPrice > maxPrice) return false;
    if (!hasStockIn(p, countries)) return false;
    if (isFreeShipping !== undefined && Number(p.freeShipping) !== isFreeShipping) return false;
    return true;
  });
  const by =
    orderBy === "listedNum"
      ? (p: CatalogProduct) => p.listedNum
      : (p: CatalogProduct) => p.createAt;
  items = [...items].sort((a, b) => (sort === "asc" ? by(a) - by(b) : by(b) - by(a)));
  const page = items.slice((pageNum - 1) * pageSize, pageNum * pageSize);
  return {
    pageNum,
    pageSize,
    total: items.length,
    list: page.map((p) => ({
      pid: p.pid,
      productName: JSON.stringify([p.nameEn]),
      productNameEn: p.nameEn,
      productSku: p.sku,
      productImage: p.image,
      productWeight: p.weight,
      productType: p.productType,
      productUnit: "piece",
      isVideo: p.hasVideo ? "1" : "0",
      saleStatus: 3,
      listedNum: p.listedNum,
      supplierName: p.supplierName,
      supplierId: p.supplierId,
      categoryId: p.categoryId,
      categoryName: p.categoryName,
      remark: null,
      addMarkStatus: p.freeShipping ? 1 : 0,
      isFreeShipping: p.freeShipping,
      sellPrice: moneyNumber(p.sellPrice),
      createTime: formatUtc(p.createAt),
      customizationVersion: p.customizationVersion,
    })),
  };
}

function findProduct(ctx: Ctx, q: Json): CatalogProduct {
  const pid = str(q, "pid", { max: 200 });
  const productSku = str(q, "productSku", { max: 200 });
  const variantSku = str(q, "variantSku", { max: 200 });
  const given = [pid, productSku, variantSku].filter((x) => x !== undefined).length;
  if (given !== 1) throw paramError("exactly one of pid, productSku, variantSku is required");
  const { catalog } = ctx.state;
  const p = pid
    ? catalog.byPid.get(pid)
    : productSku
      ? catalog.bySku.get(productSku)
      : catalog.byPid.get(catalog.variantBySku.get(variantSku ?? "")?.pid ?? "");
  if (!p) throw paramError("product not found");
  if (p.removed) throw new SvcFault(Codes.PRODUCT_REMOVED, "product has been removed");
  return p;
}

export function variantRecord(v: CatalogVariant, withInventories: boolean): Json {
  const out: Json = {
    vid: v.vid,
    pid: v.pid,
    variantName: v.nameEn,
    variantNameEn: v.nameEn,
    variantSku: v.sku,
    variantImage: v.image,
    variantStandard: `long=${v.length},width=${v.width},height=${v.height}`,
    variantUnit: "piece",
    variantKey: v.key,
    variantLength: v.length,
    variantWidth: v.width,
    variantHeight: v.height,
    variantVolume: v.length * v.width * v.height,
    variantWeight: v.weight,
    variantSellPrice: moneyNumber(v.sellPrice),
    variantSugSellPrice: moneyNumber(v.suggestPrice),
    createTime: null,
  };
  if (withInventories) {
    out.inventories = Object.entries(v.inventory).map(([countryCode, n]) => ({
      countryCode,
      totalInventory: n,
      svcInventory: n,
      factoryInventory: 0,
      verifiedWarehouse: 1,
      stock: [{ stockId: `STK-${countryCode}`, inventory: n, factoryInventory: 0 }],
    }));
  }
  return out;
}

function variantsIn(p: CatalogProduct, country: string | undefined): CatalogVariant[] {
  return p.variants.filter(
    (v) => !v.removed && (!country || (v.inventory[country.toUpperCase()] ?? 0) > 0),
  );
}

export function productQuery(ctx: Ctx): unknown {
  const p = findProduct(ctx, ctx.body);
  const country = str(ctx.body, "countryCode", { max: 2 });
  const features = new Set(queryList(ctx.body, "features") ?? []);
  const out: Json = {
    pid: p.pid,
    productName: JSON.stringify([p.nameEn]),
    productNameEn: p.nameEn,
    productSku: p.sku,
    bigImage: p.image,
    productImage: JSON.stringify(p.images),
    productImageSet: p.images,
    productWeight: p.weight,
    packingWeight: p.weight + 20,
    productUnit: "piece",
    productType: p.productType,
    categoryId: p.categoryId,
    categoryName: p.categoryName,
    entryCode: "9999999999",
    entryName: p.nameEn,
    entryNameEn: p.nameEn,
    materialName: JSON.stringify(["plastic"]),
    materialNameEn: JSON.stringify(["plastic"]),
    materialKey: JSON.stringify(["PLASTIC"]),
    packingName: JSON.stringify(["bag"]),
    packingNameEn: JSON.stringify(["bag"]),
    packingKey: JSON.stringify(["BAG"]),
    productKey: p.optionNames.join("-"),
    productKeyEn: p.optionNames.join("-"),
    productPro: JSON.stringify(["COMMON"]),
    productProEn: JSON.stringify(["COMMON"]),
    productProSet: ["COMMON"],
    productProEnSet: ["COMMON"],
    sellPrice: moneyNumber(p.sellPrice),
    suggestSellPrice: formatMoney((p.sellPrice * 25n) / 10n),
    listedNum: p.listedNum,
    status: "3",
    supplierName: p.supplierName,
    supplierId: p.supplierId,
    description: p.description,
    addMarkStatus: p.freeShipping ? 1 : 0,
    createTime: formatUtc(p.createAt),
    customizationVersion: p.customizationVersion,
    customizationJson1: null,
    customizationJson2: null,
    customizationJson3: null,
    customizationJson4: null,
    variants: variantsIn(p, country).map((v) => variantRecord(v, true)),
  };
  if (features.has("enable_video") && p.hasVideo)
    out.productVideo = [`https://video.svc.test/${p.sku}.mp4`];
  return out;
}

export function variantQuery(ctx: Ctx): unknown {
  const q = ctx.body;
  const pid = str(q, "pid", { max: 200 });
  const productSku = str(q, "productSku", { max: 200 });
  if (!pid && !productSku) throw paramError("pid or productSku is required");
  const p = pid ? ctx.state.catalog.byPid.get(pid) : ctx.state.catalog.bySku.get(productSku ?? "");
  if (!p) throw paramError("product not found");
  if (p.removed) throw new SvcFault(Codes.PRODUCT_REMOVED, "product has been removed");
  return variantsIn(p, str(q, "countryCode", { max: 2 })).map((v) => variantRecord(v, false));
}

export function queryByVid(ctx: Ctx): unknown {
  const vid = str(ctx.body, "vid", { required: true, max: 200 });
  const v = ctx.state.catalog.variantByVid.get(vid);
  if (!v) throw paramError("variant not found");
  if (v.removed) throw new SvcFault(Codes.VARIANT_REMOVED, "variant has been removed");
  const { variantStandard: _omitted, ...rest } = variantRecord(v, false);
  return rest;
}

function videoId(p: CatalogProduct, i: number): string {
  return `VID-${p.sku}-${i + 1}`;
}

export function queryVideosByProductId(ctx: Ctx): unknown {
  const productId = str(ctx.body, "productId", { max: 100 });
  if (!productId) throw paramError("productId must not be empty");
  const p = ctx.state.catalog.byPid.get(productId);
  if (!p || !p.hasVideo) return [];
  return [0, 1].map((i) => ({
    id: videoId(p, i),
    videoId: videoId(p, i),
    locProductId: p.pid,
    videoName: `${p.nameEn} video ${i + 1}`,
    videoNumber: `${p.sku}V${i + 1}`,
    videoState: "ON_STATE",
    videoUrl: `https://video.svc.test/${p.sku}-${i + 1}.mp4`,
    coverURL: `https://img.svc.test/cover/${p.sku}-${i + 1}.jpg`,
    notCopyrightPrice: "0.00",
    copyrightPrice: "9.99",
    copyright: "0",
    isFree: "1",
    videoSize: "3.2",
    duration: 15.5,
    unit: "MB",
    flag: "0",
    isBuy: false,
    payType: "0",
    playCount: 10,
    collectCount: 1,
    downloadCount: 2,
    showCount: 30,
    shareNum: 0,
    likeNum: 3,
    commentCount: 0,
    buyCount: 0,
    orderNum: 0,
    videoType: i === 0 ? 0 : 1,
    copyrightBuyType: 1,
    videoByOut: false,
    width: 1080,
    height: 1920,
    openIn: 0,
  }));
}

export function addToMyProduct(ctx: Ctx): boolean {
  const productId = str(ctx.body, "productId", { required: true, max: 100 });
  const p = ctx.state.catalog.byPid.get(productId);
  if (!p) throw paramError("product not found");
  if (p.removed) throw new SvcFault(Codes.PRODUCT_REMOVED, "product has been removed");
  if (ctx.account.myProducts.has(productId))
    throw new SvcFault(Codes.SYSTEM_BUSY, "product is already in My Products");
  ctx.account.myProducts.add(productId);
  return true;
}
