/**
 * Part 3's logistics: the freight quote (freightCalculate, as the live service documents it:
 * DESIGN §8), the optional logistics query, the change of an order's shipping method
 * (updateLogistics) and the sandbox's tracking number.
 */
import { z } from "zod";
import { compareMoney, type Money } from "./decimal";
import { SvcValidationError } from "./errors";
import { defineOp } from "./ops";
import { trueish, updateLogisticsSchema } from "./order-shapes";
import { ORDER_OPS } from "./orders.server";
import { arr, money, num, obj, str } from "./schema-kit";
import type { Transport } from "./transport.server";
import { compact, validateRequest } from "./validate";

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
