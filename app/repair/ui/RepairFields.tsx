/**
 * The fields of the Repair form: the recipient's address, the customs ids the destination needs,
 * and the shipping method from the service's quote. The Repair card (./RepairCard.tsx) holds
 * their values. The address and customs fields come as lists of elements, not components: the
 * form's layout (Polaris FormLayout) lays out each of its direct children on a row of its own.
 */
import { FormLayout, Select, TextField } from "@shopify/polaris";
import type { RepairData, ShippingOption } from "./repair-data";

const FIELDS: [string, string, number?][] = [
  ["name", "Recipient name"],
  ["address1", "Address"],
  ["address2", "Address line 2"],
  ["city", "City"],
  ["province", "Province or state"],
  ["zip", "Postal code"],
  ["countryCode", "Country code"],
  ["phone", "Phone"],
  ["email", "Email"],
];

interface FieldsProps {
  values: Record<string, string>;
  setField: (name: string, value: string) => void;
  error: (name: string) => string | undefined;
}

/** The recipient's address, three groups of fields on a row each. */
export function recipientFields({ values, setField, error }: FieldsProps) {
  return [FIELDS.slice(0, 2), FIELDS.slice(2, 5), FIELDS.slice(5)].map((group) => (
    <FormLayout.Group condensed key={group[0]![0]}>
      {group.map(([k, label]) => (
        <TextField
          key={k}
          label={label}
          name={k}
          autoComplete="off"
          value={values[k] ?? ""}
          onChange={(v) => setField(k, v)}
          error={error(k)}
        />
      ))}
    </FormLayout.Group>
  ));
}

/** The customs ids the destination requires (the label says which id the service names). */
export function customsFields({
  customs,
  values,
  setField,
  error,
}: FieldsProps & { customs: RepairData["customs"] }) {
  return Object.entries(customs ?? {}).map(([k, label]) => (
    <TextField
      key={k}
      label={`${k === "taxId" ? "Tax id" : k === "houseNumber" ? "House number" : "Customs code"} (${label})`}
      name={k}
      autoComplete="off"
      value={values[k] ?? ""}
      onChange={(v) => setField(k, v)}
      helpText="Required by the destination's customs"
      error={error(k)}
    />
  ));
}

const days = (o: ShippingOption) => (o.minDays == null ? "" : `, ${o.minDays}–${o.maxDays} days`);

/** The shipping method: keep the current one, or one of the service's quote with its price. */
export function MethodSelect({
  data,
  method,
  setMethod,
}: {
  data: RepairData;
  method: string;
  setMethod: (method: string) => void;
}) {
  return (
    <Select
      label="Shipping method"
      name="logisticName"
      options={[
        {
          label: data.current ? `Keep ${data.current}` : "Chosen by the shipping rules",
          value: "",
        },
        ...(data.methods?.options ?? []).map((o) => ({
          label: `${o.logisticName} (${o.priceUsd} USD${days(o)})`,
          value: o.logisticName,
        })),
      ]}
      value={method}
      onChange={setMethod}
      helpText={data.methods?.error ?? "From the service's freight quote for this order"}
    />
  );
}
