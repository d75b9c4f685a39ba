/**
 * Shopify ids as branded types, parsed once at the edge (webhook bodies, form posts, GraphQL
 * responses). A `ShopifyOrderGid` is always `gid://shopify/Order/<digits>`; the REST-style
 * numeric ids of webhook payloads convert with `orderGid(123)`.
 */

declare const brand: unique symbol;
type Brand<T, B extends string> = T & { readonly [brand]: B };

export type ShopDomain = Brand<string, "ShopDomain">;
export type ShopifyOrderGid = Brand<string, "ShopifyOrderGid">;
export type ShopifyLineItemGid = Brand<string, "ShopifyLineItemGid">;
export type ShopifyProductGid = Brand<string, "ShopifyProductGid">;
export type ShopifyVariantGid = Brand<string, "ShopifyVariantGid">;
export type ShopifyFulfillmentOrderGid = Brand<string, "ShopifyFulfillmentOrderGid">;
export type ShopifyFulfillmentOrderLineItemGid = Brand<
  string,
  "ShopifyFulfillmentOrderLineItemGid"
>;
export type ShopifyFulfillmentGid = Brand<string, "ShopifyFulfillmentGid">;

export class InvalidShopifyIdError extends Error {
  override name = "InvalidShopifyIdError";
  constructor(kind: string, value: unknown) {
    const shown = typeof value === "string" ? JSON.stringify(value.slice(0, 80)) : typeof value;
    super(`Not a Shopify ${kind} id: ${shown}`);
  }
}

const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;

/** A `*.myshopify.com` domain, lower-cased. */
export function parseShopDomain(value: unknown): ShopDomain {
  if (typeof value !== "string") throw new InvalidShopifyIdError("shop domain", value);
  const v = value.trim().toLowerCase();
  if (!SHOP_DOMAIN.test(v)) throw new InvalidShopifyIdError("shop domain", value);
  return v as ShopDomain;
}

function gidParser<T extends string>(resource: string) {
  const re = new RegExp(`^gid://shopify/${resource}/(\\d+)(\\?.*)?$`);
  const parse = (value: unknown): T => {
    if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) {
      return `gid://shopify/${resource}/${value}` as T;
    }
    if (typeof value === "string") {
      if (/^\d+$/.test(value)) return `gid://shopify/${resource}/${value}` as T;
      const m = re.exec(value);
      if (m) return `gid://shopify/${resource}/${m[1]}` as T;
    }
    throw new InvalidShopifyIdError(resource, value);
  };
  return parse;
}

/** Accepts a GID, or a numeric id (REST webhook payloads) as a number or a string. */
export const parseOrderGid = gidParser<ShopifyOrderGid>("Order");
export const parseLineItemGid = gidParser<ShopifyLineItemGid>("LineItem");
export const parseProductGid = gidParser<ShopifyProductGid>("Product");
export const parseVariantGid = gidParser<ShopifyVariantGid>("ProductVariant");
export const parseFulfillmentOrderGid = gidParser<ShopifyFulfillmentOrderGid>("FulfillmentOrder");
export const parseFulfillmentOrderLineItemGid = gidParser<ShopifyFulfillmentOrderLineItemGid>(
  "FulfillmentOrderLineItem",
);
export const parseFulfillmentGid = gidParser<ShopifyFulfillmentGid>("Fulfillment");

/** The numeric tail of a GID (`gid://shopify/Order/123` → `"123"`). */
export function legacyId(gid: string): string {
  const m = /\/(\d+)(\?.*)?$/.exec(gid);
  if (!m?.[1]) throw new InvalidShopifyIdError("GID", gid);
  return m[1];
}
