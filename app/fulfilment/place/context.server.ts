/**
 * What the hold checks of placing read and fill in, in their order: the order and its shop's
 * settings first, then the account, the shop order as the shop has it now, its lines, the lines
 * sent, the shipping choice and the exchange rate. A check that stops the placing returns a
 * `Halt`; the runner (app/fulfilment/place/place.server.ts) writes it.
 */
import type { ShopOrder as OrderRow, ShopOrderLine as LineRow } from "@prisma/client";
import type { UsdRate } from "../../fx/rates.server";
import type { FulfilmentDeps } from "../../orders/deps.server";
import type { ReasonCode } from "../../orders/states";
import type { Recipient } from "../../repair/recipient";
import type { ShopSettings } from "../../settings.server";
import type { ShippingDecision } from "../../shipping/choose.server";
import type {
  ShopOrder as ShopifyOrder,
  ShopOrderLine as ShopifyLine,
} from "../../shop/gateway.server";
import type { PlaceResult } from "./outcome.server";

export interface PlaceCtx {
  deps: FulfilmentDeps;
  order: OrderRow;
  now: number;
  settings: ShopSettings;
  /** Has the merchant released the order (skip the review window and the risk hold)? */
  released: () => Promise<boolean>;
  account?: { id: string };
  /** The order as the shop had it when its delivery was read (placed in the same job). */
  prefetched?: ShopifyOrder;
  /** The order as the shop has it, and with the merchant's corrections (a repair) over it. */
  fetched?: ShopifyOrder;
  recipient?: Recipient;
  shopOrder?: ShopifyOrder;
  /** Shopify lines on no fulfilment order the app can see (another service fulfils them). */
  elsewhere?: ShopifyLine[];
  lines?: LineRow[];
  /** The lines that go to the service. */
  sent?: LineRow[];
  shipping?: Extract<ShippingDecision, { ok: true }>;
  currency?: string;
  fx?: UsdRate;
}

/** What stops a placing: a hold (written by the runner), or an end the check wrote itself. */
export type Halt =
  | {
      hold: ReasonCode;
      message: string;
      retryAt?: Date;
      extra?: { currency?: string };
    }
  | { done: PlaceResult };

export interface HoldCheck {
  name: string;
  check: (ctx: PlaceCtx) => Promise<Halt | null>;
}
