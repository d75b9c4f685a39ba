/**
 * The settings page's "Pricing and stock" form, saved: the pricing rule and the stock and price
 * sync (catalog/pricing.ts, catalog/sync.server.ts), settings fields validated by the settings
 * schema. Its form is app/catalog/ui/PricingForm.tsx.
 */
import { PRICING_KEYS } from "./pricing-fields";
import type { ShopSettings } from "../settings.server";
import {
  saveFields,
  settingsFields,
  type SettingsIntentAction,
} from "../page-kit/settings-action.server";

/** The pricing rule and the stock and price sync (catalog/pricing.ts, catalog/sync.server.ts). */
const PRICING_FIELDS = PRICING_KEYS satisfies readonly (keyof ShopSettings)[];

const pricingForm = settingsFields(PRICING_FIELDS).superRefine((s, ctx) => {
  if (s.priceRule === "multiplier" && (Number(s.priceValue) < 1 || Number(s.priceValue) > 100))
    ctx.addIssue({
      code: "custom",
      path: ["priceValue"],
      message: "A multiplier from 1 to 100, like 2.5",
    });
});

/** The pricing form of the settings page, by intent. */
export const pricingActions = {
  "save-pricing": (db, shop, form) =>
    saveFields(
      db,
      shop,
      "save-pricing",
      pricingForm,
      form,
      () => "Pricing saved: it applies to imports, and to re-pricing when a cost moves",
    ),
} satisfies Record<string, SettingsIntentAction>;
