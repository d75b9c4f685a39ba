/**
 * Part 3 §4 storage shapes as the contract gives them: warehouses (storages), SPU and SKU
 * records, batches, stock flows and photos. The resources that read them are in
 * storage.server.ts.
 */
import { z } from "zod";
import { arr, money, num, obj, str, timestamp } from "./schema-kit";

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
