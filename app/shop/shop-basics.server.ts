/**
 * The shop itself, as the app reads it: its currency and primary location (for importing
 * products and setting stock) and its IANA time zone (for the pages' dates). The documents are
 * in catalog-writes.documents.ts.
 */
import { z } from "zod";
import { SHOP_BASICS, SHOP_TIME_ZONE } from "./catalog-writes.documents";
import type { Call } from "./transport.server";

/** The shop's time zone (IANA name, e.g. "Europe/Paris"). */
export async function shopTimeZone(call: Call): Promise<string> {
  const data = await call(
    SHOP_TIME_ZONE,
    {},
    z.object({ shop: z.object({ ianaTimezone: z.string().min(1).max(100) }) }),
  );
  return data.shop.ianaTimezone;
}

export interface ShopBasics {
  currencyCode: string;
  locationId: string | null;
}

export async function shopBasics(call: Call): Promise<ShopBasics> {
  const data = await call(
    SHOP_BASICS,
    {},
    z.object({
      shop: z.object({ currencyCode: z.string() }),
      location: z.object({ id: z.string() }).nullable(),
    }),
  );
  return { currencyCode: data.shop.currencyCode, locationId: data.location?.id ?? null };
}
