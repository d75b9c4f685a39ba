/**
 * Small pure helpers of the order: its service order number, texts cut to a length, numeric
 * Shopify ids (its states and reasons: app/orders/states.ts).
 */
import { createHash } from "node:crypto";

/**
 * The service orderNumber of a shop order: stable (a retry sends the same), ≤ 50 characters,
 * unique across the shops of one account (the shop's name and a hash of its domain).
 */
export function orderNumberFor(shopDomain: string, shopifyOrderId: string): string {
  const shop = shopDomain.replace(/\.myshopify\.com$/, "").replace(/[^a-z0-9-]/gi, "");
  const hash = createHash("sha256").update(shopDomain).digest("hex").slice(0, 6);
  const id = shopifyOrderId.replace(/\D/g, "").slice(-20);
  const head = `${shop.slice(0, 50 - id.length - hash.length - 2)}`;
  return `${head}-${hash}-${id}`.slice(0, 50);
}

/** Cuts a text to `max` characters without splitting a character; undefined when empty. */
export function cut(value: string | null | undefined, max: number): string | undefined {
  if (value == null) return undefined;
  const t = value.replace(/\s+/g, " ").trim();
  if (!t) return undefined;
  const chars = Array.from(t);
  return chars.length <= max ? t : chars.slice(0, max).join("").trim();
}

/** The numeric tail of a Shopify id (GID or number), as text. */
export function numericId(value: string | number | null | undefined): string | undefined {
  if (value == null) return undefined;
  const m = /(\d+)(\?.*)?$/.exec(String(value));
  return m?.[1];
}
