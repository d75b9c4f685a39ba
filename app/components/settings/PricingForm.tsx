/**
 * The "Pricing and stock" form of the settings page: how imported products are priced from the
 * supplier's cost, what happens when the cost moves, and whose stock the shop shows.
 */
import { Form } from "@remix-run/react";
import { Card, Checkbox, FormLayout, Select, TextField } from "@shopify/polaris";
import { FormStatus, fieldError } from "../FormStatus";
import { editingProps } from "../useAutoRefresh";
import { type PartProps, type SettingsData, asPosted, setterOf } from "./parts";

export const PRICING_INTENT = "save-pricing";

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

type Values = Record<(typeof PRICING_KEYS)[number], string>;

export function pricingSaved(settings: SettingsData["settings"]): Values {
  const all = asPosted(settings);
  return Object.fromEntries(PRICING_KEYS.map((k) => [k, all[k] ?? ""])) as Values;
}

export function PricingForm({ data, draft, refusal, onSave }: PartProps<Values>) {
  const s = draft.values;
  const set = setterOf<Values>(draft.set);
  const err = (f: string) => fieldError(refusal, PRICING_INTENT, f);
  return (
    <div data-settings-card={PRICING_INTENT} {...editingProps(draft.dirty)}>
      <Card>
        <Form
          method="post"
          data-settings-part={PRICING_INTENT}
          onSubmit={(e) => {
            e.preventDefault();
            onSave();
          }}
        >
          <input type="hidden" name="intent" value={PRICING_INTENT} />
          <input type="hidden" name="stockSync" value={s.stockSync} />
          <FormLayout>
            <FormStatus data={refusal} intent={PRICING_INTENT} summary />
            <FormLayout.Group>
              <Select
                label="Price rule"
                name="priceRule"
                options={[
                  { value: "multiplier", label: "Cost × multiplier" },
                  { value: "markup", label: "Cost + fixed markup" },
                ]}
                value={s.priceRule}
                onChange={set("priceRule")}
                error={err("priceRule")}
              />
              <TextField
                label={s.priceRule === "markup" ? "Markup (shop currency)" : "Multiplier"}
                name="priceValue"
                autoComplete="off"
                inputMode="decimal"
                value={s.priceValue}
                onChange={set("priceValue")}
                error={err("priceValue")}
              />
            </FormLayout.Group>
            <FormLayout.Group>
              <Select
                label="Prices end in"
                name="priceRounding"
                options={[
                  { value: "99", label: ".99 (rounded up)" },
                  { value: "95", label: ".95 (rounded up)" },
                  { value: "00", label: ".00 (rounded up)" },
                  { value: "none", label: "The exact cent" },
                ]}
                value={s.priceRounding}
                onChange={set("priceRounding")}
              />
              <TextField
                label="Compare-at price above the price (%)"
                name="compareAtPct"
                autoComplete="off"
                inputMode="numeric"
                value={s.compareAtPct}
                onChange={set("compareAtPct")}
                helpText="Empty: no compare-at price."
                error={err("compareAtPct")}
              />
            </FormLayout.Group>
            <FormLayout.Group>
              <Select
                label="When the supplier's cost moves"
                name="repriceOnCostChange"
                options={[
                  { value: "flag", label: "Flag the variant, keep my price" },
                  { value: "apply", label: "Set the price by my rule" },
                ]}
                value={s.repriceOnCostChange}
                onChange={set("repriceOnCostChange")}
              />
              <TextField
                label="…by at least (%)"
                name="repriceThresholdPct"
                autoComplete="off"
                inputMode="decimal"
                value={s.repriceThresholdPct}
                onChange={set("repriceThresholdPct")}
                error={err("repriceThresholdPct")}
              />
            </FormLayout.Group>
            <Checkbox
              label="Set my shop's stock from the supplier's stock"
              checked={s.stockSync === "true"}
              onChange={set("stockSync")}
            />
            <TextField
              label="Warehouse countries that count"
              name="stockCountries"
              autoComplete="off"
              value={s.stockCountries}
              onChange={set("stockCountries")}
              placeholder={data.settings.fromCountryCode}
              helpText="Two-letter codes separated by commas. Empty: the country your orders ship from."
              error={err("stockCountries")}
            />
            <TextField
              label="Main market (shipping quotes on the Products page)"
              name="mainMarket"
              autoComplete="country"
              value={s.mainMarket}
              onChange={set("mainMarket")}
              helpText="The two-letter code of the country most of your orders go to."
              error={err("mainMarket")}
            />
          </FormLayout>
        </Form>
      </Card>
    </div>
  );
}
