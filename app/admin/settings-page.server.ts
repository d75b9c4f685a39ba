/**
 * The settings and onboarding page: what it shows (loader) and the forms it posts (action,
 * by `intent`). Every form is validated with zod and answers errors by field; an invalid post
 * changes nothing.
 */
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { recheckHeld, SETTINGS_CAUSES } from "../orders/recheck.server";
import { quoteFor } from "../shipping/quote.server";
import { checkShipFrom, listWarehouses, type WarehouseList } from "../shipping/warehouses.server";
import { deadlineText, PageDeadlineError, withinPageDeadline } from "../page-kit/page-reads.server";
import { EVERYWHERE, REGIONS, rulesSchema, type ShippingRule } from "../shipping/rules";
import type { FreightOption } from "../svc/orders.server";
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
} from "../svc-account/account.server";
import { type FieldErrors, formObject, parseForm } from "../page-kit/forms.server";
import { configuredMailer } from "../notify/mailer.server";
import { sendTestEmail } from "../notify/test-email.server";

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

function fail(intent: string, errors: FieldErrors): SettingsActionResult {
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

/** "EUR 1.0812" per line (also "EUR=1.0812"): USD per one unit; a clear error otherwise. */
export function parseRates(text: string): Record<string, string> | string {
  const out: Record<string, string> = {};
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length > 50) return "At most 50 rates";
  for (const line of lines) {
    const m = /^([A-Za-z]{3})\s*[=:\s]\s*(\d{1,6}(?:\.\d{1,8})?)$/.exec(line);
    if (!m || Number(m[2]) <= 0) {
      return `"${line.slice(0, 40)}" is not a rate: write the currency code and the USD for one unit, e.g. EUR 1.0812`;
    }
    const code = m[1]!.toUpperCase();
    if (code === "USD") return "USD needs no rate";
    if (out[code]) return `${code} is listed twice`;
    out[code] = m[2]!;
  }
  return out;
}

const quoteForm = z.object({
  from: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{2}$/, "A two-letter country code"),
  to: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{2}$/, "A two-letter country code"),
});

/** The rules from the form's JSON field, with errors keyed `shippingRules.<i>.<field>`. */
function parseRules(
  value: FormDataEntryValue | null,
): { ok: true; data: ShippingRule[] } | { ok: false; errors: FieldErrors } {
  let raw: unknown;
  try {
    raw = JSON.parse(typeof value === "string" ? value : "");
  } catch {
    return {
      ok: false,
      errors: { shippingRules: "The shipping rules could not be read: try again." },
    };
  }
  const parsed = rulesSchema.safeParse(raw);
  if (parsed.success) return { ok: true, data: parsed.data };
  const errors: FieldErrors = {};
  for (const issue of parsed.error.issues) {
    errors[["shippingRules", ...issue.path].join(".")] ??= issue.message;
  }
  return { ok: false, errors };
}

/** A country a rule's methods are checked against: its own, its region's first, or the US. */
function sampleDestination(to: string): string {
  if (to === EVERYWHERE) return "US";
  return REGIONS[to]?.countries[0] ?? to;
}

/**
 * The methods the service offers from one country to another for up to three of the shop's
 * matched variants (a stored quote when fresh), or a sentence saying why there is none.
 */
async function sampleQuote(
  db: PrismaClient,
  shop: string,
  from: string,
  to: string,
): Promise<FreightOption[] | string> {
  const account = await accountOf(db, shop);
  if (!account) return "Connect a service account first: the methods come from its freight quote.";
  const matched = await db.productConnection.findMany({
    where: { shopDomain: shop },
    select: { svcVid: true },
    orderBy: { createdAt: "asc" },
    take: 3,
  });
  if (matched.length === 0) {
    return "Match a product on the Products page first: the methods offered depend on the products.";
  }
  try {
    const q = await quoteFor(
      {
        prisma: db,
        svcFor: (id) => svcClientForAccount(id, { prisma: db, timeoutMs: 8000 }),
        clock: { now: Date.now },
      },
      account.id,
      {
        from,
        to: sampleDestination(to),
        products: matched.map((m) => ({ vid: m.svcVid, quantity: 1 })),
      },
    );
    return q.options;
  } catch (error) {
    return `The service gave no freight quote: ${describeSvcError(error)}`;
  }
}

/** Named methods and fallbacks the service does not offer on the rule's route (by field). */
async function checkOffered(
  db: PrismaClient,
  shop: string,
  rules: ShippingRule[],
): Promise<FieldErrors | null> {
  const errors: FieldErrors = {};
  for (const [i, r] of rules.entries()) {
    const names = [
      ...(r.strategy === "named" && r.method ? [["method", r.method] as const] : []),
      ...r.fallbacks.map((f) => ["fallbacks", f] as const),
    ];
    if (names.length === 0) continue;
    const dest = sampleDestination(r.to);
    const q = await sampleQuote(db, shop, r.from, r.to);
    if (typeof q === "string") {
      errors[`shippingRules.${i}.${names[0]![0]}`] = q;
      continue;
    }
    for (const [field, name] of names) {
      const key = `shippingRules.${i}.${field}`;
      if (errors[key] || q.some((o) => o.logisticName.toLowerCase() === name.toLowerCase()))
        continue;
      errors[key] =
        `${name} is not offered from ${r.from} to ${dest}. Offered: ${q.map((o) => o.logisticName).join(", ") || "nothing"}.`;
    }
  }
  return Object.keys(errors).length ? errors : null;
}

export { formObject };

/** The forms of settings the page's one save bar saves together, in this order. */
export const SAVE_INTENTS = [
  "save-settings",
  "save-shipping",
  "save-fx",
  "save-pricing",
  "save-notifications",
] as const;

/** What the save bar's Save did: each changed form saved, or refused with its fields' errors. */
export interface SaveAllResult {
  /** Every form sent was saved. */
  ok: boolean;
  intent: "save-all";
  /** The forms saved, said in the merchant's words ("Settings saved. Pricing saved: …"). */
  message: string;
  results: SettingsActionResult[];
}

const UNREADABLE = "The changes could not be read: reload the page and change them again.";

/**
 * The save bar's Save: `part` fields, each one form as it posts itself (URL-encoded, with its
 * own `intent`). Each form is validated and saved as if posted alone: one refused form changes
 * nothing of its own and does not stop the others. A post that is not such a list changes
 * nothing at all.
 */
export async function saveAllSettings(
  db: PrismaClient,
  shop: string,
  form: FormData,
  opts: { sandbox: boolean },
): Promise<SaveAllResult | SettingsActionResult> {
  const raw = form.getAll("part");
  if (raw.length === 0) return fail("save-all", { form: "Nothing to save: nothing was changed." });
  if (raw.length > SAVE_INTENTS.length) return fail("save-all", { form: UNREADABLE });
  const parts = new Map<string, FormData>();
  for (const value of raw) {
    if (typeof value !== "string") return fail("save-all", { form: UNREADABLE });
    const one = new FormData();
    for (const [k, v] of new URLSearchParams(value)) one.append(k, v);
    const intent = String(one.get("intent") ?? "");
    const known = (SAVE_INTENTS as readonly string[]).includes(intent);
    if (!known || parts.has(intent)) return fail("save-all", { form: UNREADABLE });
    parts.set(intent, one);
  }
  const results: SettingsActionResult[] = [];
  for (const intent of SAVE_INTENTS) {
    const one = parts.get(intent);
    if (one) results.push(await settingsAction(db, shop, one, opts));
  }
  const saved = results.filter((r) => r.ok).map((r) => (r.ok ? r.message : ""));
  return {
    ok: saved.length === results.length,
    intent: "save-all",
    message: saved.join(". "),
    results,
  };
}
