/**
 * Part 3: order creation (V2, V3), cart, confirmation, parent order, batch order query, proof of
 * delivery, balance and payment. The request and reply shapes are in order-shapes.ts; the
 * freight quote, logistics change and sandbox tracking in logistics.server.ts.
 *
 * Not implemented because the contract does not show their path or shape: uploadWaybillInfo,
 * updateWaybillInfo, getOrderDetail (single), order list, logistic trackInfo, stock by product
 * id.
 *
 * Order creation, cart steps and payment are never retried blindly: after an unknown outcome,
 * `createOrderSafely` looks the order up by its orderNumber with getOrderDetailBatch before any
 * new create.
 */
import { SvcDuplicateOrderError, SvcError } from "./errors";
import { defineOp } from "./ops";
import {
  addCartConfirmSchema,
  addCartSchema,
  balanceSchema,
  nothing,
  orderCreationSchema,
  orderRecordSchema,
  parentOrderSchema,
  proofOfDeliverySchema,
  type Balance,
  type CreateOrderV2Request,
  validateOrder,
  type CreateOrderV3Request,
  type OrderCreation,
  type OrderRecord,
  type ParentOrder,
  type ProofOfDelivery,
} from "./order-shapes";
import { arr } from "./schema-kit";
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
