/**
 * The shapes of part 3 (orders, cart, payment, logistics) as the contract gives them: what a
 * request must hold (checked before it is sent) and what each reply is parsed into. The
 * resources that send them are orders.server.ts, logistics.server.ts and the payment resource.
 */
import { z } from "zod";
import type { Money } from "./decimal";
import { arr, bool, money, num, obj, str, timestamp } from "./schema-kit";
import { SvcParamError } from "./errors";
import type { SvcOrderId } from "./ids";
import { type ObjectSpec, validateRequest } from "./validate";

// ---------------------------------------------------------------------------------------------
// Requests

export interface OrderLine {
  vid?: string;
  sku?: string;
  storeProductId?: string;
  storeProductImg?: string;
  storeProductName?: string;
  storeSku?: string;
  variantOptions?: string;
  quantity: number;
  unitPrice?: string | number;
  storeLineItemId?: string;
  podProperties?: string;
}

export interface CreateOrderRequest {
  orderNumber: string;
  shippingZip?: string;
  shippingCountryCode: string;
  shippingCountry: string;
  /** The contract's table marks it required; left out when the address has none (see orderSpec). */
  shippingProvince?: string;
  shippingCity: string;
  shippingCounty?: string;
  shippingPhone?: string;
  shippingCustomerName: string;
  shippingAddress: string;
  shippingAddress2?: string;
  houseNumber?: string;
  email?: string;
  taxId?: string;
  remark?: string;
  consigneeID?: string;
  isSandbox?: 0 | 1;
  shopAmount?: string | number;
  logisticName: string;
  fromCountryCode: string;
  platform?: string;
  shopLogisticsType?: 1 | 2 | 3;
  storageId?: string;
  iossType?: 1 | 2 | 3;
  iossNumber?: string;
  storeName?: string;
  storeOrderTime?: number;
  products: OrderLine[];
}
export interface CreateOrderV2Request extends CreateOrderRequest {
  payType?: 1 | 2 | 3;
}
export interface CreateOrderV3Request extends CreateOrderRequest {
  orderFlow?: 1 | 2;
}

function orderSpec(version: "V2" | "V3"): ObjectSpec {
  return {
    orderNumber: { type: "string", required: true, max: 50 },
    shippingZip: { type: "string", max: 20 },
    shippingCountryCode: { type: "string", required: true, max: 20 },
    shippingCountry: { type: "string", required: true, max: 50 },
    // The table marks it required; addresses of countries without provinces have none, and the
    // app sends none rather than a made-up one (app/shipping/destinations.ts lists the
    // countries that need one; the app holds those orders instead).
    shippingProvince: { type: "string", max: 50 },
    shippingCity: { type: "string", required: true, max: 50 },
    shippingCounty: { type: "string", max: 50 },
    shippingPhone: { type: "string", max: 20 },
    shippingCustomerName: { type: "string", required: true, max: 50 },
    shippingAddress: { type: "string", required: true, max: 500 },
    shippingAddress2: { type: "string", max: 500 },
    houseNumber: { type: "string", max: 20 },
    email: { type: "string", max: 50 },
    taxId: { type: "string", max: 20 },
    remark: { type: "string", max: 500 },
    consigneeID: { type: "string", max: 20 },
    payType: { type: "int", max: 10 },
    isSandbox: { type: "int", max: 1 },
    shopAmount: { type: "decimal", max: 20 },
    logisticName: { type: "string", required: true, max: 50 },
    fromCountryCode: { type: "string", required: true, max: 20 },
    platform: { type: "string", max: 20 },
    shopLogisticsType: { type: "int", max: 20 },
    storageId: { type: "string", max: 40 },
    iossType: { type: "int", max: 20 },
    iossNumber: { type: "string", max: 10 },
    storeName: { type: "string", max: 50 },
    storeOrderTime: { type: "int", max: 20 },
    orderFlow: { type: "int", max: 10 },
    products: {
      type: "array",
      required: true,
      minItems: 1,
      item: {
        vid: { type: "string", max: 50 },
        sku: { type: "string", max: 50 },
        storeProductId: { type: "string", max: 64 },
        storeProductImg: { type: "string", max: 500 },
        storeProductName: { type: "string", max: version === "V2" ? 200 : 500 },
        storeSku: { type: "string", max: 60 },
        variantOptions: { type: "string", max: version === "V2" ? 100 : 200 },
        quantity: { type: "int", required: true, min: 1, max: 50 },
        unitPrice: { type: "decimal", max: 20 },
        storeLineItemId: { type: "string", max: 125 },
        podProperties: { type: "string", max: 500 },
      },
    },
  };
}

export function validateOrder(
  op: string,
  version: "V2" | "V3",
  req: CreateOrderRequest & { orderFlow?: number },
) {
  validateRequest(op, orderSpec(version), req);
  req.products.forEach((line, i) => {
    if (!line.vid && !line.sku) {
      validateRequest(op, { [`products[${i}].vid|sku`]: { type: "string", required: true } }, {});
    }
  });
  if (version === "V2" && req.orderFlow === 2) {
    throw new SvcParamError({ operation: op, message: "orderFlow=2 requires createOrderV3" });
  }
}

// ---------------------------------------------------------------------------------------------
// Responses

const productInfoLine = obj({
  storeLineItemId: str,
  lineItemId: str,
  variantId: str,
  quantity: num,
  isGroup: bool,
  subOrderProducts: arr(obj({ lineItemId: str, variantId: str, quantity: num })),
});

export const orderCreationSchema = obj({
  orderId: str,
  orderNumber: str,
  shipmentOrderId: str,
  iossAmount: money,
  iossTaxHandlingFee: money,
  postageAmount: money,
  postageOriginalAmount: money,
  postageDiscountAmount: money,
  productAmount: money,
  productOriginalAmount: money,
  productDiscountAmount: money,
  totalDiscountAmount: money,
  actualPayment: money,
  orderOriginalAmount: money,
  orderAmount: money,
  svcPayUrl: str,
  logisticsMiss: bool,
  orderStatus: str,
  productInfoList: arr(productInfoLine),
  interceptOrderReasons: arr(obj({ code: num, message: str })),
}).transform((o) => ({ ...o, orderId: (o.orderId ?? undefined) as SvcOrderId | undefined }));
export type OrderCreation = z.output<typeof orderCreationSchema>;

export const addCartSchema = obj({
  successCount: num,
  addSuccessOrders: arr(z.union([z.string(), z.number()]).transform(String)),
  unInterceptAddressCount: num,
  interceptOrders: arr(z.unknown()),
});
export const addCartConfirmSchema = obj({
  successCount: num,
  submitSuccess: bool,
  shipmentsId: str,
  result: num,
  interceptOrders: arr(z.unknown()),
});
/** The parent order: only `orderMoney` is named by the contract; the rest is read tolerantly. */
export const parentOrderSchema = obj({
  orderMoney: money,
  shipmentOrderId: str,
  parentOrderId: str,
  parentOrderNumber: str,
  payId: str,
  payAmount: money,
  amount: money,
});
export type ParentOrder = z.output<typeof parentOrderSchema>;

export const orderRecordSchema = obj({
  orderId: str,
  orderNum: str,
  orderNumber: str,
  platformOrderId: str,
  svcOrderId: str,
  svcOrderCode: str,
  fromCountryCode: str,
  shippingCountryCode: str,
  shippingProvince: str,
  shippingCity: str,
  shippingAddress: str,
  shippingCustomerName: str,
  shippingPhone: str,
  remark: str,
  logisticName: str,
  trackNumber: str,
  trackingProvider: str,
  trackingUrl: str,
  disputeId: str,
  disputeOpenedId: str,
  orderWeight: num,
  orderAmount: money,
  productAmount: money,
  postageAmount: money,
  orderStatus: str,
  subStatus: str,
  createDate: timestamp,
  paymentDate: timestamp,
  outWarehouseTime: timestamp,
  storeCreateDate: timestamp,
  isComplete: num,
  isSandbox: num,
  storageId: str,
  storageName: str,
  privateOutboundOrder: bool,
  shopId: str,
  shopName: str,
  logisticsTimeliness: z.unknown().optional(),
  productList: arr(
    obj({
      vid: str,
      quantity: num,
      sellPrice: money,
      storeLineItemId: str,
      lineItemId: str,
      orderNumber: str,
      productionOrderStatus: num,
      abnormalType: arr(num),
      podPropertiesInfo: z.unknown().optional(),
    }),
  ),
});
export type OrderRecord = z.output<typeof orderRecordSchema>;

export const proofOfDeliverySchema = obj({ orderId: str, proofOfDeliveryList: arr(z.string()) });
export type ProofOfDelivery = z.output<typeof proofOfDeliverySchema>;

export const balanceSchema = obj({ amount: money, noWithdrawalAmount: money, freezeAmount: money });
export interface Balance {
  amount: Money;
  noWithdrawalAmount: Money | null;
  freezeAmount: Money | null;
}

export const updateLogisticsSchema = obj({
  orderCompletedOutputVo: z.unknown().optional(),
  shoppingCartOrderVo: z.unknown().optional(),
  abnormalReason: z.unknown().optional(),
  interceptAbnormalReasons: arr(z.unknown()),
  unInterceptAbnormalReasons: arr(z.unknown()),
})
  .nullish()
  .transform((v) => v ?? { interceptAbnormalReasons: [], unInterceptAbnormalReasons: [] });

/** A reply that is `true` unless it says `false`; a reply with no data. */
export const trueish = bool.transform((v) => v !== false);
export const nothing = z.unknown().transform(() => undefined);
