/**
 * The settings page's "Orders and payment" form, saved: when orders are placed, what is held,
 * how they are paid and where they ship from. The warehouse and the ship-from country are
 * checked at the service first; held orders are checked again once it is saved.
 */
import { type ShopSettings, updateSettings } from "../settings.server";
import { recheckHeld, SETTINGS_CAUSES } from "../orders/recheck.server";
import { parseForm } from "../page-kit/forms.server";
import {
  fail,
  saved,
  settingsFields,
  type SettingsIntentAction,
} from "../page-kit/settings-action.server";
import { checkWarehouse } from "../shipping/settings-form.server";
import { checkShipFrom } from "../shipping/warehouses.server";

/** The fields of the settings form, each validated by the settings schema. */
const SETTINGS_FIELDS = [
  "trigger",
  "reviewWindowMinutes",
  "holdRiskyOrders",
  "unconnectedLines",
  "autoPay",
  "payBatchSize",
  "payBatchWindowSeconds",
  "fromCountryCode",
  "shopLogisticsType",
  "storageId",
  "iossType",
  "iossNumber",
  "notifyCustomer",
  "paused",
  "costCapUsd",
  "minMarginPct",
] as const satisfies readonly (keyof ShopSettings)[];

const settingsForm = settingsFields(SETTINGS_FIELDS).superRefine((s, ctx) => {
  if (s.shopLogisticsType === 1 && !s.storageId) {
    ctx.addIssue({
      code: "custom",
      path: ["storageId"],
      message: "Platform logistics ship from a warehouse: enter its id",
    });
  }
  if (s.iossType === 2 && !/^IM\d{10}$/.test(s.iossNumber)) {
    ctx.addIssue({
      code: "custom",
      path: ["iossNumber"],
      message: "Your own IOSS needs its number (IM followed by 10 digits)",
    });
  }
});

const saveOrdersSettings: SettingsIntentAction = async (db, shop, form) => {
  const intent = "save-settings";
  const parsed = parseForm(settingsForm, form);
  if (!parsed.ok) return fail(intent, parsed.errors);
  const warehouseError = await checkWarehouse(db, shop, parsed.data.storageId);
  if (warehouseError) return fail(intent, { storageId: warehouseError });
  const shipFromError = await checkShipFrom(db, shop, parsed.data.fromCountryCode);
  if (shipFromError) return fail(intent, { fromCountryCode: shipFromError });
  const r = await updateSettings(db, shop, parsed.data);
  if (!r.ok) return fail(intent, r.errors);
  return saved(
    intent,
    "Settings saved",
    await recheckHeld(db, shop, SETTINGS_CAUSES, `settings:${Date.now()}`),
  );
};

/** The "Orders and payment" form of the settings page, by intent. */
export const ordersActions = {
  "save-settings": saveOrdersSettings,
} satisfies Record<string, SettingsIntentAction>;
