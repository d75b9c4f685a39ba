/** The "Exchange rates" form of the settings page: the merchant's own rates, one a line. */
import { TextField } from "@shopify/polaris";
import { fieldError } from "../../components/FormStatus";
import { PartForm } from "../../components/PartForm";
import type { PartProps, SavedSettings } from "../../components/part-fields";

export const FX_INTENT = "save-fx";

type Values = { fxRates: string };

export function fxSaved(settings: SavedSettings): Values {
  const rates = settings.fxRates as Record<string, string>;
  return {
    fxRates: Object.entries(rates)
      .map(([c, r]) => `${c} ${r}`)
      .join("\n"),
  };
}

export function FxRatesForm({ draft, refusal, onSave }: PartProps<Values>) {
  return (
    <PartForm intent={FX_INTENT} dirty={draft.dirty} refusal={refusal} onSave={onSave}>
      <TextField
        label="Your own rates (USD for one unit)"
        name="fxRates"
        autoComplete="off"
        multiline={3}
        value={draft.values.fxRates}
        onChange={(v) => draft.set({ fxRates: v })}
        placeholder="EUR 1.0812"
        helpText="One per line. Leave empty to use the reference rates only."
        error={fieldError(refusal, FX_INTENT, "fxRates")}
      />
    </PartForm>
  );
}
