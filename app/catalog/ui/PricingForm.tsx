/**
 * The "Pricing and stock" form of the settings page: how imported products are priced from the
 * supplier's cost, what happens when the cost moves, and whose stock the shop shows.
 */
import { Checkbox, FormLayout, Select, TextField } from "@shopify/polaris";
import { PartForm } from "../../components/PartForm";
import {
  type PartProps,
  type SavedSettings,
  asPosted,
  fieldsOf,
} from "../../components/part-fields";
import { PRICING_KEYS } from "../pricing-fields";

export const PRICING_INTENT = "save-pricing";

export { PRICING_KEYS };

type Values = Record<(typeof PRICING_KEYS)[number], string>;

export function pricingSaved(settings: SavedSettings): Values {
  const all = asPosted(settings);
  return Object.fromEntries(PRICING_KEYS.map((k) => [k, all[k] ?? ""])) as Values;
}

export function PricingForm({ data, draft, refusal, onSave }: PartProps<Values>) {
  const s = draft.values;
  const { set, err, text, check } = fieldsOf(draft, refusal, PRICING_INTENT);
  return (
    <PartForm
      intent={PRICING_INTENT}
      dirty={draft.dirty}
      refusal={refusal}
      onSave={onSave}
      hidden={
        <>
          <input type="hidden" name="stockSync" value={s.stockSync} />
        </>
      }
    >
      <FormLayout.Group>
        <Select
          label="Price rule"
          name="priceRule"
          options={[
            { value: "multiplier", label: "Cost × multiplier" },
            { value: "markup", label: "Cost + fixed markup" },
          ]}
          {...text("priceRule")}
        />
        <TextField
          label={s.priceRule === "markup" ? "Markup (shop currency)" : "Multiplier"}
          name="priceValue"
          autoComplete="off"
          inputMode="decimal"
          {...text("priceValue")}
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
          {...text("compareAtPct")}
          helpText="Empty: no compare-at price."
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
          {...text("repriceThresholdPct")}
        />
      </FormLayout.Group>
      <Checkbox label="Set my shop's stock from the supplier's stock" {...check("stockSync")} />
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
        {...text("mainMarket")}
        helpText="The two-letter code of the country most of your orders go to."
      />
    </PartForm>
  );
}
