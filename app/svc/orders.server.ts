/**
 * Part 3: order creation (V2, V3), cart, confirmation, parent order, logistics change, sandbox
 * tracking, batch order query, proof of delivery, balance and payment.
 *
 * Not implemented because the contract does not show their path or shape: the optional
 * logistics query (§4.5), uploadWaybillInfo, updateWaybillInfo, getOrderDetail (single), order
 * list, logistic trackInfo, stock by product id. The freight quote (freightCalculate), "not shown"
 * in §4.0, follows the live service's documentation (DESIGN §8).
 *
 * Order creation, cart steps and payment are never retried blindly: after an unknown outcome,
 * `createOrderSafely` looks the order up by its orderNumber with getOrderDetailBatch before any
 * new create.
 */
import { z } from "zod";
import { compareMoney, type Money } from "./decimal";
import { SvcDuplicateOrderError, SvcError, SvcParamError, SvcValidationError } from "./errors";
import type { SvcOrderId } from "./ids";
import { defineOp } from "./ops";
import { arr, bool, money, num, obj, str, timestamp } from "./schema-kit";
import type { Transport } from "./transport.server";
import { compact, type ObjectSpec, validateRequest } from "./validate";

export const ORDER_OPS = {
  createOrderV2: defineOp("createOrderV2", "POST", "/shopping/order/createOrderV2", "never", {
    platformToken: true,
  }),
  createOrderV3: defineOp("createOrderV3", "POST", "/shopping/order/createOrderV3", "never", {
    platformToken: true,
  }),
  addCart: defineOp("addCart", "POST", "/shopping/order/addCart", "never"),
  // Its reply alone carries the shipmentsId (no query returns it): a late reply is worth a
  // minute's wait, a lost one leaves the orders for the merchant to pay in the service console.
  addCartConfirm: defineOp("addCartConfirm", "POST", "/shopping/order/addCartConfirm", "never", {
    minTimeoutMs: 60_000,
  }),
  saveGenerateParentOrder: defineOp(
    "saveGenerateParentOrder",
    "POST",
    "/shopping/order/saveGenerateParentOrder",
    "never",
  ),
  updateLogistics: defineOp("updateLogistics", "POST", "/shopping/order/updateLogistics", "never"),
  freightCalculate: defineOp("freightCalculate", "POST", "/logistic/freightCalculate", "safe"),
  updateTrackNumber: defineOp(
    "sandbox/updateTrackNumber",
    "POST",
    "/shopping/sandbox/updateTrackNumber",
    "safe",
  ),
  getOrderDetailBatch: defineOp(
    "getOrderDetailBatch",
    "POST",
    "/shopping/order/getOrderDetailBatch",
    "safe",
    {
      bucket: "query",
    },
  ),
  getProofOfDelivery: defineOp(
    "getProofOfDelivery",
    "POST",
    "/shopping/order/getProofOfDelivery",
    "safe",
    {
      bucket: "query",
    },
  ),
  getBalance: defineOp("getBalance", "GET", "/shopping/pay/getBalance", "safe"),
  payBalance: defineOp("payBalance", "POST", "/shopping/pay/payBalance", "never"),
  payBalanceV2: defineOp("payBalanceV2", "POST", "/shopping/pay/payBalanceV2", "never"),
} as const;

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

function validateOrder(
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

const trueish = bool.transform((v) => v !== false);
const nothing = z.unknown().transform(() => undefined);

export const ORDER_QUERY_MAX_IDS = 100;
export const ORDER_QUERY_DEFAULT_BATCH = 50;

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const idsSpec: ObjectSpec = {
  orderIds: {
    type: "stringArray",
    required: true,
    minItems: 1,
    maxItems: ORDER_QUERY_MAX_IDS,
    itemMax: 200,
  },
};

export class OrdersResource {
  constructor(private readonly t: Transport) {}

  async createOrderV2(req: CreateOrderV2Request): Promise<OrderCreation> {
    validateOrder("createOrderV2", "V2", req);
    return this.t.call(ORDER_OPS.createOrderV2, { body: compact({ ...req }) }, orderCreationSchema);
  }

  async createOrderV3(req: CreateOrderV3Request): Promise<OrderCreation> {
    validateOrder("createOrderV3", "V3", req);
    return this.t.call(ORDER_OPS.createOrderV3, { body: compact({ ...req }) }, orderCreationSchema);
  }

  async addCart(svcOrderIdList: string[]) {
    validateRequest(
      "addCart",
      { svcOrderIdList: { type: "stringArray", required: true, minItems: 1 } },
      { svcOrderIdList },
    );
    return this.t.call(ORDER_OPS.addCart, { body: { svcOrderIdList } }, addCartSchema);
  }

  async addCartConfirm(svcOrderIdList: string[]) {
    validateRequest(
      "addCartConfirm",
      { svcOrderIdList: { type: "stringArray", required: true, minItems: 1 } },
      { svcOrderIdList },
    );
    return this.t.call(
      ORDER_OPS.addCartConfirm,
      { body: { svcOrderIdList } },
      addCartConfirmSchema,
    );
  }

  async saveGenerateParentOrder(shipmentOrderId: string): Promise<ParentOrder> {
    validateRequest(
      "saveGenerateParentOrder",
      { shipmentOrderId: { type: "string", required: true, max: 200 } },
      { shipmentOrderId },
    );
    return this.t.call(
      ORDER_OPS.saveGenerateParentOrder,
      { body: { shipmentOrderId } },
      parentOrderSchema,
    );
  }

  /** One call: at most 100 ids (checked before sending). */
  async getOrderDetailBatch(orderIds: string[]): Promise<OrderRecord[]> {
    validateRequest("getOrderDetailBatch", idsSpec, { orderIds });
    return this.t.call(
      ORDER_OPS.getOrderDetailBatch,
      { body: { orderIds } },
      arr(orderRecordSchema),
    );
  }

  /** Any number of ids, in batches (default 50), each call inside the account's query limit. */
  async getOrdersDetail(
    orderIds: string[],
    batchSize = ORDER_QUERY_DEFAULT_BATCH,
  ): Promise<OrderRecord[]> {
    const size = Math.min(Math.max(1, batchSize), ORDER_QUERY_MAX_IDS);
    const out: OrderRecord[] = [];
    for (const ids of chunk([...new Set(orderIds)], size))
      out.push(...(await this.getOrderDetailBatch(ids)));
    return out;
  }

  async getProofOfDelivery(orderIds: string[]): Promise<ProofOfDelivery[]> {
    validateRequest("getProofOfDelivery", idsSpec, { orderIds });
    return this.t.call(
      ORDER_OPS.getProofOfDelivery,
      { body: { orderIds } },
      arr(proofOfDeliverySchema),
    );
  }

  async getProofsOfDelivery(
    orderIds: string[],
    batchSize = ORDER_QUERY_DEFAULT_BATCH,
  ): Promise<ProofOfDelivery[]> {
    const size = Math.min(Math.max(1, batchSize), ORDER_QUERY_MAX_IDS);
    const out: ProofOfDelivery[] = [];
    for (const ids of chunk([...new Set(orderIds)], size))
      out.push(...(await this.getProofOfDelivery(ids)));
    return out;
  }

  /** The order with this merchant orderNumber (or id), if the service knows it. */
  async findOrder(orderNumberOrId: string): Promise<OrderRecord | undefined> {
    const records = await this.getOrderDetailBatch([orderNumberOrId]);
    return (
      records.find(
        (r) =>
          r.orderNum === orderNumberOrId ||
          r.orderNumber === orderNumberOrId ||
          r.orderId === orderNumberOrId ||
          r.svcOrderId === orderNumberOrId ||
          r.svcOrderCode === orderNumberOrId ||
          r.productList.some((l) => l.orderNumber === orderNumberOrId),
      ) ?? (records.length === 1 ? records[0] : undefined)
    );
  }

  /**
   * Creates an order without ever creating it twice: on an unknown outcome (timeout, network
   * failure after sending, 5xx, busy) or a duplicate-order reply, the order is looked up by its
   * orderNumber with getOrderDetailBatch; a new create happens only when the lookup (which is
   * retried on its own) says it does not exist, and at most `maxCreates` times in all.
   */
  async createOrderSafely(
    req: CreateOrderV3Request | (CreateOrderV2Request & { version: "V2" }),
    opts: { maxCreates?: number } = {},
  ): Promise<{ created: boolean; creation?: OrderCreation; existing?: OrderRecord }> {
    const maxCreates = opts.maxCreates ?? 2;
    for (let creates = 1; ; creates++) {
      try {
        const creation =
          "version" in req && req.version === "V2"
            ? await this.createOrderV2(stripVersion(req))
            : await this.createOrderV3(req as CreateOrderV3Request);
        return { created: true, creation };
      } catch (error) {
        const unknown = error instanceof SvcError && error.outcomeUnknown;
        if (!unknown && !(error instanceof SvcDuplicateOrderError)) throw error;
        const existing = await this.findOrder(req.orderNumber);
        if (existing) return { created: false, existing };
        if (error instanceof SvcDuplicateOrderError || creates >= maxCreates) throw error;
      }
    }
  }
}

function stripVersion<T extends { version?: unknown }>(r: T): Omit<T, "version"> {
  const { version: _v, ...rest } = r;
  return rest;
}

export const freightQuoteSchema = arr(
  obj({ logisticName: str, logisticPrice: money, logisticPriceCn: money, logisticAging: str }),
);

export interface FreightQuoteRequest {
  startCountryCode: string;
  endCountryCode: string;
  zip?: string;
  taxId?: string;
  houseNumber?: string;
  iossNumber?: string;
  products: Array<{ vid: string; quantity: number }>;
}

/** One shipping method offered by a quote; price in USD, transit days as given ("2-5"). */
export interface FreightOption {
  logisticName: string;
  priceUsd: Money;
  minDays: number | null;
  maxDays: number | null;
}

/** "2-5" → 2, 5; "7" → 7, 7; anything else → nulls (a method with unknown transit time). */
export function parseAging(aging: string | null | undefined): {
  min: number | null;
  max: number | null;
} {
  const m = /^\s*(\d{1,3})\s*(?:[-~]\s*(\d{1,3}))?\s*$/.exec(aging ?? "");
  if (!m) return { min: null, max: null };
  const a = Number(m[1]);
  const b = m[2] === undefined ? a : Number(m[2]);
  return { min: Math.min(a, b), max: Math.max(a, b) };
}

/** §2.3: one selectable logistics method of a service order (ids hold for that order only). */
export const optionalLogisticsSchema = arr(
  obj({
    id: num,
    orderCode: str,
    logisticsName: str,
    logisticsNameAlias: str,
    postage: money,
    postageDiscountPrice: money,
    basePostage: money,
    remoteAmount: money,
    packPrice: money,
  }),
);
export type OptionalLogistics = z.output<typeof optionalLogisticsSchema>[number];

/**
 * The optional logistics query's path (§4.5 does not show it; the order id goes as
 * `svcOrderId`): SVC_LOGISTICS_OPTIONS_PATH, under /api2.0/v1.
 */
export const DEFAULT_OPTIONAL_LOGISTICS_PATH = "/shopping/order/getOptionalLogistics";

export interface UpdateLogisticsRequest {
  id: number | string;
  orderCode: string;
  logisticsName?: string;
  from?: 0 | 1 | 2;
}

export class LogisticsResource {
  constructor(
    private readonly t: Transport,
    private readonly optionalLogisticsPath = DEFAULT_OPTIONAL_LOGISTICS_PATH,
  ) {}

  /** §4.5: the methods the order can change to, each with the id updateLogistics takes. */
  async optionalLogistics(svcOrderId: string): Promise<OptionalLogistics[]> {
    validateRequest(
      "optionalLogistics",
      { svcOrderId: { type: "string", required: true, max: 200 } },
      { svcOrderId },
    );
    const op = defineOp("optionalLogistics", "POST", this.optionalLogisticsPath, "safe");
    const rows = await this.t.call(op, { body: { svcOrderId } }, optionalLogisticsSchema);
    return rows.filter((r) => r.id != null && r.logisticsName);
  }

  /** Changes the logistics of an order at or before add-to-cart (8002 otherwise). */
  async updateLogistics(req: UpdateLogisticsRequest) {
    validateRequest(
      "updateLogistics",
      {
        id: { type: "int", required: true, max: 20 },
        orderCode: { type: "string", required: true, max: 200 },
        logisticsName: { type: "string", max: 200 },
        from: { type: "int", max: 1 },
      },
      req,
    );
    return this.t.call(
      ORDER_OPS.updateLogistics,
      { body: compact({ ...req }) },
      updateLogisticsSchema,
    );
  }

  /**
   * The methods offered from one country to another for these variants, cheapest first. Entries
   * without a name or a price are dropped (parsed tolerantly: DESIGN §8).
   */
  async freightCalculate(req: FreightQuoteRequest): Promise<FreightOption[]> {
    const body = compact({ ...req });
    validateRequest(
      "freightCalculate",
      {
        startCountryCode: { type: "string", required: true, max: 2 },
        endCountryCode: { type: "string", required: true, max: 2 },
        zip: { type: "string", max: 20 },
        taxId: { type: "string", max: 20 },
        houseNumber: { type: "string", max: 20 },
        iossNumber: { type: "string", max: 10 },
      },
      body,
    );
    if (req.products.length === 0 || req.products.some((p) => !p.vid || !(p.quantity >= 1))) {
      throw new SvcValidationError(
        "freightCalculate",
        "products",
        "must list at least one variant with a quantity of 1 or more",
      );
    }
    const rows = await this.t.call(ORDER_OPS.freightCalculate, { body }, freightQuoteSchema);
    const out: FreightOption[] = [];
    for (const r of rows) {
      if (!r.logisticName || r.logisticPrice == null) continue;
      const { min, max } = parseAging(r.logisticAging);
      out.push({
        logisticName: r.logisticName,
        priceUsd: r.logisticPrice,
        minDays: min,
        maxDays: max,
      });
    }
    return out.sort((a, b) => compareMoney(a.priceUsd, b.priceUsd));
  }

  /** Sandbox only: sets the tracking number of a paid sandbox order (repeatable, last wins). */
  async updateSandboxTrackNumber(orderId: string, trackNumber: string): Promise<boolean> {
    validateRequest(
      "sandbox/updateTrackNumber",
      {
        orderId: { type: "string", required: true, max: 200 },
        trackNumber: { type: "string", required: true, max: 64 },
      },
      { orderId, trackNumber },
    );
    return this.t.call(ORDER_OPS.updateTrackNumber, { body: { orderId, trackNumber } }, trueish);
  }
}

export class PaymentResource {
  constructor(private readonly t: Transport) {}

  async getBalance(): Promise<Balance> {
    const b = await this.t.call(ORDER_OPS.getBalance, {}, balanceSchema);
    if (b.amount == null)
      throw new SvcError({ operation: "getBalance", message: "balance without amount" });
    return {
      amount: b.amount,
      noWithdrawalAmount: b.noWithdrawalAmount ?? null,
      freezeAmount: b.freezeAmount ?? null,
    };
  }

  /** Pays one order from the balance. Never retried: check the order's state before paying again. */
  async payBalance(orderId: string): Promise<void> {
    validateRequest(
      "payBalance",
      { orderId: { type: "string", required: true, max: 200 } },
      { orderId },
    );
    return this.t.call(ORDER_OPS.payBalance, { body: { orderId } }, nothing);
  }

  /** Pays a parent order from the balance. Never retried. */
  async payBalanceV2(shipmentOrderId: string, payId?: string): Promise<void> {
    const body = compact({ shipmentOrderId, payId });
    validateRequest(
      "payBalanceV2",
      {
        shipmentOrderId: { type: "string", required: true, max: 200 },
        payId: { type: "string", max: 200 },
      },
      body,
    );
    return this.t.call(ORDER_OPS.payBalanceV2, { body }, nothing);
  }
}
