/**
 * The first hold checks of placing, in order: the shop and its account (paused, no account, the
 * review window, settings), then the order as the shop has it now (found, cancelled, fraud risk,
 * something to ship, whose lines are then saved).
 */
import { stockCountries } from "../../catalog/facts.server";
import { storedRecipient, withRecipient } from "../../repair/recipient";
import { labelModeReason } from "../../settings.server";
import { parseOrderGid } from "../../shop/ids";
import { accountIdOfShop } from "../../svc/accounts.server";
import type { HoldCheck, PlaceCtx } from "./context.server";
import { saveLines } from "./lines.server";
import { cancelBeforePlacing, fail } from "./outcome.server";

export const paused: HoldCheck = {
  name: "paused",
  check: async ({ settings }) =>
    settings.paused
      ? {
          hold: "paused",
          message: "The shop is paused in Settings: new orders wait until it is resumed.",
        }
      : null,
};

export const account: HoldCheck = {
  name: "account",
  check: async (ctx) => {
    const id = await accountIdOfShop(ctx.deps.prisma, ctx.order.shopDomain);
    if (id) {
      ctx.account = { id };
      return null;
    }
    return {
      hold: "no_account",
      message: "No service account is connected: connect one in Settings and the order goes on.",
    };
  },
};

export const reviewWindow: HoldCheck = {
  name: "review window",
  check: async ({ order, now, released }) =>
    order.placeAfter && order.placeAfter.getTime() > now && !(await released())
      ? {
          hold: "review_window",
          message: `Waiting for the review window: it goes to the service after ${order.placeAfter.toISOString()}.`,
          retryAt: order.placeAfter,
        }
      : null,
};

export const settingsComplete: HoldCheck = {
  name: "settings",
  check: async ({ settings }) => {
    const labelMode = labelModeReason(settings);
    return labelMode ? { hold: "settings_incomplete", message: labelMode } : null;
  },
};

/** The order as the shop has it: read now, or a moment ago by the delivery that stored it. */
async function shopOrderNow(ctx: PlaceCtx) {
  if (ctx.prefetched) return ctx.prefetched;
  const gateway = await ctx.deps.shopFor(ctx.order.shopDomain);
  return gateway.getOrder(parseOrderGid(ctx.order.shopifyOrderId));
}

export const inShop: HoldCheck = {
  name: "in the shop",
  check: async (ctx) => {
    const fetched = await shopOrderNow(ctx);
    if (!fetched) {
      await fail(
        ctx.deps.prisma,
        ctx.order.id,
        "create_failed",
        "The order was not found in the shop.",
      );
      return { done: { outcome: "failed", reason: "create_failed" } };
    }
    // The merchant's corrections (a repair) over the shop's address.
    ctx.fetched = fetched;
    ctx.recipient = storedRecipient(ctx.order.recipient);
    ctx.shopOrder = withRecipient(fetched, ctx.recipient);
    return null;
  },
};

export const cancelledInShop: HoldCheck = {
  name: "cancelled in the shop",
  check: async (ctx) => {
    const cancelledAt = ctx.shopOrder!.cancelledAt;
    if (!cancelledAt) return null;
    await cancelBeforePlacing(ctx.deps.prisma, ctx.order.id, {
      reason: "cancelled_in_shop",
      message: "Cancelled in the shop before it was sent to the service.",
      step: "cancel",
      note: "Cancelled in the shop before placing.",
      cancelledAt: new Date(cancelledAt),
    });
    return { done: { outcome: "cancelled" } };
  },
};

export const fraud: HoldCheck = {
  name: "fraud",
  check: async ({ settings, shopOrder, released }) => {
    const risk = shopOrder!.riskRecommendation;
    if (!settings.holdRiskyOrders || (risk !== "CANCEL" && risk !== "INVESTIGATE")) return null;
    if (await released()) return null;
    return {
      hold: "fraud_risk",
      message: `Shopify's fraud analysis recommends ${risk === "CANCEL" ? "cancelling" : "investigating"} this order. Review it, then Release or Cancel.`,
    };
  },
};

/**
 * The lines as the shop has them now (the webhook payload is only a hint), every page of them.
 * Lines on no fulfilment order the app can see sit at a fulfilment service's location
 * (invisible to merchant-managed scopes): that service fulfils them, not this app.
 */
export const somethingToShip: HoldCheck = {
  name: "something to ship",
  check: async (ctx) => {
    const shopOrder = ctx.shopOrder!;
    const visible = new Set(
      shopOrder.fulfillmentOrders.flatMap((fo) => fo.lineItems.map((li) => li.lineItemId)),
    );
    const wanted = shopOrder.lines.filter((l) => l.requiresShipping && l.currentQuantity > 0);
    const shippable = wanted.filter((l) => visible.has(l.id));
    const elsewhere = wanted.filter((l) => !visible.has(l.id));
    if (shippable.length === 0) {
      await cancelBeforePlacing(ctx.deps.prisma, ctx.order.id, {
        reason: "nothing_to_ship",
        message: elsewhere.length
          ? "Every line of this order is fulfilled by another fulfilment service's location: nothing is sent to the service."
          : "No line of this order needs shipping: nothing is sent to the service.",
        step: "create",
        note: elsewhere.length
          ? `${elsewhere.length} line(s) sit at a location another fulfilment service fulfils (not visible to this app); nothing is left for the service.`
          : "No line needs shipping.",
      });
      return { done: { outcome: "cancelled", reason: "nothing_to_ship" } };
    }
    ctx.elsewhere = elsewhere;
    ctx.lines = await saveLines(
      ctx.deps.prisma,
      ctx.order,
      shopOrder,
      shippable,
      stockCountries(ctx.settings),
    );
    return null;
  },
};
