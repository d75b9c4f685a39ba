/**
 * The "Orders and payment" form of the settings page: when orders are placed, what is held,
 * how they are paid. Its values are a draft of the saved settings (kept through the page's
 * refreshes while changed); the page's save bar posts it.
 */
import type { SerializeFrom } from "@remix-run/node";
import { Checkbox, FormLayout, Select, TextField } from "@shopify/polaris";
import { NOTIFY_KEYS } from "../../notify/ui/NotificationsForm";
import { PartForm } from "../../components/PartForm";
import {
  type PartProps,
  type SavedSettings,
  asPosted,
  fieldsOf,
} from "../../components/part-fields";
import { PRICING_KEYS } from "../../catalog/ui/PricingForm";
import {
  ShipFromSelect,
  WAREHOUSE_MODES_HIDDEN,
  warehouseModeOptions,
} from "../../shipping/ui/ShipFromSelect";
import type { WarehouseList } from "../../shipping/warehouses.server";

export const ORDERS_INTENT = "save-settings";

type Values = Record<string, string>;

/** The saved settings as this form posts them (the other forms' settings left out). */
export function ordersSaved(settings: SavedSettings): Values {
  const others = new Set<string>([...PRICING_KEYS, ...NOTIFY_KEYS, "sandbox", "logisticName"]);
  return Object.fromEntries(Object.entries(asPosted(settings)).filter(([k]) => !others.has(k)));
}

const CHECKS = ["holdRiskyOrders", "autoPay", "notifyCustomer", "paused"] as const;

/** What the form reads of the page: the saved settings and the service's warehouses. */
export interface OrdersData {
  settings: SavedSettings;
  /** The ship-from choices (the service's global warehouses), or why they are not known. */
  warehouses: SerializeFrom<WarehouseList>;
  /** The chosen platform warehouse as the service names it (none chosen: null). */
  warehouse: { name: string; country: string } | null;
}

/** A text field or a select over the draft (`text(k)` of the form's fields). */
type FieldProps = { value: string; onChange: (v: string) => void; error?: string };

const TRIGGER_OPTIONS = [
  { label: "paid (orders/paid)", value: "orders/paid" },
  { label: "created (orders/create)", value: "orders/create" },
];

const UNCONNECTED_OPTIONS = [
  { label: "Hold the order until every line is connected", value: "hold" },
  { label: "Send the connected lines only; I ship the others", value: "connected" },
  {
    label: "Send every line; the service waits until the rest are connected",
    value: "send",
  },
];

const IOSS_OPTIONS = [
  { label: "No IOSS", value: "1" },
  { label: "My own IOSS number", value: "2" },
  { label: "The service's IOSS", value: "3" },
];

/** The warehouse mode: merchant logistics, and a withdrawn saved mode said to be withdrawn. */
function WarehouseModeSelect({ saved, field }: { saved: number; field: FieldProps }) {
  return (
    <Select
      label="Warehouse mode"
      name="shopLogisticsType"
      options={warehouseModeOptions(saved)}
      {...field}
      helpText={
        saved === 2
          ? WAREHOUSE_MODES_HIDDEN
          : `Your saved mode is not available, and orders are held until you choose Merchant logistics and save. ${WAREHOUSE_MODES_HIDDEN}`
      }
    />
  );
}

/** The platform warehouse's id, with its name as the service knows it. */
function StorageIdField({
  warehouse,
  field,
}: {
  warehouse: OrdersData["warehouse"];
  field: FieldProps;
}) {
  return (
    <TextField
      label="Warehouse id"
      name="storageId"
      autoComplete="off"
      {...field}
      helpText={
        warehouse
          ? warehouse.name
            ? `${warehouse.name} (${warehouse.country})`
            : "Not found at the service"
          : "Checked with the service when you save"
      }
    />
  );
}

/** The checkboxes' values as the form posts them ("true"/"false"). */
function CheckedValues({ values }: { values: Values }) {
  return (
    <>
      {CHECKS.map((k) => (
        <input key={k} type="hidden" name={k} value={values[k] ?? "false"} />
      ))}
    </>
  );
}

export function OrdersForm({ data, draft, refusal, onSave }: PartProps<Values, OrdersData>) {
  const s = draft.values;
  const { text, check } = fieldsOf(draft, refusal, ORDERS_INTENT);
  return (
    <PartForm
      intent={ORDERS_INTENT}
      dirty={draft.dirty}
      refusal={refusal}
      onSave={onSave}
      hidden={<CheckedValues values={s} />}
    >
      <Select
        label="Place an order at the service when the shop order is"
        name="trigger"
        options={TRIGGER_OPTIONS}
        {...text("trigger")}
      />
      <TextField
        label="Review window (minutes)"
        name="reviewWindowMinutes"
        type="number"
        autoComplete="off"
        helpText="Time to edit or cancel an order before it is placed. 0 places at once."
        {...text("reviewWindowMinutes")}
      />
      <Checkbox
        label="Hold orders Shopify rates as risky (fraud risk)"
        {...check("holdRiskyOrders")}
      />
      <Select
        label="Orders with lines not connected to a catalog product (your own stock)"
        name="unconnectedLines"
        options={UNCONNECTED_OPTIONS}
        {...text("unconnectedLines")}
      />
      <Checkbox label="Pause: place no new orders" {...check("paused")} />
      <Checkbox label="Pay orders automatically from the balance" {...check("autoPay")} />
      <FormLayout.Group>
        <TextField
          label="Hold payment of an order costing over (USD)"
          name="costCapUsd"
          autoComplete="off"
          inputMode="decimal"
          helpText="Items and shipping at the service. Empty: no cap."
          {...text("costCapUsd")}
        />
        <TextField
          label="…or leaving a margin under (%)"
          name="minMarginPct"
          autoComplete="off"
          inputMode="decimal"
          helpText="Of the shop order's total. Empty: no minimum."
          {...text("minMarginPct")}
        />
      </FormLayout.Group>
      <FormLayout.Group>
        <TextField
          label="Payment batch size (orders)"
          name="payBatchSize"
          type="number"
          autoComplete="off"
          {...text("payBatchSize")}
        />
        <TextField
          label="Payment batch window (seconds)"
          name="payBatchWindowSeconds"
          type="number"
          autoComplete="off"
          {...text("payBatchWindowSeconds")}
        />
      </FormLayout.Group>
      <ShipFromSelect
        list={data.warehouses}
        saved={data.settings.fromCountryCode}
        {...text("fromCountryCode")}
      />
      <WarehouseModeSelect
        saved={data.settings.shopLogisticsType}
        field={text("shopLogisticsType")}
      />
      {data.settings.shopLogisticsType === 1 ? (
        <StorageIdField warehouse={data.warehouse} field={text("storageId")} />
      ) : null}
      <FormLayout.Group>
        <Select label="IOSS" name="iossType" options={IOSS_OPTIONS} {...text("iossType")} />
        <TextField
          label="IOSS number"
          name="iossNumber"
          autoComplete="off"
          {...text("iossNumber")}
        />
      </FormLayout.Group>
      <Checkbox label="Notify the customer when tracking is added" {...check("notifyCustomer")} />
    </PartForm>
  );
}
