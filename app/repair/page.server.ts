/**
 * The order page's Repair card: what it shows (the address as it will be sent, the merchant's
 * corrections, the customs ids the destination needs, the methods offered for the order's route
 * with price and days, the service orders it replaced) and its two actions.
 */
import type { PrismaClient } from "@prisma/client";
import { describeSvcError } from "../svc-account/account.server";
import { productionDeps } from "../orders/deps.server";
import { PAID_STATES } from "../orders/states";
import { quoteFor } from "../shipping/quote.server";
import { getSettings } from "../settings.server";
import { ruleFor } from "../shipping/rules";
import { shopGatewayFor } from "../shop/index.server";
import { parseOrderGid } from "../shop/ids";
import { CUSTOMS_IDS, RECIPIENT_FIELDS, storedRecipient, withRecipient } from "./recipient";
import { repairOrder } from "./repair.server";

export async function repairCardData(db: PrismaClient, shop: string, orderId: string) {
  const o = await db.shopOrder.findUnique({
    where: { id: orderId },
    include: { lines: true, replaced: { orderBy: { createdAt: "asc" } } },
  });
  if (!o || o.shopDomain !== shop) return null;
  const replaced = o.replaced.map((r) => ({
    svcOrderId: r.svcOrderId,
    orderNumber: r.orderNumber,
    reason: r.reason,
    at: r.createdAt.toISOString(),
  }));
  const repairable =
    !PAID_STATES.includes(o.state as never) && !["CANCELLED", "PAYING"].includes(o.state);
  if (!repairable) return { repairable, replaced };
  const corrections = storedRecipient(o.recipient);
  let address: Record<string, string> = {};
  let addressError: string | null = null;
  try {
    const fetched = await (await shopGatewayFor(shop)).getOrder(parseOrderGid(o.shopifyOrderId));
    const merged = fetched ? withRecipient(fetched, corrections) : null;
    const a = merged?.shippingAddress;
    if (a) {
      address = {
        name: [a.firstName, a.lastName].filter(Boolean).join(" "),
        address1: a.address1 ?? "",
        address2: a.address2 ?? "",
        city: a.city ?? "",
        province: a.province ?? "",
        zip: a.zip ?? "",
        countryCode: a.countryCode ?? "",
        phone: a.phone ?? "",
        email: merged?.email ?? "",
      };
    }
  } catch {
    addressError = "The shop's address could not be read now; corrections can still be entered.";
  }
  for (const k of RECIPIENT_FIELDS) if (corrections[k] && !address[k]) address[k] = corrections[k]!;
  const country = (address.countryCode || "").toUpperCase();
  const methods = await methodsFor(db, o, country);
  return {
    repairable,
    replaced,
    address,
    addressError,
    customs: CUSTOMS_IDS[country] ?? {},
    country,
    methods,
    current: o.logisticName,
    atService: Boolean(o.svcOrderId || o.placedAt),
    addressChanged: o.flag === "address_changed",
  };
}

async function methodsFor(
  db: PrismaClient,
  o: {
    svcAccountId: string | null;
    shopDomain: string;
    lines: { svcVid: string | null; quantity: number }[];
  },
  country: string,
): Promise<{
  options: {
    logisticName: string;
    priceUsd: string;
    minDays: number | null;
    maxDays: number | null;
  }[];
  error: string | null;
}> {
  const account = o.svcAccountId
    ? { id: o.svcAccountId }
    : await db.svcAccount.findUnique({ where: { shopDomain: o.shopDomain }, select: { id: true } });
  const products = o.lines.flatMap((l) =>
    l.svcVid ? [{ vid: l.svcVid, quantity: l.quantity }] : [],
  );
  // The real reason there is no quote, in the merchant's words.
  if (!account) {
    return { options: [], error: "No quote: connect a service account in Settings first." };
  }
  if (o.lines.length === 0) {
    return {
      options: [],
      error: "No quote yet: the order's products are looked up when it is placed.",
    };
  }
  if (products.length === 0) {
    return {
      options: [],
      error: "No quote: no product of this order is matched to the catalog (see Products).",
    };
  }
  if (!/^[A-Z]{2}$/.test(country)) {
    return { options: [], error: "No quote: enter the two-letter country code (like US or DE)." };
  }
  const settings = await getSettings(db, o.shopDomain);
  const from = ruleFor(settings.shippingRules, country)?.from ?? settings.fromCountryCode;
  try {
    const deps = await productionDeps(db);
    const q = await quoteFor(deps, account.id, { from, to: country, products });
    return { options: q.options, error: null };
  } catch (error) {
    return { options: [], error: `No quote: ${describeSvcError(error)}` };
  }
}

export type RepairActionResult =
  | { ok: true; intent: string; message: string }
  | { ok: false; intent: string; errors: Record<string, string> };

export async function repairAction(
  db: PrismaClient,
  shop: string,
  orderId: string,
  form: FormData,
): Promise<RepairActionResult> {
  const intent = String(form.get("intent"));
  const deps = await productionDeps(db);
  const input =
    intent === "repair-shop-address"
      ? { useShopAddress: true }
      : {
          recipient: await editedRecipient(db, orderId, form),
          logisticName: String(form.get("logisticName") ?? "").trim() || undefined,
        };
  const r = await repairOrder(deps, orderId, input, { shopDomain: shop });
  if (r.ok) return { ok: true, intent, message: r.message };
  return { ok: false, intent, errors: { form: r.error, ...(r.errors ?? {}) } };
}

/**
 * The corrections after an edit: the stored ones, with each field the merchant changed on the
 * form (its value differs from the one shown, sent along as `orig_<field>`).
 */
async function editedRecipient(db: PrismaClient, orderId: string, form: FormData) {
  const o = await db.shopOrder.findUnique({ where: { id: orderId }, select: { recipient: true } });
  const out: Record<string, string> = { ...storedRecipient(o?.recipient) };
  for (const k of RECIPIENT_FIELDS) {
    const value = form.get(k);
    if (typeof value !== "string") continue;
    if (value.trim() !== String(form.get(`orig_${k}`) ?? "").trim()) out[k] = value.trim();
  }
  return out;
}
