/**
 * The settings of the "Pricing and stock" form, listed once: its fields in the page
 * (app/catalog/ui/PricingForm.tsx) and the fields its action saves
 * (app/catalog/settings-action.server.ts).
 */
export const PRICING_KEYS = [
  "priceRule",
  "priceValue",
  "priceRounding",
  "compareAtPct",
  "repriceOnCostChange",
  "repriceThresholdPct",
  "stockSync",
  "stockCountries",
  "mainMarket",
] as const;
