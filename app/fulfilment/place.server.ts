/**
 * Placing orders: a shop order webhook becomes a ShopOrder row (RECEIVED) and a place job; the
 * job checks the holds (paused, no account, settings, review window, fraud risk, shipping data,
 * unconnected lines), then creates the store-flow V3 order at the service. Each step's result is
 * persisted before the next; the service orderNumber is stable, so a retry after an unknown
 * outcome finds the order instead of creating it twice.
 */
import type { ShopOrder as OrderRow, ShopOrderLine as LineRow } from "@prisma/client";
import { costGuardReason } from "../orders/cost-guard";
import { z } from "zod";
import { orderFacts } from "../orders/facts";
import type { Db } from "../jobs/queue.server";
import { addLogContext } from "../log-context.server";
import { getSettings, labelModeReason, type ShopSettings } from "../settings.server";
import { stockCountries } from "../catalog/facts.server";
import { chooseSuppliers, routeLines } from "../catalog/suppliers.server";
import { DEFAULT_CONNECTION_LOGISTICS } from "../connections/connections.server";
import type {
  ShopOrder as ShopifyOrder,
  ShopOrderLine as ShopifyLine,
} from "../shop/gateway.server";
import { parseOrderGid } from "../shop/ids";
import { withheldCustomerData } from "../shop/orders.server";
import type { CreateOrderV3Request } from "../svc/order-shapes";
import {
  SvcAuthError,
  SvcDuplicateOrderError,
  SvcError,
  SvcLogisticsError,
  SvcNotFoundError,
  SvcParamError,
  SvcPaymentError,
  SvcQuotaError,
  SvcTokenCooldownError,
} from "../svc/errors";
import { toMoney } from "../svc/decimal";
import { convert, usdRate } from "../fx/rates.server";
import {
  addressFingerprint,
  storedRecipient,
  withCustomsIds,
  withRecipient,
} from "../repair/recipient";
import { type Choice, choiceMessage, chooseShipping } from "../shipping/choose.server";
import {
  buildCreateRequest,
  missingProvince,
  missingShipping,
  protectedDataMessage,
} from "./create-request";
import { type FulfilmentDeps, optionsOf } from "../orders/deps.server";
import { numericId, orderNumberFor } from "./model";
import { type ReasonCode, SELF_RELEASING } from "../orders/states";
import { schedulePay, schedulePlace } from "../orders/schedule.server";
import { addTimeline, errorFields } from "../orders/timeline.server";

export { buildCreateRequest, missingProvince, missingShipping, protectedDataMessage };

// ---------------------------------------------------------------------------------------------
// Receiving the shop's order webhook

const idLike = z.union([z.number(), z.string()]).transform(String);

/** The parts of the REST orders/* payload the pipeline reads (the rest comes from getOrder). */
export const orderWebhookSchema = z
  .object({
    id: idLike,
    name: z.string().nullish(),
    created_at: z.string().nullish(),
    cancelled_at: z.string().nullish(),
    currency: z.string().nullish(),
    customer: z.object({ id: idLike }).passthrough().nullish(),
  })
  .passthrough();

export interface ReceiveResult {
  orderId?: string;
  created: boolean;
  ignored?: string;
}

/**
 * Stores the shop order (once) and schedules its placing after the review window. Runs inside
 * the webhook job's transaction: the row and its job appear together or not at all.
 */
export async function receiveShopOrder(
  db: Db,
  input: { shopDomain: string; topic: string; payload: unknown; nowMs: number },
): Promise<ReceiveResult> {
  const parsed = orderWebhookSchema.safeParse(input.payload);
  if (!parsed.success) return { created: false, ignored: "payload without an order id" };
  const p = parsed.data;
  const settings = await getSettings(db, input.shopDomain);
  if (input.topic !== settings.trigger) {
    return { created: false, ignored: `trigger is ${settings.trigger}` };
  }
  const existing = await db.shopOrder.findUnique({
    where: { shopDomain_shopifyOrderId: { shopDomain: input.shopDomain, shopifyOrderId: p.id } },
    select: { id: true },
  });
  if (existing) return { orderId: existing.id, created: false };
  if (p.cancelled_at) return { created: false, ignored: "cancelled in the shop" };

  const placeAfter =
    settings.reviewWindowMinutes > 0
      ? new Date(input.nowMs + settings.reviewWindowMinutes * 60_000)
      : null;
  const order = await db.shopOrder.create({
    data: {
      shopDomain: input.shopDomain,
      shopifyOrderId: p.id,
      shopifyOrderName: p.name ?? null,
      orderNumber: orderNumberFor(input.shopDomain, p.id),
      state: placeAfter ? "HELD" : "RECEIVED",
      reasonCode: placeAfter ? "review_window" : null,
      reasonMessage: placeAfter
        ? `Waiting ${settings.reviewWindowMinutes} minutes (the review window) before sending it to the service.`
        : null,
      placeAfter,
      isSandbox: settings.sandbox,
      currency: p.currency ?? null,
      customerId: p.customer?.id ?? null,
      ...orderFacts(p),
    },
  });
  await addTimeline(db, order.id, {
    step: "received",
    outcome: placeAfter ? "held" : "info",
    message: `Received from the shop (${input.topic}).${placeAfter ? ` Placed after ${placeAfter.toISOString()}.` : ""}`,
  });
  await schedulePlace(db, {
    orderId: order.id,
    shopDomain: input.shopDomain,
    delayMs: placeAfter ? placeAfter.getTime() - input.nowMs : undefined,
    key: "received",
  });
  return { orderId: order.id, created: true };
}

// ---------------------------------------------------------------------------------------------
// Placing

export type PlaceResult =
  | { outcome: "created"; svcOrderId: string | null }
  | { outcome: "held"; reason: ReasonCode; retryAt?: Date }
  | { outcome: "failed"; reason: ReasonCode }
  | { outcome: "cancelled"; reason?: ReasonCode }
  | { outcome: "skipped"; why: string };

/** HELD reasons the place step acts on (others wait for the merchant or for the payment). */
const PLACEABLE_HELD: string[] = [...SELF_RELEASING, "invalid_address"];

export async function hold(
  db: Db,
  order: Pick<OrderRow, "id" | "state" | "reasonCode">,
  reason: ReasonCode,
  message: string,
  extra: Partial<Pick<OrderRow, "placeAfter" | "currency">> = {},
): Promise<void> {
  await db.shopOrder.update({
    where: { id: order.id },
    data: { state: "HELD", reasonCode: reason, reasonMessage: message, ...extra },
  });
  // One timeline entry per change, not per re-check.
  if (order.state !== "HELD" || order.reasonCode !== reason) {
    await addTimeline(db, order.id, { step: "hold", outcome: "held", errorCode: reason, message });
  }
}

async function fail(db: Db, orderId: string, reason: ReasonCode, message: string, error?: unknown) {
  await db.shopOrder.update({
    where: { id: orderId },
    data: { state: "FAILED", reasonCode: reason, reasonMessage: message },
  });
  const f = error ? errorFields(error) : undefined;
  await addTimeline(db, orderId, {
    step: "create",
    outcome: "error",
    errorCode: f?.errorCode ?? reason,
    requestId: f?.requestId,
    message: f ? `${message} (${f.message})` : message,
  });
}

/**
 * Lines without a connection that the merchant ships (the setting "send the connected lines
 * only"): they are not the service's, so they leave the order's lines (its tracking then closes
 * it with the service's lines), and the timeline says which they are.
 */
async function leaveToMerchant(db: Db, orderId: string, lines: LineRow[]): Promise<void> {
  await db.shopOrderLine.deleteMany({ where: { id: { in: lines.map((l) => l.id) } } });
  await addTimeline(db, orderId, {
    step: "create",
    outcome: "info",
    message: `${lines.length} line(s) are not sent to the service: they are not connected to a catalog product, and Settings say to send the connected lines only, so you ship these yourself: ${lines
      .map((l) => l.title + (l.variantTitle ? ` (${l.variantTitle})` : ""))
      .join("; ")
      .slice(0, 300)}.`,
  });
}

/** Has the merchant released this order (skip the review window and the risk hold)? */
async function releasedByMerchant(db: Db, orderId: string): Promise<boolean> {
  return (await db.timelineEntry.count({ where: { orderId, step: "release" } })) > 0;
}

export async function placeOrder(deps: FulfilmentDeps, orderId: string): Promise<PlaceResult> {
  const db = deps.prisma;
  const order = await db.shopOrder.findUnique({ where: { id: orderId } });
  if (!order) return { outcome: "skipped", why: "order gone" };
  addLogContext({ orderId: order.id, shop: order.shopDomain });
  const placeable =
    order.state === "RECEIVED" ||
    (order.state === "HELD" && PLACEABLE_HELD.includes(order.reasonCode ?? ""));
  if (!placeable) return { outcome: "skipped", why: `state ${order.state}` };
  const now = deps.clock.now();
  const settings = await getSettings(db, order.shopDomain);
  // Asked only when a hold could apply (one query fewer for most orders).
  let releasedMemo: Promise<boolean> | undefined;
  const released = () => (releasedMemo ??= releasedByMerchant(db, order.id));

  if (settings.paused) {
    await hold(
      db,
      order,
      "paused",
      "The shop is paused in Settings: new orders wait until it is resumed.",
    );
    return { outcome: "held", reason: "paused" };
  }
  const account = await db.svcAccount.findUnique({
    where: { shopDomain: order.shopDomain },
    select: { id: true },
  });
  if (!account) {
    await hold(
      db,
      order,
      "no_account",
      "No service account is connected: connect one in Settings and the order goes on.",
    );
    return { outcome: "held", reason: "no_account" };
  }
  if (order.placeAfter && order.placeAfter.getTime() > now && !(await released())) {
    await hold(
      db,
      order,
      "review_window",
      `Waiting for the review window: it goes to the service after ${order.placeAfter.toISOString()}.`,
    );
    return { outcome: "held", reason: "review_window", retryAt: order.placeAfter };
  }
  const labelMode = labelModeReason(settings);
  if (labelMode) {
    await hold(db, order, "settings_incomplete", labelMode);
    return { outcome: "held", reason: "settings_incomplete" };
  }

  const gateway = await deps.shopFor(order.shopDomain);
  const fetched = await gateway.getOrder(parseOrderGid(order.shopifyOrderId));
  if (!fetched) {
    await fail(db, order.id, "create_failed", "The order was not found in the shop.");
    return { outcome: "failed", reason: "create_failed" };
  }
  // The merchant's corrections (a repair) over the shop's address.
  const recipient = storedRecipient(order.recipient);
  const shopOrder = withRecipient(fetched, recipient);
  if (shopOrder.cancelledAt) {
    await db.shopOrder.update({
      where: { id: order.id },
      data: {
        state: "CANCELLED",
        cancelledAt: new Date(shopOrder.cancelledAt),
        reasonCode: "cancelled_in_shop",
        reasonMessage: "Cancelled in the shop before it was sent to the service.",
      },
    });
    await addTimeline(db, order.id, {
      step: "cancel",
      outcome: "info",
      message: "Cancelled in the shop before placing.",
    });
    return { outcome: "cancelled" };
  }
  if (
    settings.holdRiskyOrders &&
    (shopOrder.riskRecommendation === "CANCEL" || shopOrder.riskRecommendation === "INVESTIGATE") &&
    !(await released())
  ) {
    await hold(
      db,
      order,
      "fraud_risk",
      `Shopify's fraud analysis recommends ${shopOrder.riskRecommendation === "CANCEL" ? "cancelling" : "investigating"} this order. Review it, then Release or Cancel.`,
    );
    return { outcome: "held", reason: "fraud_risk" };
  }

  // The lines as the shop has them now (the webhook payload is only a hint), every page of
  // them. Lines on no fulfilment order the app can see sit at a fulfilment service's location
  // (invisible to merchant-managed scopes): that service fulfils them, not this app.
  const visible = new Set(
    shopOrder.fulfillmentOrders.flatMap((fo) => fo.lineItems.map((li) => li.lineItemId)),
  );
  const wanted = shopOrder.lines.filter((l) => l.requiresShipping && l.currentQuantity > 0);
  const shippable = wanted.filter((l) => visible.has(l.id));
  const elsewhere = wanted.filter((l) => !visible.has(l.id));
  if (shippable.length === 0) {
    await db.shopOrder.update({
      where: { id: order.id },
      data: {
        state: "CANCELLED",
        reasonCode: "nothing_to_ship",
        reasonMessage: elsewhere.length
          ? "Every line of this order is fulfilled by another fulfilment service's location: nothing is sent to the service."
          : "No line of this order needs shipping: nothing is sent to the service.",
      },
    });
    await addTimeline(db, order.id, {
      step: "create",
      outcome: "info",
      message: elsewhere.length
        ? `${elsewhere.length} line(s) sit at a location another fulfilment service fulfils (not visible to this app); nothing is left for the service.`
        : "No line needs shipping.",
    });
    return { outcome: "cancelled", reason: "nothing_to_ship" };
  }
  const lines = await saveLines(db, order, shopOrder, shippable, stockCountries(settings));

  const withheld = withheldCustomerData(shopOrder);
  if (withheld.length) {
    await hold(db, order, "protected_data", protectedDataMessage(withheld));
    return { outcome: "held", reason: "protected_data" };
  }
  const missing = missingShipping(shopOrder);
  if (missing.length) {
    await hold(
      db,
      order,
      "invalid_address",
      `The shipping address lacks: ${missing.join(", ")}. Correct it in the shop, then Retry.`,
    );
    return { outcome: "held", reason: "invalid_address" };
  }
  const noProvince = missingProvince(shopOrder);
  if (noProvince) {
    await hold(db, order, "invalid_address", noProvince);
    return { outcome: "held", reason: "invalid_address" };
  }
  const unconnected = lines.filter((l) => !l.svcVid);
  const connected = lines.filter((l) => l.svcVid);
  if (
    unconnected.length &&
    (settings.unconnectedLines === "hold" ||
      (settings.unconnectedLines === "connected" && connected.length === 0))
  ) {
    await hold(
      db,
      order,
      "unconnected_lines",
      `${unconnected.length} line(s) are not connected to a catalog product: ${unconnected
        .map((l) => l.title + (l.variantTitle ? ` (${l.variantTitle})` : ""))
        .join("; ")
        .slice(0, 300)}. Connect them on the Products page and the order goes on.`,
    );
    return { outcome: "held", reason: "unconnected_lines" };
  }
  // Own stock beside dropship lines: only the connected lines go; the merchant ships the rest.
  const sent = settings.unconnectedLines === "connected" ? connected : lines;
  if (sent.length < lines.length) await leaveToMerchant(db, order.id, unconnected);

  if (elsewhere.length) {
    await addTimeline(db, order.id, {
      step: "create",
      outcome: "info",
      message: `${elsewhere.length} line(s) are not sent to the service: they sit at a location another fulfilment service fulfils (not visible to this app): ${elsewhere
        .map((l) => l.title + (l.variantTitle ? ` (${l.variantTitle})` : ""))
        .join("; ")
        .slice(0, 300)}.`,
    });
  }
  const shipping = await chooseShipping(deps, {
    order,
    lines: sent,
    countryCode: shopOrder.shippingAddress!.countryCode!.toUpperCase(),
    zip: shopOrder.shippingAddress!.zip,
    settings,
    accountId: account.id,
  });
  if (!shipping.ok) {
    await hold(db, order, shipping.reason, shipping.message);
    return { outcome: "held", reason: shipping.reason };
  }
  // Prices go to the service in USD, from the currency the shop has the order in now.
  const currency = shopOrder.currencyCode.toUpperCase();
  const fx = await usdRate(db, currency, settings, {
    nowMs: now,
    url: optionsOf(deps).fxRatesUrl,
  });
  if (!fx) {
    await hold(
      db,
      order,
      "no_fx_rate",
      `Prices go to the service in USD, and no exchange rate from ${currency} is known (the rates source did not answer or has no ${currency}). Set a rate for ${currency} in Settings → Exchange rates, or wait: the order goes on when rates arrive.`,
      { currency },
    );
    return { outcome: "held", reason: "no_fx_rate" };
  }
  const usdLines = sent.map((l) => ({ ...l, unitPrice: convert(l.unitPrice, fx.usdPerUnit) }));
  const request = withCustomsIds(
    buildCreateRequest(order, shopOrder, usdLines, settings, now),
    recipient,
  );
  request.fromCountryCode = shipping.from;
  if (fx.source !== "USD") {
    await db.$transaction(
      usdLines.map((l) =>
        db.shopOrderLine.update({ where: { id: l.id }, data: { unitPriceUsd: l.unitPrice } }),
      ),
    );
  }
  await db.shopOrder.update({
    where: { id: order.id },
    data: {
      shippedTo: fetched.shippingAddress ? addressFingerprint(fetched.shippingAddress) : null,
      currency,
      fxRate: fx.source === "USD" ? null : fx.usdPerUnit,
      fxSource: fx.source === "USD" ? null : fx.source,
      svcAccountId: account.id,
      isSandbox: settings.sandbox,
      reasonCode: null,
      reasonMessage: null,
    },
  });
  // The choices in order: a method the service refuses (1605001) gives way to the next.
  let refused: string | undefined;
  for (const [i, choice] of shipping.choices.entries()) {
    request.logisticName = choice.logisticName;
    if (shipping.note || refused) {
      await addTimeline(db, order.id, {
        step: "shipping",
        outcome: "info",
        message: choiceMessage(choice, shipping.note, refused),
      });
    }
    const r = await createAtService(
      deps,
      {
        ...order,
        svcAccountId: account.id,
        currency,
        fxRate: fx.source === "USD" ? null : fx.usdPerUnit,
      },
      request,
      settings,
      {
        choice,
        last: i === shipping.choices.length - 1,
      },
    );
    if (r.outcome !== "logistics_refused") return r;
    refused = choice.logisticName;
  }
  throw new Error("unreachable: the last choice is never passed over");
}

async function createAtService(
  deps: FulfilmentDeps,
  order: OrderRow & { svcAccountId: string },
  request: CreateOrderV3Request,
  settings: ShopSettings,
  shipping: { choice: Choice; last: boolean },
): Promise<PlaceResult | { outcome: "logistics_refused" }> {
  const db = deps.prisma;
  const client = await deps.svcFor(order.svcAccountId);
  let svcOrderId: string | null = null;
  let amount: string | null = null;
  let shipmentOrderId: string | null = null;
  let note = "";
  try {
    // Lines sent to a backup supplier: the service's connection points there first.
    await routeLines(
      db,
      client,
      order.shopDomain,
      order.id,
      settings.logisticName || DEFAULT_CONNECTION_LOGISTICS,
      settings.fromCountryCode,
    );
    const result = await client.orders.createOrderSafely(request);
    if (result.creation) {
      svcOrderId = result.creation.orderId ?? null;
      amount = result.creation.orderAmount ?? null;
      shipmentOrderId = result.creation.shipmentOrderId ?? null;
      if (!svcOrderId) {
        note = (result.creation.interceptOrderReasons ?? [])
          .map((r) => r.message)
          .filter(Boolean)
          .join("; ");
      }
    } else if (result.existing) {
      svcOrderId = result.existing.orderId ?? result.existing.svcOrderId ?? null;
      amount = result.existing.orderAmount ?? null;
      note = "found by its number after an unknown outcome";
    }
  } catch (error) {
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
      note = "exists at the service and waits for its products to be connected";
    } else if (
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
    } else if (error instanceof SvcAuthError && !(error instanceof SvcTokenCooldownError)) {
      // (A token asked for less than 5 minutes ago is not the merchant's to mend: the job
      // waits for it, below.)
      await fail(
        db,
        order.id,
        "create_failed",
        "The service refused the account's credentials: reconnect the account in Settings, then Retry.",
        error,
      );
      return { outcome: "failed", reason: "create_failed" };
    } else {
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
  }
  const waiting = !svcOrderId;
  const cost = amount ? toMoney(amount) : null;
  const shippingCost = shipping.choice.priceUsd ?? null;
  // Automatic payment would pay it: the cost guard looks first, in the same write (a pay run
  // must never see it CREATED in between).
  const guard =
    svcOrderId && settings.autoPay
      ? costGuardReason(settings, { ...order, amount: cost, shippingCost })
      : null;
  await db.shopOrder.update({
    where: { id: order.id },
    data: {
      state: guard ? "HELD" : "CREATED",
      svcOrderId,
      amount: cost,
      shipmentOrderId,
      logisticName: shipping.choice.logisticName,
      shippingCost,
      placedAt: new Date(deps.clock.now()),
      reasonCode: guard ? "cost_guard" : waiting ? "waiting_connection" : null,
      reasonMessage:
        guard ??
        (waiting
          ? `Created at the service, which keeps it among invalid orders until its products are connected${note ? ` (${note})` : ""}.`
          : null),
    },
  });
  await addTimeline(db, order.id, {
    step: "create",
    outcome: "ok",
    message: svcOrderId
      ? `Created at the service as ${svcOrderId}${amount ? ` (${toMoney(amount)} USD)` : ""}${note ? `, ${note}` : ""}.`
      : `Created at the service without an order id yet${note ? `: ${note}` : ""}.`,
  });
  if (guard) {
    await addTimeline(db, order.id, {
      step: "guard",
      outcome: "held",
      errorCode: "cost_guard",
      message: guard,
    });
    return { outcome: "held", reason: "cost_guard" };
  }
  if (svcOrderId && settings.autoPay) {
    await schedulePay(db, {
      accountId: order.svcAccountId,
      shopDomain: order.shopDomain,
      nowMs: deps.clock.now(),
      windowSeconds: settings.payBatchWindowSeconds,
    });
    await scheduleFullBatch(deps, order.svcAccountId, order.shopDomain, settings);
  }
  return { outcome: "created", svcOrderId };
}

/** A batch that is already full need not wait for the end of its window. */
async function scheduleFullBatch(
  deps: FulfilmentDeps,
  accountId: string,
  shopDomain: string,
  settings: ShopSettings,
) {
  if (settings.payBatchWindowSeconds === 0) return;
  const waiting = await deps.prisma.shopOrder.count({
    where: {
      svcAccountId: accountId,
      state: "CREATED",
      svcOrderId: { not: null },
      paymentBatchId: null,
    },
  });
  // `>=`, not `% size === 0`: concurrent creates may count past the exact multiple; a run
  // already waiting is reused (schedulePay), so this costs no extra job.
  if (waiting >= settings.payBatchSize) {
    await schedulePay(deps.prisma, {
      accountId,
      shopDomain,
      nowMs: deps.clock.now(),
      windowSeconds: settings.payBatchWindowSeconds,
      now: true,
      key: `full:${waiting}:${Math.floor(deps.clock.now() / 1000)}`,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Lines, connections and the request

async function saveLines(
  db: FulfilmentDeps["prisma"],
  order: OrderRow,
  shopOrder: ShopifyOrder,
  shippable: ShopifyLine[],
  countries: string[],
): Promise<LineRow[]> {
  const variantIds = shippable.flatMap((l) =>
    l.variantId ? [l.variantId, numericId(l.variantId) ?? l.variantId] : [],
  );
  const connections = await db.productConnection.findMany({
    where: { shopDomain: order.shopDomain, shopifyVariantId: { in: variantIds } },
  });
  const vidOf = (variantId: string | null) => {
    if (!variantId) return null;
    const n = numericId(variantId);
    return (
      connections.find((c) => c.shopifyVariantId === variantId || c.shopifyVariantId === n)
        ?.svcVid ?? null
    );
  };
  // A line whose first supplier is out of stock (or removed) goes to the first backup with stock.
  const picks = await chooseSuppliers(
    db,
    order.shopDomain,
    shippable.flatMap((l) => {
      const primaryVid = vidOf(l.variantId);
      const variantId = numericId(l.variantId);
      return primaryVid && variantId
        ? [{ variantId, primaryVid, quantity: l.currentQuantity }]
        : [];
    }),
    countries,
  );
  const switched = shippable.flatMap((l) => {
    const pick = picks.get(numericId(l.variantId) ?? "");
    return pick?.passedOver ? [{ line: l, pick }] : [];
  });
  const rows = shippable.map((l) => ({
    shopifyLineItemId: numericId(l.id) ?? l.id,
    shopifyProductId: numericId(l.productId) ?? null,
    shopifyVariantId: numericId(l.variantId) ?? null,
    sku: l.sku,
    title: l.title,
    variantTitle: l.variantTitle,
    variantOptions: l.options.map((o) => o.value).join("-") || null,
    image: l.imageUrl,
    quantity: l.currentQuantity,
    unitPrice: toMoney(l.unitPrice.amount),
    requiresShipping: true,
    svcVid: picks.get(numericId(l.variantId) ?? "")?.vid ?? vidOf(l.variantId),
  }));
  await db.$transaction(async (tx) => {
    // The choice is told once (not again when the placement is retried).
    const before = switched.length
      ? await tx.shopOrderLine.findMany({
          where: { orderId: order.id },
          select: { shopifyLineItemId: true, svcVid: true },
        })
      : [];
    for (const r of rows) {
      await tx.shopOrderLine.upsert({
        where: {
          orderId_shopifyLineItemId: { orderId: order.id, shopifyLineItemId: r.shopifyLineItemId },
        },
        create: { orderId: order.id, ...r },
        update: r,
      });
    }
    await tx.shopOrderLine.deleteMany({
      where: {
        orderId: order.id,
        shopifyLineItemId: { notIn: rows.map((r) => r.shopifyLineItemId) },
      },
    });
    if (shopOrder.name && shopOrder.name !== order.shopifyOrderName) {
      await tx.shopOrder.update({
        where: { id: order.id },
        data: { shopifyOrderName: shopOrder.name },
      });
    }
    for (const { line, pick } of switched) {
      const id = numericId(line.id) ?? line.id;
      if (before.some((b) => b.shopifyLineItemId === id && b.svcVid === pick.vid)) continue;
      await addTimeline(tx, order.id, {
        step: "create",
        outcome: "info",
        message:
          `"${line.title}" goes to supplier ${pick.position + 1} (catalog variant ${pick.vid}): ` +
          `the first supplier (${pick.passedOver!.vid}) is ${pick.passedOver!.reason}.`,
      });
    }
  });
  return db.shopOrderLine.findMany({
    where: { orderId: order.id },
    orderBy: { shopifyLineItemId: "asc" },
  });
}

/**
 * A place job that kept failing for a retryable reason (the service unreachable or busy): the
 * order is held `service_unavailable` so the merchant sees it, until the service answers again.
 */
export async function holdUnreachable(
  deps: FulfilmentDeps,
  orderId: string,
  error: unknown,
): Promise<PlaceResult> {
  const order = await deps.prisma.shopOrder.findUnique({ where: { id: orderId } });
  if (!order || (order.state !== "RECEIVED" && order.state !== "HELD")) {
    return { outcome: "skipped", why: `state ${order?.state ?? "gone"}` };
  }
  await hold(
    deps.prisma,
    order,
    "service_unavailable",
    `Placing this order failed several times for a passing reason (${errorFields(error).message}). It is tried again as soon as the service answers, and at least every ten minutes.`,
  );
  return { outcome: "held", reason: "service_unavailable" };
}

/** SvcError's requestId helper for callers outside this module. */
export function isRetryable(error: unknown): boolean {
  return error instanceof SvcError ? error.retryable || error.outcomeUnknown : true;
}
