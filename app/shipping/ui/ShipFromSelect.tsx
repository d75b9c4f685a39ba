/**
 * The ship-from warehouse of the "Orders and payment" form, chosen from the service's global
 * warehouses (name and country). A saved value the service no longer lists stays, with a note;
 * when the list cannot be read, the saved value is the only choice and the field says why.
 */
import { Select } from "@shopify/polaris";
import type { SerializeFrom } from "@remix-run/node";
import type { WarehouseList } from "../warehouses.server";

export function ShipFromSelect(p: {
  list: SerializeFrom<WarehouseList>;
  saved: string;
  value: string;
  onChange: (v: string) => void;
  error?: string;
}) {
  const listed = p.list.ok ? p.list.warehouses : [];
  const known = listed.some((w) => w.code === p.saved);
  const options = [
    ...listed.map((w) => ({ label: `${w.name} (${w.country}, ${w.code})`, value: w.code })),
    ...(known ? [] : [{ label: `${p.saved} (saved)`, value: p.saved }]),
  ];
  const help = !p.list.ok
    ? `${p.list.reason} The saved warehouse (${p.saved}) is kept.`
    : known
      ? "Where matched products ship from by default (each shipping rule names its own origin)"
      : `The saved warehouse (${p.saved}) is no longer in the service's list: choose another one.`;
  return (
    <Select
      label="Ship-from warehouse"
      name="fromCountryCode"
      options={options}
      value={p.value}
      onChange={p.onChange}
      helpText={help}
      error={p.error}
    />
  );
}

/** Why warehouse modes 1 and 3 are not offered. */
export const WAREHOUSE_MODES_HIDDEN =
  "The platform warehouse modes (a warehouse you choose, or one the service assigns) are not offered: they need a shipping label uploaded after payment, which this app cannot send yet.";

/**
 * The warehouse mode choices: merchant logistics, and a withdrawn mode only while it is the
 * saved one (visible, not choosable).
 */
export function warehouseModeOptions(saved: number) {
  return [
    { label: "Merchant logistics", value: "2" },
    ...(saved === 1
      ? [
          {
            label: "Platform logistics from a warehouse (not available)",
            value: "1",
            disabled: true,
          },
        ]
      : []),
    ...(saved === 3
      ? [{ label: "Warehouse assigned by the service (not available)", value: "3", disabled: true }]
      : []),
  ];
}
