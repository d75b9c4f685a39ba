/**
 * Part 1 §4.6–4.9: warehouse detail, the five private-inventory queries and warehouse order
 * photos. Their shapes are in storage-shapes.ts; the webhook subscription in webhooks.server.ts.
 */
import { defineOp } from "./ops";
import {
  storageSchema,
  spuRecordSchema,
  skuRecordSchema,
  skuDetailRecordSchema,
  batchRecordSchema,
  flowRecordSchema,
  photoRecordSchema,
  type Storage,
  type SpuRecord,
  type SkuRecord,
  type SkuDetailRecord,
  type BatchRecord,
  type FlowRecord,
  type PhotoRecord,
  type SpuPageQuery,
  type SkuListQuery,
  type SkuDetailPageQuery,
  type SkuBatchQuery,
  type SkuFlowQuery,
} from "./storage-shapes";
import { arr, page, type Page } from "./schema-kit";
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
