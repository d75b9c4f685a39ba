/**
 * The catalog's shapes as the contract gives them (part 2): category tree, product lists (V1,
 * V2), product detail, variants, warehouses, videos and connections. The resource that reads them
 * is catalog.server.ts.
 */
import { z } from "zod";
import { arr, bool, money, num, obj, str, timestamp } from "./schema-kit";

export const categoryTreeSchema = arr(
  obj({
    categoryFirstName: str,
    categoryFirstList: arr(
      obj({
        categorySecondName: str,
        categorySecondList: arr(obj({ categoryId: str, categoryName: str })),
      }),
    ),
  }),
);
export type CategoryTree = z.output<typeof categoryTreeSchema>;

export const productSummaryV2Schema = obj({
  id: str,
  nameEn: str,
  sku: str,
  spu: str,
  bigImage: str,
  sellPrice: str,
  nowPrice: str,
  discountPrice: str,
  discountPriceRate: str,
  listedNum: num,
  isCollect: num,
  categoryId: str,
  twoCategoryId: str,
  oneCategoryId: str,
  addMarkStatus: num,
  isVideo: num,
  videoList: z.array(z.unknown()).nullish(),
  productType: str,
  supplierName: str,
  createAt: timestamp,
  setRecommendedTime: timestamp,
  warehouseInventoryNum: num,
  verifiedWarehouse: num,
  myProduct: bool,
  description: str,
  saleStatus: str,
  variantKeyEn: str,
});
export type ProductSummaryV2 = z.output<typeof productSummaryV2Schema>;
export const listV2GroupSchema = obj({
  productList: arr(productSummaryV2Schema),
  relatedCategoryList: arr(obj({ categoryId: str, categoryName: str })),
  keyWord: str,
  keyWordOld: str,
});
export type ListV2Group = z.output<typeof listV2GroupSchema>;

export const productSummaryV1Schema = obj({
  pid: str,
  productName: str,
  productNameEn: str,
  productSku: str,
  productImage: str,
  productWeight: num,
  productType: str,
  productUnit: str,
  isVideo: str,
  saleStatus: num,
  listedNum: num,
  supplierName: str,
  supplierId: str,
  categoryId: str,
  categoryName: str,
  remark: str,
  addMarkStatus: num,
  isFreeShipping: bool,
  sellPrice: money,
  createTime: str,
  customizationVersion: num,
});
export type ProductSummaryV1 = z.output<typeof productSummaryV1Schema>;

export const variantSchema = obj({
  vid: str,
  pid: str,
  variantName: str,
  variantNameEn: str,
  variantSku: str,
  variantImage: str,
  variantStandard: str,
  variantUnit: str,
  variantKey: str,
  variantLength: num,
  variantWidth: num,
  variantHeight: num,
  variantVolume: num,
  variantWeight: num,
  variantSellPrice: money,
  variantSugSellPrice: money,
  createTime: str,
  combineVariants: z.array(z.unknown()).nullish(),
  combineNum: num,
  inventories: arr(
    obj({
      countryCode: str,
      totalInventory: num,
      svcInventory: num,
      factoryInventory: num,
      verifiedWarehouse: num,
      stock: arr(obj({ stockId: str, inventory: num, factoryInventory: num })),
    }),
  ),
});
export type Variant = z.output<typeof variantSchema>;

export const productDetailSchema = obj({
  pid: str,
  productName: str,
  productNameEn: str,
  productSku: str,
  bigImage: str,
  productImage: str,
  productImageSet: arr(z.string()),
  productWeight: num,
  packingWeight: num,
  productUnit: str,
  productType: str,
  categoryId: str,
  categoryName: str,
  /** The sales attributes' names joined with '-' ("Color-Size"), as variantKey joins values. */
  productKeyEn: str,
  sellPrice: money,
  suggestSellPrice: str,
  listedNum: num,
  productVideo: arr(z.string()),
  status: str,
  supplierName: str,
  supplierId: str,
  description: str,
  addMarkStatus: num,
  createTime: str,
  customizationVersion: num,
  variants: arr(variantSchema),
});
export type ProductDetail = z.output<typeof productDetailSchema>;

export const globalWarehouseSchema = obj({
  areaCn: str,
  areaEn: str,
  areaId: num,
  countryCode: str,
  nameEn: str,
  valueEn: str,
  disabled: bool,
  id: str,
});
export type GlobalWarehouse = z.output<typeof globalWarehouseSchema>;

export const videoSchema = obj({
  id: str,
  videoId: str,
  locProductId: str,
  videoName: str,
  videoState: str,
  videoUrl: str,
  coverURL: str,
  isFree: str,
  duration: num,
  videoType: num,
  width: num,
  height: num,
});
export type Video = z.output<typeof videoSchema>;

export const connectionSchema = obj({
  shopId: str,
  platformProductId: str,
  platformVariantId: str,
  svcProductId: str,
  svcVariantId: str,
  defaultArea: num,
  logistics: str,
  sourceCountryCode: str,
  sourceCountry: str,
  targetCountryCode: str,
  targetCountry: str,
});
export type Connection = z.output<typeof connectionSchema>;
