/**
 * The settings and onboarding page: what it shows (loader) and the forms it posts (action,
 * by `intent`). Every form is validated with zod and answers errors by field; an invalid post
 * changes nothing.
 */
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { recheckHeld, SETTINGS_CAUSES } from "../orders/recheck.server";
import { checkShipFrom, listWarehouses, type WarehouseList } from "../shipping/warehouses.server";
import { deadlineText, PageDeadlineError, withinPageDeadline } from "../page-kit/page-reads.server";
import type { FreightOption } from "../svc/logistics.server";
import { type ShopSettings, getSettings, settingsSchema, updateSettings } from "../settings.server";
import {
  AccountError,
  accountStatus,
  balanceOf,
  connectWithApiKey,
  disconnect,
  registerWebhooks,
  startConnect,
} from "../svc-account/account.server";
import { type FieldErrors, formObject, parseForm } from "../page-kit/forms.server";
import { configuredMailer } from "../notify/mailer.server";
import { sendTestEmail } from "../notify/test-email.server";
import { parseRates } from "../fx/settings-form";
import {
  checkOffered,
  checkWarehouse,
  parseRules,
  quoteForm,
  sampleQuote,
  warehouseOf,
} from "../shipping/settings-form.server";

export { parseRates };

export type SettingsActionResult =
  | {
      ok: true;
      intent: string;
      message: string;
      warning?: string | null;
      redirectTo?: string;
      /** intent "quote": the methods offered for a destination. */
      quote?: { to: string; from: string; options: FreightOption[] };
    }
  | { ok: false; intent: string; errors: FieldErrors };

export async function settingsPageData(db: PrismaClient, shop: string) {
  const [settings, account, lastDigest] = await Promise.all([
    getSettings(db, shop),
    accountStatus(db, shop),
    db.noticeDigest.findFirst({
      where: { shopDomain: shop },
      orderBy: { createdAt: "desc" },
      select: { createdAt: true, sentAt: true, subject: true, notices: true, lastError: true },
    }),
  ]);
  // The page's service reads run together and the page waits for them a few seconds at most:
  // past that it shows what it knows and says what did not answer (a read goes on alone).
  const late = (what: string) => deadlineText(new PageDeadlineError(what));
  const [balance, warehouse, warehouses] = await Promise.all([
    account.connected
      ? withinPageDeadline(balanceOf(db, shop), "The service's balance").catch(() => ({
          amount: null,
          error: late("The service's balance"),
          outage: true,
        }))
      : null,
    withinPageDeadline(warehouseOf(db, shop, settings), "The service's warehouse").catch(() => ({
      id: settings.storageId,
      name: "",
      country: "",
      error: late("The service's warehouse"),
    })),
    withinPageDeadline(listWarehouses(db, shop), "The service's list of warehouses").catch(
      (): WarehouseList => ({ ok: false, reason: late("The service's list of warehouses") }),
    ),
  ]);
  return {
    settings,
    account,
    balance,
    warehouse,
    /** The ship-from choices (the service's global warehouses), or why they are not known. */
    warehouses,
    notifications: {
      /** SMTP_URL is set: emails can go out. */
      mailConfigured: configuredMailer() !== null,
      lastDigest: lastDigest
        ? {
            at: (lastDigest.sentAt ?? lastDigest.createdAt).toISOString(),
            sent: lastDigest.sentAt !== null,
            subject: lastDigest.subject,
            notices: lastDigest.notices,
            error: lastDigest.lastError,
          }
        : null,
    },
  };
}

/** The settings schema narrowed to one form's fields (each validated as the schema says). */
function fieldsOf<const K extends keyof ShopSettings>(fields: readonly K[]) {
  return settingsSchema.pick(
    Object.fromEntries(fields.map((k) => [k, true])) as { [P in K]: true },
  );
}

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

const notifyForm = fieldsOf(NOTIFY_FIELDS);

/** The pricing rule and the stock and price sync (catalog/pricing.ts, catalog/sync.server.ts). */
const PRICING_FIELDS = [
  "priceRule",
  "priceValue",
  "priceRounding",
  "compareAtPct",
  "repriceOnCostChange",
  "repriceThresholdPct",
  "stockSync",
  "stockCountries",
  "mainMarket",
] as const satisfies readonly (keyof ShopSettings)[];
const pricingForm = fieldsOf(PRICING_FIELDS).superRefine((s, ctx) => {
  if (s.priceRule === "multiplier" && (Number(s.priceValue) < 1 || Number(s.priceValue) > 100))
    ctx.addIssue({
      code: "custom",
      path: ["priceValue"],
      message: "A multiplier from 1 to 100, like 2.5",
    });
});

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

const settingsForm = fieldsOf(SETTINGS_FIELDS).superRefine((s, ctx) => {
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

/** "Settings saved; 2 held orders are checked again now". */
function saved(intent: string, what: string, rechecked: number): SettingsActionResult {
  const again = rechecked
    ? `; ${rechecked} held order${rechecked === 1 ? " is" : "s are"} checked again now`
    : "";
  return { ok: true, intent, message: `${what}${again}` };
}

export function fail(intent: string, errors: FieldErrors): SettingsActionResult {
  return { ok: false, intent, errors };
}

/** A form of settings fields only: validated, stored, and said in `message`. */
async function saveFields(
  db: PrismaClient,
  shop: string,
  intent: string,
  schema: z.ZodType<Partial<ShopSettings>>,
  form: FormData,
  message: (saved: ShopSettings) => string,
): Promise<SettingsActionResult> {
  const parsed = parseForm(schema, form);
  if (!parsed.ok) return fail(intent, parsed.errors);
  const r = await updateSettings(db, shop, parsed.data);
  if (!r.ok) return fail(intent, r.errors);
  return { ok: true, intent, message: message(r.settings) };
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
      case "set-sandbox":
        return saveFields(db, shop, intent, sandboxForm, form, (s) =>
          s.sandbox ? "Sandbox orders: on" : "Sandbox orders: off",
        );
      case "save-settings": {
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
      }
      case "save-shipping": {
        const rules = parseRules(form.get("shippingRules"));
        if (!rules.ok) return fail(intent, rules.errors);
        const offered = await checkOffered(db, shop, rules.data);
        if (offered) return fail(intent, offered);
        const r = await updateSettings(db, shop, { shippingRules: rules.data });
        if (!r.ok) return fail(intent, r.errors);
        return saved(
          intent,
          "Shipping rules saved",
          await recheckHeld(db, shop, SETTINGS_CAUSES, `shipping:${Date.now()}`),
        );
      }
      case "save-fx": {
        const rates = parseRates(String(form.get("fxRates") ?? ""));
        if (typeof rates === "string") return fail(intent, { fxRates: rates });
        const r = await updateSettings(db, shop, { fxRates: rates });
        if (!r.ok) return fail(intent, { fxRates: Object.values(r.errors)[0] ?? "Not saved" });
        return saved(
          intent,
          "Exchange rates saved",
          await recheckHeld(db, shop, ["no_fx_rate"], `fx:${Date.now()}`),
        );
      }
      case "save-notifications":
        return saveFields(db, shop, intent, notifyForm, form, () => "Notification settings saved");
      case "save-pricing":
        return saveFields(
          db,
          shop,
          intent,
          pricingForm,
          form,
          () => "Pricing saved: it applies to imports, and to re-pricing when a cost moves",
        );
      case "test-email": {
        const r = await sendTestEmail(db, shop);
        if (typeof r === "string") return fail(intent, { form: r });
        return { ok: true, intent, message: `Test email sent to ${r.join(", ")}` };
      }
      case "quote": {
        const parsed = parseForm(quoteForm, form);
        if (!parsed.ok) return fail(intent, parsed.errors);
        const q = await sampleQuote(db, shop, parsed.data.from, parsed.data.to);
        if (typeof q === "string") return fail(intent, { quote: q });
        return {
          ok: true,
          intent,
          message: `${q.length} method${q.length === 1 ? "" : "s"} offered from ${parsed.data.from} to ${parsed.data.to}`,
          quote: { ...parsed.data, options: q },
        };
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

export { formObject };
