/**
 * The create, once every hold check has passed: the prices in USD and the order's columns for
 * the service written first, then the shipping choices in order, each tried at the service
 * (app/fulfilment/place/attempt.server.ts) until one is not refused.
 */
import { convert } from "../../fx/rates.server";
import { addTimeline } from "../../orders/timeline.server";
import { addressFingerprint, withCustomsIds } from "../../repair/recipient";
import { choiceMessage } from "../../shipping/choose.server";
import { buildCreateRequest } from "../create-request";
import { createAtService } from "./attempt.server";
import type { PlaceCtx } from "./context.server";
import type { PlaceResult } from "./outcome.server";

export async function createOrder(ctx: PlaceCtx): Promise<PlaceResult> {
  const { order, settings, now } = ctx;
  const db = ctx.deps.prisma;
  const [fx, shipping, account, currency] = [ctx.fx!, ctx.shipping!, ctx.account!, ctx.currency!];
  const usdLines = ctx.sent!.map((l) => ({ ...l, unitPrice: convert(l.unitPrice, fx.usdPerUnit) }));
  const request = withCustomsIds(
    buildCreateRequest(order, ctx.shopOrder!, usdLines, settings, now),
    ctx.recipient!,
  );
  request.fromCountryCode = shipping.from;
  if (fx.source !== "USD") {
    await db.$transaction(
      usdLines.map((l) =>
        db.shopOrderLine.update({ where: { id: l.id }, data: { unitPriceUsd: l.unitPrice } }),
      ),
    );
  }
  const fxRate = fx.source === "USD" ? null : fx.usdPerUnit;
  const shippedTo = ctx.fetched!.shippingAddress;
  await db.shopOrder.update({
    where: { id: order.id },
    data: {
      shippedTo: shippedTo ? addressFingerprint(shippedTo) : null,
      currency,
      fxRate,
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
      ctx.deps,
      { ...order, svcAccountId: account.id, currency, fxRate },
      request,
      settings,
      { choice, last: i === shipping.choices.length - 1 },
    );
    if (r.outcome !== "logistics_refused") return r;
    refused = choice.logisticName;
  }
  throw new Error("unreachable: the last choice is never passed over");
}
