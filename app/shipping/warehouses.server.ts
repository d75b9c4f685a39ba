/**
 * The ship-from warehouses a merchant can choose in Settings: the service's global warehouse
 * list (GET /product/globalWarehouseList, Part 2 §4.3 and record §2.8), one entry per country
 * code (the value the orders send as `fromCountryCode`), disabled ones left out. A read that
 * fails says so in plain words; the page then keeps the saved value as it is.
 */
import type { PrismaClient } from "@prisma/client";
import { getSettings } from "../settings.server";
import { svcClientForAccount } from "../svc/client.server";
import type { GlobalWarehouse } from "../svc/catalog-shapes";

export interface Warehouse {
  /** Two-letter country code the orders ship from (`fromCountryCode`). */
  code: string;
  /** The warehouse's English name ("China Warehouse"). */
  name: string;
  /** The country's English name ("China"). */
  country: string;
}

export type WarehouseList = { ok: true; warehouses: Warehouse[] } | { ok: false; reason: string };

/** The service's records as choices: enabled, one per country code, by name. */
export function toWarehouses(records: GlobalWarehouse[]): Warehouse[] {
  const byCode = new Map<string, Warehouse>();
  for (const r of records) {
    if (r.disabled === true) continue;
    const code = (r.countryCode || r.valueEn || "").trim().toUpperCase();
    if (!/^[A-Z]{2}$/.test(code) || byCode.has(code)) continue;
    const country = r.nameEn?.trim() || code;
    byCode.set(code, { code, name: r.areaEn?.trim() || `${country} warehouse`, country });
  }
  return [...byCode.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** The warehouses of the shop's service account, or why they cannot be listed now. */
export async function listWarehouses(
  db: PrismaClient,
  shopDomain: string,
  opts: { timeoutMs?: number } = {},
): Promise<WarehouseList> {
  const account = await db.svcAccount.findUnique({
    where: { shopDomain },
    select: { id: true },
  });
  if (!account) {
    return {
      ok: false,
      reason: "Connect a service account to choose from the service's warehouses.",
    };
  }
  try {
    // A page waits for this: one attempt, bounded.
    const client = await svcClientForAccount(account.id, {
      prisma: db,
      timeoutMs: opts.timeoutMs ?? 5000,
      retry: { maxAttempts: 1 },
    });
    return { ok: true, warehouses: toWarehouses(await client.catalog.globalWarehouses()) };
  } catch {
    return {
      ok: false,
      reason: "The service did not give its list of warehouses just now. Try again later.",
    };
  }
}

/**
 * A ship-from country the merchant posts must be one the service lists, or the one already saved
 * (kept even when the service no longer lists it, or cannot be asked): an error, or null.
 */
export async function checkShipFrom(
  db: PrismaClient,
  shopDomain: string,
  code: string,
): Promise<string | null> {
  const saved = (await getSettings(db, shopDomain)).fromCountryCode;
  if (code === saved) return null;
  const list = await listWarehouses(db, shopDomain);
  if (!list.ok) return `${list.reason} Until then the saved warehouse is kept.`;
  return list.warehouses.some((w) => w.code === code)
    ? null
    : "Choose one of the service's warehouses from the list";
}
