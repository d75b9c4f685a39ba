/**
 * The settings page's service-account actions: connect with an API key or by logging in at the
 * service, disconnect, register the webhooks again, and sandbox orders on or off. A refusal of
 * the account (AccountError) is answered by the page's dispatch (app/settings-forms/page.server.ts).
 */
import { z } from "zod";
import { settingsSchema } from "../settings.server";
import { parseForm } from "../page-kit/forms.server";
import { fail, saveFields, type SettingsIntentAction } from "../page-kit/settings-action.server";
import { connectWithApiKey, disconnect, registerWebhooks, startConnect } from "./account.server";

const apiKeyForm = z.object({
  apiKey: z
    .string()
    .trim()
    .min(8, "The API key is at least 8 characters")
    .max(200, "The API key is at most 200 characters")
    .regex(/^\S+$/, "The API key has no spaces"),
});

const sandboxForm = z.object({ sandbox: settingsSchema.shape.sandbox });

const connectKey: SettingsIntentAction = async (db, shop, form) => {
  const intent = "connect-key";
  const parsed = parseForm(apiKeyForm, form);
  if (!parsed.ok) return fail(intent, parsed.errors);
  const { webhookError } = await connectWithApiKey(db, shop, parsed.data.apiKey);
  return {
    ok: true,
    intent,
    message: "Connected to the service",
    warning: webhookError && `Webhooks are not registered: ${webhookError}`,
  };
};

/** The account's forms of the settings page, by intent. */
export const accountActions = {
  "connect-key": connectKey,
  "connect-oauth": async (db, shop, _form, opts) => {
    const url = await startConnect(db, shop, opts.sandbox);
    return { ok: true, intent: "connect-oauth", message: "Opening the service…", redirectTo: url };
  },
  disconnect: async (db, shop) => {
    await disconnect(db, shop);
    return { ok: true, intent: "disconnect", message: "Disconnected from the service" };
  },
  "register-webhooks": async (db, shop) => {
    await registerWebhooks(db, shop);
    return { ok: true, intent: "register-webhooks", message: "Webhooks registered" };
  },
  "set-sandbox": (db, shop, form) =>
    saveFields(db, shop, "set-sandbox", sandboxForm, form, (s) =>
      s.sandbox ? "Sandbox orders: on" : "Sandbox orders: off",
    ),
} satisfies Record<string, SettingsIntentAction>;
