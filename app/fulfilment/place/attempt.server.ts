/**
 * One attempt to create the order at the service with one shipping choice: the call (a number
 * the service already has is found, not created twice), then what its refusal means (the next
 * choice, a failure the merchant mends, or a retry of the job), or the created order recorded
 * (app/fulfilment/place/created.server.ts).
 */
import type { ShopOrder as OrderRow } from "@prisma/client";
import { routeLines } from "../../catalog/suppliers.server";
import { DEFAULT_CONNECTION_LOGISTICS } from "../../orders/product-links.server";
import type { FulfilmentDeps } from "../../orders/deps.server";
import { addTimeline, errorFields } from "../../orders/timeline.server";
import type { ShopSettings } from "../../settings.server";
import type { Choice } from "../../shipping/choose.server";
import {
  SvcAuthError,
  SvcDuplicateOrderError,
  SvcLogisticsError,
  SvcNotFoundError,
  SvcParamError,
  SvcPaymentError,
  SvcQuotaError,
  SvcTokenCooldownError,
} from "../../svc/errors";
import type { CreateOrderV3Request, OrderCreation, OrderRecord } from "../../svc/order-shapes";
import { type Created, recordCreated } from "./created.server";
import { fail, type PlaceResult } from "./outcome.server";

type Order = OrderRow & { svcAccountId: string };
type Shipping = { choice: Choice; last: boolean };
type Client = Awaited<ReturnType<FulfilmentDeps["svcFor"]>>;
export type Attempt = PlaceResult | { outcome: "logistics_refused" };

export async function createAtService(
  deps: FulfilmentDeps,
  order: Order,
  request: CreateOrderV3Request,
  settings: ShopSettings,
  shipping: Shipping,
): Promise<Attempt> {
  const client = await deps.svcFor(order.svcAccountId);
  let created: Created;
  try {
    created = await callService(deps, client, order, request, settings);
  } catch (error) {
    const refused = await refusal(deps, order, error, shipping);
    if (typeof refused !== "string") return refused;
    created = { svcOrderId: null, amount: null, shipmentOrderId: null, note: refused };
  }
  return recordCreated(deps, order, settings, shipping, created);
}

/** The call; a number the service already has is found by the client, not created twice. */
async function callService(
  deps: FulfilmentDeps,
  client: Client,
  order: Order,
  request: CreateOrderV3Request,
  settings: ShopSettings,
): Promise<Created> {
  // Lines sent to a backup supplier: the service's connection points there first.
  await routeLines(
    deps.prisma,
    client,
    order.shopDomain,
    order.id,
    settings.logisticName || DEFAULT_CONNECTION_LOGISTICS,
    settings.fromCountryCode,
  );
  const result = await client.orders.createOrderSafely(request);
  // Not created: the client found it by its number (it never answers with neither).
  return result.creation ? fromCreation(result.creation) : fromExisting(result.existing!);
}

/**
 * A created order as the service answered: its id, amount and parent shipment; without an id
 * (store-flow lines not connected yet), the service's reasons as the note.
 */
export function fromCreation(creation: OrderCreation): Created {
  const svcOrderId = creation.orderId ?? null;
  return {
    svcOrderId,
    amount: creation.orderAmount ?? null,
    shipmentOrderId: creation.shipmentOrderId ?? null,
    note: svcOrderId
      ? ""
      : (creation.interceptOrderReasons ?? [])
          .map((r) => r.message)
          .filter(Boolean)
          .join("; "),
  };
}

/** An order found by its number after an unknown outcome (no second create). */
export function fromExisting(existing: OrderRecord): Created {
  return {
    svcOrderId: existing.orderId ?? existing.svcOrderId ?? null,
    amount: existing.orderAmount ?? null,
    shipmentOrderId: null,
    note: "found by its number after an unknown outcome",
  };
}

/**
 * What a refused create means: the next shipping choice (`logistics_refused`), a failure the
 * merchant mends, the note of an order that exists but waits for its connections (a string), or
 * a retry of the job (rethrown).
 */
async function refusal(
  deps: FulfilmentDeps,
  order: Order,
  error: unknown,
  shipping: Shipping,
): Promise<Attempt | string> {
  const db = deps.prisma;
  if (error instanceof SvcLogisticsError && !shipping.last) {
    const f = errorFields(error);
    await addTimeline(db, order.id, {
      step: "create",
      outcome: "error",
      errorCode: f.errorCode,
      requestId: f.requestId,
      message: `The service refused the shipping method ${shipping.choice.logisticName} (${f.message}): the next choice is tried.`,
    });
    return { outcome: "logistics_refused" };
  }
  if (error instanceof SvcDuplicateOrderError) {
    // The number exists but no lookup finds it: a store-flow order waiting for connections.
    return "exists at the service and waits for its products to be connected";
  }
  if (
    error instanceof SvcParamError ||
    error instanceof SvcNotFoundError ||
    error instanceof SvcPaymentError ||
    error instanceof SvcQuotaError
  ) {
    await fail(
      db,
      order.id,
      "create_failed",
      "The service refused the order. Correct the cause, then Retry.",
      error,
    );
    return { outcome: "failed", reason: "create_failed" };
  }
  if (error instanceof SvcAuthError && !(error instanceof SvcTokenCooldownError)) {
    // (A token asked for less than 5 minutes ago is not the merchant's to mend: the job waits
    // for it, below.)
    await fail(
      db,
      order.id,
      "create_failed",
      "The service refused the account's credentials: reconnect the account in Settings, then Retry.",
      error,
    );
    return { outcome: "failed", reason: "create_failed" };
  }
  const f = errorFields(error);
  await addTimeline(db, order.id, {
    step: "create",
    outcome: "error",
    errorCode: f.errorCode,
    requestId: f.requestId,
    message: `Will try again: ${f.message}`,
  });
  throw error;
}
