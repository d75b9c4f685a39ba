/**
 * The settings page's "Notifications" actions: where the emails go, what they tell and how
 * often (settings fields, validated by the settings schema), and a test email, which saves
 * nothing.
 */
import type { ShopSettings } from "../settings.server";
import {
  fail,
  saveFields,
  settingsFields,
  type SettingsIntentAction,
} from "../page-kit/settings-action.server";
import { sendTestEmail } from "./test-email.server";

/** The notification fields, each validated by the settings schema. */
const NOTIFY_FIELDS = [
  "notifyEmails",
  "notifyFailures",
  "notifyLowBalance",
  "notifyOutage",
  "notifyWebhooks",
  "notifyDisputes",
  "notifyHeldAfterMinutes",
  "notifyDigestMinutes",
  "lowBalanceUsd",
] as const satisfies readonly (keyof ShopSettings)[];

const notifyForm = settingsFields(NOTIFY_FIELDS);

/** The notification forms of the settings page, by intent. */
export const notifyActions = {
  "save-notifications": (db, shop, form) =>
    saveFields(
      db,
      shop,
      "save-notifications",
      notifyForm,
      form,
      () => "Notification settings saved",
    ),
  "test-email": async (db, shop) => {
    const r = await sendTestEmail(db, shop);
    if (typeof r === "string") return fail("test-email", { form: r });
    return { ok: true, intent: "test-email", message: `Test email sent to ${r.join(", ")}` };
  },
} satisfies Record<string, SettingsIntentAction>;
