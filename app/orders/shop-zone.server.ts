/** The shop's time zone, for the pages that show the shop's time (stored with the shop, read once). */
import type { PrismaClient } from "@prisma/client";
import { shopGatewayFor } from "../shop/index.server";
import { validZone } from "./shop-time";

/**
 * The shop's time zone as stored (no call to Shopify), for text written now and read later
 * (held reasons, emails); null when not known yet (the text then says UTC).
 */
export async function storedShopZone(
  db: Pick<PrismaClient, "shop">,
  shop: string,
): Promise<string | null> {
  const row = await db.shop.findUnique({ where: { domain: shop }, select: { ianaTimezone: true } });
  return row?.ianaTimezone ?? null;
}

/** Shops whose zone could not be read lately (no retry on every page load). */
const zoneMisses = new Map<string, number>();
const ZONE_RETRY_MS = 10 * 60_000;
/** A page waits at most this long for Shopify's answer (then shows UTC this time). */
const ZONE_WAIT_MS = 2_000;

/**
 * The shop's IANA time zone (Shopify's `shop.ianaTimezone`), stored with the shop; read from
 * Shopify once when not stored yet (`ask`, by default the shop's offline gateway). Null when
 * unknown: the pages then show UTC and say so.
 */
export async function shopTimeZone(
  db: PrismaClient,
  shop: string,
  ask: () => Promise<string> = async () => (await shopGatewayFor(shop)).timeZone(),
  now: number = Date.now(),
): Promise<string | null> {
  const stored = await storedShopZone(db, shop);
  if (stored) return stored;
  if (now - (zoneMisses.get(shop) ?? -Infinity) < ZONE_RETRY_MS) return null;
  try {
    const zone = await Promise.race([
      ask(),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error("no answer in time")), ZONE_WAIT_MS).unref(),
      ),
    ]);
    if (validZone(zone) !== zone) throw new Error("not a known time zone");
    await db.shop.upsert({
      where: { domain: shop },
      create: { domain: shop, ianaTimezone: zone },
      update: { ianaTimezone: zone },
    });
    zoneMisses.delete(shop);
    return zone;
  } catch {
    zoneMisses.set(shop, now);
    return null;
  }
}
