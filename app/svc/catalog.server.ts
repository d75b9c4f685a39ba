/**
 * Part 2: categories, product lists V1 and V2, global warehouses, product detail, variants,
 * videos and add to My Products. The reply shapes are in catalog-shapes.ts; the product
 * connections in connections.server.ts.
 *
 * Not implemented because the contract does not show their path or shape: saving shop products
 * and batch saving shop variants (Part 2 §4.10, "referred to by name only").
 */

import { defineOp } from "./ops";
import {
  categoryTreeSchema,
  listV2GroupSchema,
  productSummaryV1Schema,
  variantSchema,
  productDetailSchema,
  globalWarehouseSchema,
  videoSchema,
  type CategoryTree,
  type ListV2Group,
  type ProductSummaryV1,
  type Variant,
  type ProductDetail,
  type GlobalWarehouse,
  type Video,
} from "./catalog-shapes";
import { arr, bool, page, type Page } from "./schema-kit";
import type { Transport } from "./transport.server";
import { type ObjectSpec, validateRequest } from "./validate";

export const CATALOG_OPS = {
  getCategory: defineOp("getCategory", "GET", "/product/getCategory", "safe"),
  listV2: defineOp("listV2", "GET", "/product/listV2", "safe"),
  list: defineOp("list", "GET", "/product/list", "safe"),
  globalWarehouseList: defineOp(
    "globalWarehouseList",
    "GET",
    "/product/globalWarehouseList",
    "safe",
  ),
  query: defineOp("query", "GET", "/product/query", "safe"),
  variantQuery: defineOp("variant/query", "GET", "/product/variant/query", "safe"),
  queryByVid: defineOp("variant/queryByVid", "GET", "/product/variant/queryByVid", "safe"),
  queryVideosByProductId: defineOp(
    "queryVideosByProductId",
    "POST",
    "/product/queryVideosByProductId",
    "safe",
    {
      successCodes: [0, 200],
    },
  ),
  addToMyProduct: defineOp("addToMyProduct", "POST", "/product/addToMyProduct", "never"),
  connectionList: defineOp("connection/list", "GET", "/product/conn/connection", "safe"),
  connectionCreate: defineOp("connection/create", "POST", "/product/conn/connection", "safe"),
  connectionDelete: defineOp("connection/delete", "DELETE", "/product/conn/connection", "safe"),
} as const;

export interface ListV2Query {
  keyWord?: string;
  page?: number;
  size?: number;
  categoryId?: string;
  lv2categoryList?: string[];
  lv3categoryList?: string[];
  countryCode?: string;
  startSellPrice?: string | number;
  endSellPrice?: string | number;
  addMarkStatus?: 0 | 1;
  productType?: number;
  productFlag?: number;
  startWarehouseInventory?: number;
  endWarehouseInventory?: number;
  verifiedWarehouse?: number;
  timeStart?: number;
  timeEnd?: number;
  zonePlatform?: string;
  isWarehouse?: boolean;
  sort?: "asc" | "desc";
  orderBy?: number;
  features?: Array<"enable_description" | "enable_category" | "enable_combine" | "enable_video">;
  supplierId?: string;
  hasCertification?: 0 | 1;
  isSelfPickup?: 0 | 1;
  customization?: 0 | 1;
}

export interface ListV1Query {
  pageNum?: number;
  pageSize?: number;
  categoryId?: string;
  pid?: string;
  productSku?: string;
  productType?: "ORDINARY_PRODUCT" | "SUPPLIER_PRODUCT";
  productName?: string;
  productNameEn?: string;
  deliveryTime?: "24" | "48" | "72";
  verifiedWarehouse?: number;
  startInventory?: number;
  endInventory?: number;
  createTimeFrom?: string;
  createTimeTo?: string;
  brandOpenId?: string | number;
  minPrice?: string | number;
  maxPrice?: string | number;
  countryCode?: string;
  searchType?: number;
  minListedNum?: number;
  maxListedNum?: number;
  sort?: "asc" | "desc";
  orderBy?: "createAt" | "listedNum";
  isSelfPickup?: 0 | 1;
  supplierId?: string;
  isFreeShipping?: 0 | 1;
  customizationVersion?: 1 | 2 | 3 | 4 | 5;
}

export type ProductQuery = ({ pid: string } | { productSku: string } | { variantSku: string }) & {
  features?: Array<"enable_combine" | "enable_video">;
  countryCode?: string;
};

export const LIST_V2_LIMITS = { maxPage: 1000, maxSize: 100, maxRecords: 6000 } as const;

export const SPECS = {
  listV2: {
    keyWord: { type: "string", max: 200 },
    page: { type: "int", min: 1, maxValue: 1000 },
    size: { type: "int", min: 1, maxValue: 100 },
    startSellPrice: { type: "decimal" },
    endSellPrice: { type: "decimal" },
  },
  list: {
    pageNum: { type: "int", min: 1 },
    pageSize: { type: "int", min: 1, maxValue: 200 },
    minPrice: { type: "decimal" },
    maxPrice: { type: "decimal" },
  },
  query: {
    pid: { type: "string" },
    productSku: { type: "string" },
    variantSku: { type: "string" },
    countryCode: { type: "string", max: 2 },
  },
  connectionList: {
    shopId: { type: "string", max: 40 },
    platformProductId: { type: "string", max: 100 },
    platformVariantId: { type: "string", max: 100 },
    page: { type: "int", min: 1 },
    pageSize: { type: "int", min: 1, maxValue: 100 },
  },
  connectionCreate: {
    shopId: { type: "string", max: 50 },
    defaultArea: { type: "int", required: true, max: 5 },
    logistics: { type: "string", required: true, max: 200 },
    svcProductId: { type: "string", required: true, max: 50 },
    platformProductId: { type: "string", required: true, max: 100 },
    sourceCountryCode: { type: "string", max: 20 },
    targetCountryCode: { type: "string", max: 20 },
    sourceCountry: { type: "string", max: 100 },
    targetCountry: { type: "string", max: 100 },
    variantList: {
      type: "array",
      required: true,
      minItems: 1,
      item: {
        svcVariantId: { type: "string", required: true, max: 50 },
        platformVariantId: { type: "string", required: true, max: 100 },
      },
    },
  },
  connectionDelete: {
    shopId: { type: "string", max: 50 },
    platformProductId: { type: "string", required: true, max: 100 },
    platformVariantId: { type: "string", max: 100 },
  },
} satisfies Record<string, ObjectSpec>;

export class CatalogResource {
  constructor(private readonly t: Transport) {}

  async categories(): Promise<CategoryTree> {
    return this.t.call(CATALOG_OPS.getCategory, {}, categoryTreeSchema);
  }

  /** Product list V2 (shape A; `items` are groups holding `productList`). */
  async listV2(q: ListV2Query = {}): Promise<Page<ListV2Group>> {
    validateRequest("listV2", SPECS.listV2, q);
    return this.t.call(CATALOG_OPS.listV2, { query: { ...q } }, page(listV2GroupSchema));
  }

  /** Product list V1 (shape B). */
  async list(q: ListV1Query = {}): Promise<Page<ProductSummaryV1>> {
    validateRequest("list", SPECS.list, q);
    return this.t.call(CATALOG_OPS.list, { query: { ...q } }, page(productSummaryV1Schema));
  }

  async globalWarehouses(): Promise<GlobalWarehouse[]> {
    return this.t.call(CATALOG_OPS.globalWarehouseList, {}, arr(globalWarehouseSchema));
  }

  /** Product detail; exactly one of pid / productSku / variantSku. */
  async product(q: ProductQuery): Promise<ProductDetail> {
    validateRequest("query", SPECS.query, q);
    const r = q as { pid?: string; productSku?: string; variantSku?: string };
    const given = [r.pid, r.productSku, r.variantSku].filter(
      (v) => v !== undefined && v !== "",
    ).length;
    if (given !== 1)
      validateRequest(
        "query",
        { "pid|productSku|variantSku": { type: "string", required: true } },
        {},
      );
    return this.t.call(CATALOG_OPS.query, { query: { ...q } }, productDetailSchema);
  }

  /** Variants of a product (by pid or productSku). */
  async variants(
    q: ({ pid: string } | { productSku: string }) & { countryCode?: string },
  ): Promise<Variant[]> {
    const r = q as { pid?: string; productSku?: string; countryCode?: string };
    validateRequest("variant/query", { countryCode: { type: "string", max: 2 } }, r);
    if (!r.pid && !r.productSku)
      validateRequest(
        "variant/query",
        { "pid|productSku": { type: "string", required: true } },
        {},
      );
    return this.t.call(CATALOG_OPS.variantQuery, { query: { ...q } }, arr(variantSchema));
  }

  async variantByVid(vid: string): Promise<Variant> {
    validateRequest(
      "variant/queryByVid",
      { vid: { type: "string", required: true, max: 200 } },
      { vid },
    );
    return this.t.call(CATALOG_OPS.queryByVid, { query: { vid } }, variantSchema);
  }

  /** Videos of a product (this operation answers `code` 0 on success). */
  async videos(productId: string): Promise<Video[]> {
    validateRequest(
      "queryVideosByProductId",
      { productId: { type: "string", required: true, max: 100 } },
      { productId },
    );
    return this.t.call(
      CATALOG_OPS.queryVideosByProductId,
      { body: { productId } },
      arr(videoSchema),
    );
  }

  /** Adds a product to My Products; 1600000 when it is already there (not retried). */
  async addToMyProduct(productId: string): Promise<boolean> {
    validateRequest(
      "addToMyProduct",
      { productId: { type: "string", required: true, max: 100 } },
      { productId },
    );
    return this.t.call(
      CATALOG_OPS.addToMyProduct,
      { body: { productId } },
      bool.transform((v) => v !== false),
    );
  }
}
