/**
 * A shop's settings, kept as JSON on the Shop row and parsed with zod everywhere they are read
 * (the pipeline) or written (the settings form). Unknown keys are dropped; missing keys take
 * their defaults, so old rows keep working as settings are added.
 */
import { z } from "zod";
import { rowCache } from "./db/row-cache.server";
import type { Db } from "./db/types";
import { rulesSchema } from "./shipping/rules";

/** A boolean from JSON or a form ("true"/"false", "on"/"off", "1"/"0"); not z.coerce ("false" → true). */
const bool = z
  .union([z.boolean(), z.enum(["true", "false", "on", "off", "1", "0"])])
  .transform((v) => v === true || v === "true" || v === "on" || v === "1");

/** What placing does with an order that has lines without a catalog connection. */
export const UNCONNECTED_LINES = ["hold", "connected", "send"] as const;

/**
 * Warehouse modes (shopLogisticsType) 1 and 3 ship from a platform warehouse that starts work
 * only once the merchant uploads a shipping label after payment (uploadWaybillInfo), an
 * operation whose shape the contract does not show and this app does not have: such orders would
 * be paid and then wait for ever. The settings refuse them; a shop that still has one stored
 * gets no order placed or paid until it chooses merchant logistics (2).
 */
export const LABEL_WAREHOUSE_MODES: readonly number[] = [1, 3];

export const LABEL_MODE_REFUSED =
  "Not available yet: in this warehouse mode the warehouse waits, after payment, for a shipping label that this app cannot send, so orders would be paid and never shipped. Choose Merchant logistics.";

/** Why orders of a shop with these settings are not placed or paid, or null when they can be. */
export function labelModeReason(settings: Pick<ShopSettings, "shopLogisticsType">): string | null {
  if (!LABEL_WAREHOUSE_MODES.includes(settings.shopLogisticsType)) return null;
  return "The warehouse mode chosen in Settings needs a shipping label uploaded after payment, which this app cannot send yet, so the order would be paid and never shipped. Choose Merchant logistics in Settings → Orders and the order goes on.";
}

export const settingsSchema = z.object({
  /** Which shop webhook places the order at the service. */
  trigger: z.enum(["orders/create", "orders/paid"]).default("orders/paid"),
  /**
   * Orders with lines that have no catalog connection (own stock beside dropship lines): hold
   * the order until every line is connected, send only the connected lines (the merchant ships
   * the rest), or send every line (the service keeps the order among its invalid orders until
   * the rest are connected).
   */
  unconnectedLines: z
    .enum(UNCONNECTED_LINES, "Choose what happens to orders with lines that are not connected")
    .default("hold"),
  /** Minutes to wait after the trigger before placing (time to edit or cancel). */
  reviewWindowMinutes: z.coerce
    .number("Enter a number of minutes")
    .int("Whole minutes only")
    .min(0, "0 or more minutes")
    .max(7 * 24 * 60, "At most 10080 minutes (7 days)")
    .default(0),
  /** Hold orders whose Shopify risk recommendation is CANCEL or INVESTIGATE. */
  holdRiskyOrders: bool.default(true),
  /** Stop placing new orders (existing ones go on). */
  paused: bool.default(false),
  /** Orders go with isSandbox=1: nothing is charged. */
  sandbox: bool.default(false),
  /** Pay automatically from the balance. */
  autoPay: bool.default(true),
  payBatchSize: z.coerce
    .number("Enter a number of orders")
    .int("A whole number of orders")
    .min(1, "At least 1 order")
    .max(100, "At most 100 orders (the service's limit per batch)")
    .default(50),
  payBatchWindowSeconds: z.coerce
    .number("Enter a number of seconds")
    .int("Whole seconds only")
    .min(0, "0 or more seconds")
    .max(3600, "At most 3600 seconds (one hour)")
    .default(60),
  /**
   * Shipping rules (app/shipping/rules.ts): per destination, how the method is chosen from a
   * freight quote. Empty: the legacy single method below, if any; else orders wait for rules.
   */
  shippingRules: rulesSchema.default([]),
  /** Legacy: one service logistics name for every order (read as a default named rule). */
  logisticName: z.string().trim().max(50).default(""),
  fromCountryCode: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{2}$/, "a two-letter country code")
    .default("CN"),
  /** 1 platform logistics from storageId, 2 merchant logistics, 3 service-assigned warehouse. */
  shopLogisticsType: z.coerce.number().int().min(1).max(3).default(2),
  storageId: z.string().trim().max(40).default(""),
  /** 1 no IOSS, 2 own IOSS, 3 the service's IOSS. */
  iossType: z.coerce.number().int().min(1).max(3).default(1),
  iossNumber: z.string().trim().max(10).default(""),
  /**
   * The merchant's own exchange rates: USD per one unit of a currency ({"EUR": "1.08"}); they
   * win over the fetched ones (app/fx/rates.server.ts).
   */
  fxRates: z
    .record(
      z.string().regex(/^[A-Z]{3}$/, "a three-letter currency code"),
      z
        .string()
        .trim()
        .regex(/^\d{1,6}(\.\d{1,8})?$/, "a positive decimal (USD per unit)")
        .refine((v) => Number(v) > 0, "a positive decimal (USD per unit)"),
    )
    .default({}),
  /**
   * The cost guard (issue 16): automatic payment holds an order whose service cost (items and
   * shipping, USD) is over this cap; empty: no cap.
   */
  costCapUsd: z
    .string()
    .trim()
    .regex(/^(\d{1,7}(\.\d{1,2})?)?$/, "An amount in USD like 80 or 79.50, or empty")
    .default(""),
  /** …or that leaves less than this margin, in % of the shop total; empty: no minimum. */
  minMarginPct: z
    .string()
    .trim()
    .regex(/^(\d{1,2}(\.\d)?|100)?$/, "A percentage from 0 to 100 like 20 or 12.5, or empty")
    .default(""),
  /**
   * The pricing rule (app/catalog/pricing.ts) for imported variants and re-pricing: the
   * catalog cost (USD, turned into the shop's currency) times a multiplier, or plus a markup.
   */
  priceRule: z.enum(["multiplier", "markup"]).default("multiplier"),
  priceValue: z
    .string()
    .trim()
    .regex(/^\d{1,6}(\.\d{1,2})?$/, "A number like 2.5 (multiplier) or 9.99 (markup)")
    .default("2.5"),
  /** Prices end in .99 / .95 / .00 (rounded up to it), or are rounded to the cent. */
  priceRounding: z.enum(["none", "99", "95", "00"]).default("99"),
  /** Compare-at price this many % above the price; empty: none. */
  compareAtPct: z
    .string()
    .trim()
    .regex(/^(\d{1,3})?$/, "A whole percentage like 30, or empty")
    .default(""),
  /** When the catalog cost moves by at least repriceThresholdPct: re-price by the rule, or only flag. */
  repriceOnCostChange: z.enum(["apply", "flag"]).default("flag"),
  repriceThresholdPct: z
    .string()
    .trim()
    .regex(/^\d{1,2}(\.\d)?$/, "A percentage like 5 or 7.5")
    .default("5"),
  /** The country most orders go to: the Products page quotes shipping there. */
  mainMarket: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{2}$/, "a two-letter country code")
    .default("US"),
  /** Set the shop's inventory from the supplier's stock. */
  stockSync: bool.default(true),
  /** Warehouse countries whose stock counts (comma separated); empty: the ship-from country. */
  stockCountries: z
    .string()
    .trim()
    .toUpperCase()
    .regex(
      /^([A-Z]{2}(\s*,\s*[A-Z]{2})*)?$/,
      "Two-letter country codes separated by commas, like CN, US",
    )
    .default(""),
  /** Shopify emails the customer when tracking is written. */
  notifyCustomer: bool.default(true),
  /**
   * Who gets the merchant's notification emails (app/notify): up to five addresses, separated
   * by commas, spaces or new lines. Empty: no emails.
   */
  notifyEmails: z
    .string()
    .trim()
    .max(500, "At most 500 characters")
    .transform((v) => emailList(v))
    .refine((list) => list.length <= 5, "At most 5 addresses")
    .refine(
      (list) => list.every((a) => EMAIL.test(a)),
      "Enter email addresses like name@example.com, separated by commas",
    )
    .transform((list) => list.join(", "))
    .default(""),
  /** What the emails tell of (each can be turned off here or by the link in an email). */
  notifyFailures: bool.default(true),
  notifyLowBalance: bool.default(true),
  notifyOutage: bool.default(true),
  notifyWebhooks: bool.default(true),
  notifyDisputes: bool.default(true),
  /** A held order is told of once it has been held this long (a hold often clears itself). */
  notifyHeldAfterMinutes: z.coerce
    .number("Enter a number of minutes")
    .int("Whole minutes only")
    .min(0, "0 or more minutes")
    .max(7 * 24 * 60, "At most 10080 minutes (7 days)")
    .default(60),
  /** At most one email per this many minutes: everything new goes into one digest. */
  notifyDigestMinutes: z.coerce
    .number("Enter a number of minutes")
    .int("Whole minutes only")
    .min(5, "At least 5 minutes")
    .max(24 * 60, "At most 1440 minutes (a day)")
    .default(60),
  /** Warn (dashboard and email) when the balance is below this many USD; empty: no threshold. */
  lowBalanceUsd: z
    .string()
    .trim()
    .regex(/^(\d{1,7}(\.\d{1,2})?)?$/, "An amount in USD like 50 or 49.50, or empty")
    .default(""),
});

const EMAIL =
  /^[^\s@,;<>"]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** "a@x.com, b@y.com\nc@z.com" → the addresses, lower-cased, without repeats. */
export function emailList(v: string): string[] {
  const list = v
    .split(/[\s,;]+/)
    .map((a) => a.trim().toLowerCase())
    .filter(Boolean);
  return [...new Set(list)];
}

export type ShopSettings = z.infer<typeof settingsSchema>;

export const DEFAULT_SETTINGS: ShopSettings = settingsSchema.parse({});

/** A stored settings value, tolerant of old or partial JSON (falls back to defaults per key). */
export function parseSettings(raw: unknown): ShopSettings {
  const obj = raw && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(settingsSchema.shape) as (keyof ShopSettings)[]) {
    const one = settingsSchema.shape[key].safeParse(obj[key]);
    out[key] = one.success ? one.data : DEFAULT_SETTINGS[key];
  }
  return out as ShopSettings;
}

export async function getSettings(db: Db, shopDomain: string): Promise<ShopSettings> {
  const shop = await db.shop.findUnique({
    where: { domain: shopDomain },
    select: { settings: true },
  });
  return parseSettings(shop?.settings);
}

const forJobs = rowCache<ShopSettings>({ table: "Shop", byRowKey: true });

/**
 * A shop's settings as a job reads them: kept in this process while the row change feed is up
 * (app/db/row-cache.server.ts), so the pipeline does not read them at every step. Pages read
 * `getSettings`, which always asks the database. Each caller gets its own copy.
 */
export async function settingsForJob(db: Db, shopDomain: string): Promise<ShopSettings> {
  return structuredClone(await forJobs.get(shopDomain, () => getSettings(db, shopDomain)));
}

/** Validates a partial update; on success stores the merged settings and returns them. */
export async function updateSettings(
  db: Db,
  shopDomain: string,
  patch: Record<string, unknown>,
): Promise<{ ok: true; settings: ShopSettings } | { ok: false; errors: Record<string, string> }> {
  const current = await getSettings(db, shopDomain);
  const parsed = settingsSchema.safeParse({ ...current, ...patch });
  if (!parsed.success) {
    const errors: Record<string, string> = {};
    for (const issue of parsed.error.issues) errors[String(issue.path[0])] ??= issue.message;
    return { ok: false, errors };
  }
  // A mode the app cannot finish is never chosen (a stored one is left for the merchant to change).
  if (
    "shopLogisticsType" in patch &&
    LABEL_WAREHOUSE_MODES.includes(parsed.data.shopLogisticsType)
  ) {
    return { ok: false, errors: { shopLogisticsType: LABEL_MODE_REFUSED } };
  }
  await db.shop.upsert({
    where: { domain: shopDomain },
    create: { domain: shopDomain, settings: parsed.data },
    update: { settings: parsed.data },
  });
  // This process's jobs read the new settings at once (other processes when the change is heard).
  forJobs.changed(shopDomain);
  return { ok: true, settings: parsed.data };
}
