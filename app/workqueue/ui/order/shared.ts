/** The order page's data as its cards see it (the loader's JSON), and the little helpers they share. */
import type { SerializeFrom } from "@remix-run/node";
import type { disputesOfOrder } from "../../../disputes/page.server";
import { validZone } from "../../../orders/shop-time";
import type { OrderDetail } from "../../order-detail.server";

export type { OrderDetail };

/** Proof of delivery and warehouse photos from the app's archive, with the copies under way. */
export interface ArchivedFilesView {
  files: { id: string; purpose: string; video: boolean; image: boolean; url: string }[];
  copying: number;
  failed: string[];
}

/** The order's disputes, newest first. */
export type OrderDisputes = SerializeFrom<typeof disputesOfOrder>;

/** The zone's name as the merchant reads it ("Europe/Paris"; UTC when the shop's is unknown). */
export function zoneName(timeZone: string | null): string {
  return validZone(timeZone).replace(/_/g, " ");
}

/** The parts that are there, joined by a middle dot ("code X · request Y"). */
export function dotted(parts: Array<string | null | undefined | false>): string {
  return parts.filter(Boolean).join(" · ");
}
