/**
 * Choosing the shipping method of one order (issue 14): the rule for its destination, a freight
 * quote for its matched lines, the candidates in order (the strategy's pick, then fallbacks),
 * each within the rule's price cap. A merchant's choice from a repair (ShopOrder.logisticName
 * set before placing) is used as is. Old settings with one method name and no rules keep their
 * behaviour: that method, from that origin, unquoted.
 */
import type { ShopOrder as OrderRow, ShopOrderLine as LineRow } from "@prisma/client";
import type { FulfilmentDeps } from "../orders/deps.server";
import type { ReasonCode } from "../orders/states";
import type { ShopSettings } from "../settings.server";
import { SvcError } from "../svc/errors";
import type { FreightOption } from "../svc/logistics.server";
import { quoteFor } from "./quote.server";
import { candidates, describeOption, describeRule, ruleFor, type ShippingRule } from "./rules";

/** A method to try: a quoted option, or a bare name (legacy setting, merchant's pin). */
export type Choice = Pick<FreightOption, "logisticName"> & Partial<FreightOption>;

export type ShippingDecision =
  | { ok: true; from: string; choices: Choice[]; rule: ShippingRule | null; note: string | null }
  | { ok: false; reason: ReasonCode; message: string };

export async function chooseShipping(
  deps: Pick<FulfilmentDeps, "prisma" | "svcFor" | "clock">,
  input: {
    order: Pick<OrderRow, "logisticName">;
    lines: Pick<LineRow, "svcVid" | "quantity">[];
    countryCode: string;
    zip: string | null | undefined;
    settings: ShopSettings;
    accountId: string;
  },
): Promise<ShippingDecision> {
  const { settings } = input;
  const rule = ruleFor(input.settings.shippingRules, input.countryCode);
  const from = rule?.from ?? settings.fromCountryCode;
  if (input.order.logisticName) {
    return {
      ok: true,
      from,
      choices: [{ logisticName: input.order.logisticName }],
      rule,
      note: "the method chosen for this order",
    };
  }
  if (!rule) {
    if (settings.shippingRules.length === 0 && settings.logisticName) {
      return {
        ok: true,
        from,
        choices: [{ logisticName: settings.logisticName }],
        rule,
        note: null,
      };
    }
    return {
      ok: false,
      reason: "settings_incomplete",
      message:
        settings.shippingRules.length === 0
          ? "Shipping is not set up: add a shipping rule in Settings (a rule for every destination is enough) and the order goes on."
          : `No shipping rule covers ${input.countryCode}: add a rule for it, or one for every other destination, in Settings.`,
    };
  }
  const products = input.lines.flatMap((l) =>
    l.svcVid ? [{ vid: l.svcVid, quantity: l.quantity }] : [],
  );
  if (products.length === 0) {
    if (rule.strategy === "named") {
      return {
        ok: true,
        from,
        choices: [{ logisticName: rule.method! }],
        rule,
        note: describeRule(rule),
      };
    }
    return {
      ok: false,
      reason: "no_shipping_method",
      message: `No line is matched to a catalog product, so no freight quote can choose the method (${describeRule(rule)}). Use a named method for ${input.countryCode}, or match the lines.`,
    };
  }
  let offered: FreightOption[];
  try {
    offered = (
      await quoteFor(deps, input.accountId, {
        from,
        to: input.countryCode,
        zip: input.zip,
        products,
      })
    ).options;
  } catch (error) {
    if (!(error instanceof SvcError) || error.retryable || error.outcomeUnknown) throw error;
    return {
      ok: false,
      reason: "no_shipping_method",
      message: `The service gave no freight quote from ${from} to ${input.countryCode}: ${error.message}.`,
    };
  }
  const choices = candidates(rule, offered);
  if (choices.length === 0) {
    return {
      ok: false,
      reason: "no_shipping_method",
      message: `No shipping method fits the ${describeRule(rule)}. Offered from ${from} to ${input.countryCode}: ${
        offered.length ? offered.map(describeOption).join("; ") : "nothing"
      }. Change the rule in Settings and the order goes on.`,
    };
  }
  return { ok: true, from, choices, rule, note: describeRule(rule) };
}

/** The timeline's sentence for a choice. */
export function choiceMessage(choice: Choice, note: string | null, fallbackOf?: string): string {
  const what =
    choice.priceUsd !== undefined ? describeOption(choice as FreightOption) : choice.logisticName;
  const why = fallbackOf ? `fallback after ${fallbackOf} was refused` : note;
  return `Shipping: ${what}${why ? ` (${why})` : ""}.`;
}
