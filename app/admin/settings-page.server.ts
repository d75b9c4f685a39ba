/**
 * The settings and onboarding page: what it shows (loader) and the forms it posts (action,
 * by `intent`). Every form is validated with zod and answers errors by field; an invalid post
 * changes nothing.
 */
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { type ShopSettings, getSettings, settingsSchema, updateSettings } from "../settings.server";
import { svcClientForAccount, SvcNotFoundError, SvcParamError } from "../svc/index.server";
import {
  AccountError,
  accountOf,
  accountStatus,
  balanceOf,
  connectWithApiKey,
  describeSvcError,
  disconnect,
  registerWebhooks,
  startConnect,
} from "./account.server";
import { type FieldErrors, formObject, parseForm } from "./forms.server";

export type SettingsActionResult =
  | { ok: true; intent: string; message: string; warning?: string | null; redirectTo?: string }
  | { ok: false; intent: string; errors: FieldErrors };

export async function settingsPageData(db: PrismaClient, shop: string) {
  const [settings, account] = await Promise.all([getSettings(db, shop), accountStatus(db, shop)]);
  const balance = account.connected ? await balanceOf(db, shop) : null;
  return { settings, account, balance, warehouse: await warehouseOf(db, shop, settings) };
}

/** The chosen warehouse's name and country, looked up with warehouse/detail (best effort). */
async function warehouseOf(db: PrismaClient, shop: string, settings: ShopSettings) {
  if (!settings.storageId) return null;
  const account = await accountOf(db, shop);
  if (!account) return null;
  try {
    const client = await svcClientForAccount(account.id, { prisma: db, timeoutMs: 8000 });
    const w = await client.warehouses.detail(settings.storageId);
    return { id: settings.storageId, name: w.name ?? "", country: w.areaCountryCode ?? "" };
  } catch (error) {
    return { id: settings.storageId, name: "", country: "", error: describeSvcError(error) };
  }
}

const apiKeyForm = z.object({
  apiKey: z
    .string()
    .trim()
    .min(8, "The API key is at least 8 characters")
    .max(200, "The API key is at most 200 characters")
    .regex(/^\S+$/, "The API key has no spaces"),
});

const sandboxForm = z.object({ sandbox: settingsSchema.shape.sandbox });

/** The fields of the settings form, each validated by the settings schema. */
const SETTINGS_FIELDS = [
  "trigger",
  "reviewWindowMinutes",
  "holdRiskyOrders",
  "autoPay",
  "payBatchSize",
  "payBatchWindowSeconds",
  "logisticName",
  "fromCountryCode",
  "shopLogisticsType",
  "storageId",
  "iossType",
  "iossNumber",
  "notifyCustomer",
  "paused",
] as const satisfies readonly (keyof ShopSettings)[];

const settingsForm = settingsSchema
  .pick(
    Object.fromEntries(SETTINGS_FIELDS.map((k) => [k, true])) as Record<
      (typeof SETTINGS_FIELDS)[number],
      true
    >,
  )
  .superRefine((s, ctx) => {
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

function fail(intent: string, errors: FieldErrors): SettingsActionResult {
  return { ok: false, intent, errors };
}

export async function settingsAction(
  db: PrismaClient,
  shop: string,
  form: FormData,
  opts: { sandbox: boolean },
): Promise<SettingsActionResult> {
  const intent = String(form.get("intent") ?? "");
  try {
    switch (intent) {
      case "connect-key": {
        const parsed = parseForm(apiKeyForm, form);
        if (!parsed.ok) return fail(intent, parsed.errors);
        const { webhookError } = await connectWithApiKey(db, shop, parsed.data.apiKey);
        return {
          ok: true,
          intent,
          message: "Connected to the service",
          warning: webhookError && `Webhooks are not registered: ${webhookError}`,
        };
      }
      case "connect-oauth": {
        const url = await startConnect(db, shop, opts.sandbox);
        return { ok: true, intent, message: "Opening the service…", redirectTo: url };
      }
      case "disconnect":
        await disconnect(db, shop);
        return { ok: true, intent, message: "Disconnected from the service" };
      case "register-webhooks":
        await registerWebhooks(db, shop);
        return { ok: true, intent, message: "Webhooks registered" };
      case "set-sandbox": {
        const parsed = parseForm(sandboxForm, form);
        if (!parsed.ok) return fail(intent, parsed.errors);
        const r = await updateSettings(db, shop, parsed.data);
        if (!r.ok) return fail(intent, r.errors);
        return {
          ok: true,
          intent,
          message: r.settings.sandbox ? "Sandbox orders: on" : "Sandbox orders: off",
        };
      }
      case "save-settings": {
        const parsed = parseForm(settingsForm, form);
        if (!parsed.ok) return fail(intent, parsed.errors);
        const warehouseError = await checkWarehouse(db, shop, parsed.data.storageId);
        if (warehouseError) return fail(intent, { storageId: warehouseError });
        const r = await updateSettings(db, shop, parsed.data);
        if (!r.ok) return fail(intent, r.errors);
        return { ok: true, intent, message: "Settings saved" };
      }
      default:
        return fail(intent, { form: `Unknown action "${intent.slice(0, 40)}"` });
    }
  } catch (error) {
    if (error instanceof AccountError)
      return fail(intent, { [error.field ?? "form"]: error.message });
    throw error;
  }
}

/** A warehouse id must exist at the service (warehouse/detail); null when it does. */
async function checkWarehouse(
  db: PrismaClient,
  shop: string,
  storageId: string,
): Promise<string | null> {
  if (!storageId) return null;
  const account = await accountOf(db, shop);
  if (!account) return "Connect a service account before choosing a warehouse";
  try {
    const client = await svcClientForAccount(account.id, { prisma: db, timeoutMs: 8000 });
    await client.warehouses.detail(storageId);
    return null;
  } catch (error) {
    if (error instanceof SvcNotFoundError || error instanceof SvcParamError) {
      return "The service knows no warehouse with this id";
    }
    return `The warehouse could not be checked: ${describeSvcError(error)}`;
  }
}

export { formObject };
