/**
 * Part 1 §4.6–4.9: warehouse detail, the five private-inventory queries, warehouse order photos
 * and the webhook subscription.
 */
import { z } from "zod";
import { defineOp } from "./ops";
import { arr, bool, money, num, obj, page, type Page, str, timestamp } from "./schema-kit";
import type { Transport } from "./transport.server";
import { compact, type ObjectSpec, validateRequest } from "./validate";

export const STORAGE_OPS = {
  warehouseDetail: defineOp("warehouse/detail", "GET", "/warehouse/detail", "safe"),
  querySpuPage: defineOp(
    "querySpuPage",
    "POST",
    "/product/stock/privateInventory/querySpuPage",
    "safe",
  ),
  querySkuListByProductId: defineOp(
    "querySkuListByProductId",
    "POST",
    "/product/stock/privateInventory/querySkuListByProductId",
    "safe",
  ),
  querySkuDetailPage: defineOp(
    "querySkuDetailPage",
    "POST",
    "/product/stock/privateInventory/querySkuDetailPage",
    "safe",
  ),
  querySkuDetailListBySku: defineOp(
    "querySkuDetailListBySku",
    "POST",
    "/product/stock/privateInventory/querySkuDetailListBySku",
    "safe",
  ),
  querySkuFlowByCondition: defineOp(
    "querySkuFlowByCondition",
    "POST",
    "/product/stock/privateInventory/querySkuFlowByCondition",
    "safe",
  ),
  syncStorehouseVideoRequests: defineOp(
    "syncStorehouseVideoRequests",
    "POST",
    "/storehouseCenterWeb/syncStorehouseVideoRequests",
    "safe",
  ),
  webhookSet: defineOp("webhook/set", "POST", "/webhook/set", "safe"),
} as const;

export const storageSchema = obj({
  id: str,
  name: str,
  areaId: num,
  areaCountryCode: str,
  province: str,
  city: str,
  address1: str,
  address2: str,
  contacts: str,
  phone: str,
  zipCode: str,
  isSelfPickup: num,
  logisticsBrandList: arr(obj({ id: str, name: str })),
});
export type Storage = z.output<typeof storageSchema>;

const quantitySet = {
  clientTransitQuantity: num,
  clientAvailableQuantity: num,
  clientLockQuantity: num,
  clientUseQuantity: num,
  clientDisputeQuantity: num,
  clientDisputeCompleteQuantity: num,
  clientFreezeQuantity: num,
};
const warehouseQuantityInfo = obj({
  countryCode: str,
  warehouseQuantity: num,
  clientTransitQuantity: num,
});

export const spuRecordSchema = obj({
  productId: str,
  productName: str,
  spu: str,
  productPic: str,
  productType: str,
  skuQuantity: num,
  totalWarehouseQuantity: num,
  minStockPrice: money,
  maxStockPrice: money,
  warehouseQuantityInfoList: arr(warehouseQuantityInfo),
});
export const skuRecordSchema = obj({
  merchantId: str,
  productId: str,
  variantId: str,
  sku: str,
  productName: str,
  variantKey: str,
  variantValue1: str,
  variantValue2: str,
  variantValue3: str,
  bigImage: str,
  minStockPrice: money,
  maxStockPrice: money,
  warehouseQuantityInfoList: arr(warehouseQuantityInfo),
});
export const skuDetailRecordSchema = obj({
  merchantId: str,
  sku: str,
  variantId: str,
  productId: str,
  productName: str,
  storageId: str,
  variantKey: str,
  bigImage: str,
  ...quantitySet,
});
export const batchRecordSchema = obj({
  merchantId: str,
  sku: str,
  orderCode: str,
  storage: str,
  storageId: str,
  productId: str,
  orderQuantity: num,
  unitPrice: num,
  ...quantitySet,
});
export const flowRecordSchema = obj({
  clientRecordId: str,
  eventDesc: str,
  changeQuantity: num,
  createDate: timestamp,
  eventOrderCode: str,
  eventOrderCodeType: num,
  clientVisible: num,
  orderCode: str,
  storage: str,
  storageId: str,
  unitPrice: num,
  ...quantitySet,
  clientTransitChangeQuantity: str,
  clientAvailableChangeQuantity: str,
  clientLockChangeQuantity: str,
  clientUseChangeQuantity: str,
  clientDisputeChangeQuantity: str,
  clientDisputeChangeCompleteQuantity: str,
  clientFreezeChangeQuantity: str,
  skuDetailInfo: z.unknown().optional(),
});
export const photoRecordSchema = obj({
  orderId: str,
  pictureJson: arr(obj({ url: str, type: str })),
});

export type SpuRecord = z.output<typeof spuRecordSchema>;
export type SkuRecord = z.output<typeof skuRecordSchema>;
export type SkuDetailRecord = z.output<typeof skuDetailRecordSchema>;
export type BatchRecord = z.output<typeof batchRecordSchema>;
export type FlowRecord = z.output<typeof flowRecordSchema>;
export type PhotoRecord = z.output<typeof photoRecordSchema>;

export interface SpuPageQuery {
  pageNum?: number;
  pageSize?: number;
  keyword?: string;
  availableStock?: boolean;
  pack?: boolean;
  serviceProd?: boolean;
  pod?: boolean;
  productId?: string;
  sku?: string;
  sortField?: string;
  sortType?: "asc" | "desc";
}
export interface SkuListQuery {
  productId: string;
  keyword?: string;
  variantId?: string;
}
export interface SkuDetailPageQuery {
  pageNum?: number;
  pageSize?: number;
  sku?: string;
  productId?: string;
  keyword?: string;
  orderCode?: string;
  storageIds?: string[];
  availableStock?: boolean;
  pack?: boolean;
  serviceProd?: boolean;
  pod?: boolean;
  skuList?: string[];
}
export interface SkuBatchQuery {
  sku: string;
  keyword?: string;
  orderCode?: string;
  storageIds?: string[];
  availableStock?: boolean;
}
export interface SkuFlowQuery {
  pageNum?: number;
  pageSize?: number;
  sku?: string;
  orderCode?: string;
  eventOrderCode?: string;
  storageId?: string;
  unitPrice?: number;
  recordId?: string;
  clientVisible?: 0 | 1;
}

const paging: ObjectSpec = { pageNum: { type: "int", min: 1 }, pageSize: { type: "int", min: 1 } };

const SPECS = {
  querySpuPage: {
    ...paging,
    keyword: { type: "string", max: 200 },
    productId: { type: "string", max: 200 },
    sku: { type: "string", max: 200 },
    sortField: { type: "string", max: 100 },
    sortType: { type: "string", max: 10 },
  },
  querySkuListByProductId: {
    productId: { type: "string", required: true, max: 200 },
    keyword: { type: "string", max: 200 },
    variantId: { type: "string", max: 200 },
  },
  querySkuDetailPage: {
    ...paging,
    storageIds: { type: "stringArray" },
    skuList: { type: "stringArray" },
  },
  querySkuDetailListBySku: {
    sku: { type: "string", required: true, max: 200 },
    storageIds: { type: "stringArray" },
  },
  querySkuFlowByCondition: {
    ...paging,
    storageId: { type: "string", max: 100 },
    unitPrice: { type: "int" },
    clientVisible: { type: "int" },
  },
} satisfies Record<string, ObjectSpec>;

export class InventoryResource {
  constructor(private readonly t: Transport) {}

  async querySpuPage(q: SpuPageQuery = {}): Promise<Page<SpuRecord>> {
    validateRequest("querySpuPage", SPECS.querySpuPage, q);
    return this.t.call(
      STORAGE_OPS.querySpuPage,
      { body: compact({ ...q }) },
      page(spuRecordSchema),
    );
  }
  async querySkuListByProductId(q: SkuListQuery): Promise<SkuRecord[]> {
    validateRequest("querySkuListByProductId", SPECS.querySkuListByProductId, q);
    return this.t.call(
      STORAGE_OPS.querySkuListByProductId,
      { body: compact({ ...q }) },
      arr(skuRecordSchema),
    );
  }
  async querySkuDetailPage(q: SkuDetailPageQuery = {}): Promise<Page<SkuDetailRecord>> {
    validateRequest("querySkuDetailPage", SPECS.querySkuDetailPage, q);
    return this.t.call(
      STORAGE_OPS.querySkuDetailPage,
      { body: compact({ ...q }) },
      page(skuDetailRecordSchema),
    );
  }
  async querySkuDetailListBySku(q: SkuBatchQuery): Promise<BatchRecord[]> {
    validateRequest("querySkuDetailListBySku", SPECS.querySkuDetailListBySku, q);
    return this.t.call(
      STORAGE_OPS.querySkuDetailListBySku,
      { body: compact({ ...q }) },
      arr(batchRecordSchema),
    );
  }
  async querySkuFlowByCondition(q: SkuFlowQuery = {}): Promise<Page<FlowRecord>> {
    validateRequest("querySkuFlowByCondition", SPECS.querySkuFlowByCondition, q);
    return this.t.call(
      STORAGE_OPS.querySkuFlowByCondition,
      { body: compact({ ...q }) },
      page(flowRecordSchema),
    );
  }
}

export class WarehouseResource {
  constructor(private readonly t: Transport) {}

  async detail(id: string): Promise<Storage> {
    validateRequest(
      "warehouse/detail",
      { id: { type: "string", required: true, max: 200 } },
      { id },
    );
    return this.t.call(STORAGE_OPS.warehouseDetail, { query: { id } }, storageSchema);
  }

  /** Photos of orders being processed in a warehouse (syncStorehouseVideoRequests). */
  async orderPhotos(orderIdList: string[]): Promise<PhotoRecord[]> {
    validateRequest(
      "syncStorehouseVideoRequests",
      { orderIdList: { type: "stringArray", required: true, minItems: 1 } },
      { orderIdList },
    );
    return this.t.call(
      STORAGE_OPS.syncStorehouseVideoRequests,
      { body: { orderIdList } },
      arr(photoRecordSchema),
    );
  }
}

export interface WebhookSection {
  type: "ENABLE" | "CANCEL";
  callbackUrls: string[];
}
export interface WebhookSettings {
  product?: WebhookSection;
  stock?: WebhookSection;
  order?: WebhookSection;
  logistics?: WebhookSection;
}

const sectionSpec: ObjectSpec = {
  type: { type: "string", required: true },
  callbackUrls: { type: "stringArray", maxItems: 1 },
};

export class WebhooksResource {
  constructor(private readonly t: Transport) {}

  /** webhook/set. One callback address per section (Part 1 §2.6). */
  async set(settings: WebhookSettings): Promise<boolean> {
    validateRequest(
      "webhook/set",
      {
        product: { type: "object", item: sectionSpec },
        stock: { type: "object", item: sectionSpec },
        order: { type: "object", item: sectionSpec },
        logistics: { type: "object", item: sectionSpec },
      },
      settings,
    );
    for (const [name, s] of Object.entries(settings) as Array<
      [string, WebhookSection | undefined]
    >) {
      if (s && s.type === "ENABLE" && s.callbackUrls.length !== 1) {
        validateRequest(
          "webhook/set",
          { [`${name}.callbackUrls`]: { type: "string", required: true } },
          {},
        );
      }
    }
    return this.t.call(
      STORAGE_OPS.webhookSet,
      { body: compact({ ...settings }) },
      bool.transform((v) => v !== false),
    );
  }
}
