/**
 * The settings page's shipping form, on the shipping side: the chosen warehouse looked up and
 * checked at the service, the shipping rules parsed from the form, a sample quote for a route,
 * and the check that every rule's method is offered on its route. The form's UI is
 * app/shipping/ui/ShippingRules.tsx; the page composes it (app/settings-forms/page.server.ts).
 */
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { quoteFor } from "./quote.server";
import { EVERYWHERE, REGIONS, rulesSchema, type ShippingRule } from "./rules";
import type { FreightOption } from "../svc/logistics.server";
import type { ShopSettings } from "../settings.server";
import { svcClientForAccount, SvcNotFoundError, SvcParamError } from "../svc/index.server";
import { accountOf, describeSvcError } from "../svc-account/account.server";
import type { FieldErrors } from "../page-kit/forms.server";

/** The chosen warehouse's name and country, looked up with warehouse/detail (best effort). */
export async function warehouseOf(db: PrismaClient, shop: string, settings: ShopSettings) {
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

/** A warehouse id must exist at the service (warehouse/detail); null when it does. */
export async function checkWarehouse(
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

export const quoteForm = z.object({
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
export function parseRules(
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
export async function sampleQuote(
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
export async function checkOffered(
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
