/**
 * The settings page's shipping actions: the rules saved (each named method checked against
 * what the service offers on its route, then held orders checked again) and a sample quote
 * for a route ("Show methods"). The checks are app/shipping/settings-form.server.ts.
 */
import { updateSettings } from "../settings.server";
import { recheckHeld, SETTINGS_CAUSES } from "../orders/recheck.server";
import { parseForm } from "../page-kit/forms.server";
import { fail, saved, type SettingsIntentAction } from "../page-kit/settings-action.server";
import { checkOffered, parseRules, quoteForm, sampleQuote } from "./settings-form.server";

const saveShipping: SettingsIntentAction = async (db, shop, form) => {
  const intent = "save-shipping";
  const rules = parseRules(form.get("shippingRules"));
  if (!rules.ok) return fail(intent, rules.errors);
  const offered = await checkOffered(db, shop, rules.data);
  if (offered) return fail(intent, offered);
  const r = await updateSettings(db, shop, { shippingRules: rules.data });
  if (!r.ok) return fail(intent, r.errors);
  return saved(
    intent,
    "Shipping rules saved",
    await recheckHeld(db, shop, SETTINGS_CAUSES, `shipping:${Date.now()}`),
  );
};

const quote: SettingsIntentAction = async (db, shop, form) => {
  const intent = "quote";
  const parsed = parseForm(quoteForm, form);
  if (!parsed.ok) return fail(intent, parsed.errors);
  const q = await sampleQuote(db, shop, parsed.data.from, parsed.data.to);
  if (typeof q === "string") return fail(intent, { quote: q });
  return {
    ok: true,
    intent,
    message: `${q.length} method${q.length === 1 ? "" : "s"} offered from ${parsed.data.from} to ${parsed.data.to}`,
    quote: { ...parsed.data, options: q },
  };
};

/** The shipping forms of the settings page, by intent. */
export const shippingActions = {
  "save-shipping": saveShipping,
  quote,
} satisfies Record<string, SettingsIntentAction>;
