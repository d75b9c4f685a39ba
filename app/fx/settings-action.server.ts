/**
 * The settings page's "Exchange rates" form, saved: the merchant's own rates parsed
 * (app/fx/settings-form.ts), stored, and the orders held for a missing rate checked again.
 */
import { updateSettings } from "../settings.server";
import { recheckHeld } from "../orders/recheck.server";
import { fail, saved, type SettingsIntentAction } from "../page-kit/settings-action.server";
import { parseRates } from "./settings-form";

const saveFx: SettingsIntentAction = async (db, shop, form) => {
  const intent = "save-fx";
  const rates = parseRates(String(form.get("fxRates") ?? ""));
  if (typeof rates === "string") return fail(intent, { fxRates: rates });
  const r = await updateSettings(db, shop, { fxRates: rates });
  if (!r.ok) return fail(intent, { fxRates: Object.values(r.errors)[0] ?? "Not saved" });
  return saved(
    intent,
    "Exchange rates saved",
    await recheckHeld(db, shop, ["no_fx_rate"], `fx:${Date.now()}`),
  );
};

/** The exchange-rates form of the settings page, by intent. */
export const fxActions = {
  "save-fx": saveFx,
} satisfies Record<string, SettingsIntentAction>;
