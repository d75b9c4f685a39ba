/**
 * The last hold checks of placing, in order: what the service needs to ship the order (the
 * customer's data, the address, the province, connected lines), the lines it is sent, then its
 * shipping method and the exchange rate to USD.
 */
import { usdRate } from "../../fx/rates.server";
import { optionsOf } from "../../orders/deps.server";
import { addTimeline } from "../../orders/timeline.server";
import { chooseShipping } from "../../shipping/choose.server";
import { withheldCustomerData } from "../../shop/orders.server";
import { missingProvince, missingShipping, protectedDataMessage } from "../create-request";
import type { HoldCheck } from "./context.server";
import { leaveToMerchant, lineTitles } from "./lines.server";

export const protectedData: HoldCheck = {
  name: "protected data",
  check: async ({ shopOrder }) => {
    const withheld = withheldCustomerData(shopOrder!);
    return withheld.length
      ? { hold: "protected_data", message: protectedDataMessage(withheld) }
      : null;
  },
};

export const address: HoldCheck = {
  name: "address",
  check: async ({ shopOrder }) => {
    const missing = missingShipping(shopOrder!);
    return missing.length
      ? {
          hold: "invalid_address",
          message: `The shipping address lacks: ${missing.join(", ")}. Correct it in the shop, then Retry.`,
        }
      : null;
  },
};

export const province: HoldCheck = {
  name: "province",
  check: async ({ shopOrder }) => {
    const noProvince = missingProvince(shopOrder!);
    return noProvince ? { hold: "invalid_address", message: noProvince } : null;
  },
};

export const unconnectedLines: HoldCheck = {
  name: "unconnected lines",
  check: async ({ lines, settings }) => {
    const unconnected = lines!.filter((l) => !l.svcVid);
    const connected = lines!.filter((l) => l.svcVid);
    const holds =
      settings.unconnectedLines === "hold" ||
      (settings.unconnectedLines === "connected" && connected.length === 0);
    if (!unconnected.length || !holds) return null;
    return {
      hold: "unconnected_lines",
      message: `${unconnected.length} line(s) are not connected to a catalog product: ${lineTitles(unconnected)}. Connect them on the Products page and the order goes on.`,
    };
  },
};

/**
 * Never holds: own stock beside dropship lines sends only the connected lines (the merchant
 * ships the rest), and the lines another fulfilment service fulfils are named in the timeline.
 */
export const sentLines: HoldCheck = {
  name: "sent lines",
  check: async (ctx) => {
    const db = ctx.deps.prisma;
    const lines = ctx.lines!;
    const connected = lines.filter((l) => l.svcVid);
    ctx.sent = ctx.settings.unconnectedLines === "connected" ? connected : lines;
    if (ctx.sent.length < lines.length) {
      await leaveToMerchant(
        db,
        ctx.order.id,
        lines.filter((l) => !l.svcVid),
      );
    }
    const elsewhere = ctx.elsewhere!;
    if (elsewhere.length) {
      await addTimeline(db, ctx.order.id, {
        step: "create",
        outcome: "info",
        message: `${elsewhere.length} line(s) are not sent to the service: they sit at a location another fulfilment service fulfils (not visible to this app): ${lineTitles(elsewhere)}.`,
      });
    }
    return null;
  },
};

export const shippingMethod: HoldCheck = {
  name: "shipping method",
  check: async (ctx) => {
    const address = ctx.shopOrder!.shippingAddress!;
    const shipping = await chooseShipping(ctx.deps, {
      order: ctx.order,
      lines: ctx.sent!,
      countryCode: address.countryCode!.toUpperCase(),
      zip: address.zip,
      settings: ctx.settings,
      accountId: ctx.account!.id,
    });
    if (!shipping.ok) return { hold: shipping.reason, message: shipping.message };
    ctx.shipping = shipping;
    return null;
  },
};

/** Prices go to the service in USD, from the currency the shop has the order in now. */
export const fx: HoldCheck = {
  name: "fx",
  check: async (ctx) => {
    const currency = ctx.shopOrder!.currencyCode.toUpperCase();
    ctx.currency = currency;
    const rate = await usdRate(ctx.deps.prisma, currency, ctx.settings, {
      nowMs: ctx.now,
      url: optionsOf(ctx.deps).fxRatesUrl,
    });
    if (rate) {
      ctx.fx = rate;
      return null;
    }
    return {
      hold: "no_fx_rate",
      message: `Prices go to the service in USD, and no exchange rate from ${currency} is known (the rates source did not answer or has no ${currency}). Set a rate for ${currency} in Settings → Exchange rates, or wait: the order goes on when rates arrive.`,
      extra: { currency },
    };
  },
};
