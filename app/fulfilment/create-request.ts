/**
 * The store-flow V3 create request of one shop order, and the checks of its address that come
 * before it (split out of the place step, app/fulfilment/place/index.server.ts; pure: no database, no service). Nothing is made up:
 * a province the address lacks stays empty (the order is held where the destination needs one,
 * see app/shipping/destinations.ts), and IOSS goes only to EU destinations.
 */
import type { ShopOrder as OrderRow, ShopOrderLine as LineRow } from "@prisma/client";
import type { ShopSettings } from "../settings.server";
import { isEuMember, requiredSubdivision } from "../shipping/destinations";
import type { ShopOrder as ShopifyOrder } from "../shop/gateway.server";
import type { WithheldData } from "../shop/orders.server";
import type { CreateOrderV3Request, OrderLine } from "../svc/order-shapes";
import { cut } from "../orders/model";

function recipientName(a: NonNullable<ShopifyOrder["shippingAddress"]>): string {
  return [a.firstName, a.lastName].filter((x) => x && x.trim()).join(" ") || (a.company ?? "");
}

/**
 * Why the order is held when Shopify withholds protected customer data from the app (names the
 * missing access and the fix; no customer data in it).
 */
export function protectedDataMessage(withheld: WithheldData[]): string {
  const what = withheld.map((w) => (w === "name" ? "name" : "address")).join(" and ");
  return (
    `Shopify withholds the customer's ${what} from this app: the app's protected customer data access ` +
    "(level 2: name, email, phone, address) has not been granted. The app owner requests it in the " +
    "Partner Dashboard → API access → Protected customer data (select name, email, phone and address, " +
    "give the reasons, and for a public app submit it for review); once granted, the order goes on by " +
    "itself, or press Retry."
  );
}

/** Required shipping fields of the contract that the shop order lacks (names of fields, no data). */
export function missingShipping(o: ShopifyOrder): string[] {
  const a = o.shippingAddress;
  if (!a) return ["the whole shipping address"];
  const missing: string[] = [];
  if (!recipientName(a).trim()) missing.push("recipient name");
  if (!a.address1?.trim() && !a.address2?.trim()) missing.push("street address");
  if (!a.city?.trim()) missing.push("city");
  if (!a.countryCode || !/^[A-Za-z]{2}$/.test(a.countryCode)) missing.push("country code");
  if (!a.country?.trim() && !a.countryCode) missing.push("country");
  return missing;
}

/** The country's name in English ("United States"), or its code when unknown. */
function countryName(code: string): string {
  try {
    return new Intl.DisplayNames(["en"], { type: "region" }).of(code) ?? code;
  } catch {
    return code;
  }
}

/**
 * Why the order cannot go when its destination needs a state or province and the address has
 * none (a sentence for the merchant), or null.
 */
export function missingProvince(o: ShopifyOrder): string | null {
  const a = o.shippingAddress;
  const code = a?.countryCode?.trim().toUpperCase();
  const word = requiredSubdivision(code);
  if (!a || !code || !word || a.province?.trim() || a.provinceCode?.trim()) return null;
  return `The shipping address has no ${word}, and addresses in ${countryName(code)} need one. Add it to the address in the shop or with Repair, then Retry.`;
}

export function buildCreateRequest(
  order: Pick<OrderRow, "orderNumber">,
  shopOrder: ShopifyOrder,
  lines: LineRow[],
  settings: ShopSettings,
  nowMs: number,
): CreateOrderV3Request {
  const a = shopOrder.shippingAddress!;
  const street = a.address1?.trim() ? a.address1 : (a.address2 ?? "");
  const street2 = a.address1?.trim() ? a.address2 : null;
  const phone = a.phone ? a.phone.replace(/[^\d+]/g, "").slice(0, 20) : undefined;
  const email = shopOrder.email && shopOrder.email.length <= 50 ? shopOrder.email : undefined;
  const created = Date.parse(shopOrder.createdAt);
  const products: OrderLine[] = lines.map((l) => ({
    vid: cut(l.shopifyVariantId ?? l.svcVid ?? undefined, 50),
    ...(l.shopifyVariantId ? {} : { sku: cut(l.sku, 50) }),
    storeProductId: cut(l.shopifyProductId, 64),
    storeProductImg: l.image && l.image.length <= 500 ? l.image : undefined,
    storeLineItemId: cut(l.shopifyLineItemId, 125),
    storeProductName: cut(l.title, 500),
    storeSku: cut(l.sku, 60),
    variantOptions: cut(l.variantOptions, 200),
    quantity: l.quantity,
    unitPrice: l.unitPrice,
  }));
  return {
    orderNumber: order.orderNumber,
    orderFlow: 2,
    shippingCustomerName: cut(recipientName(a), 50)!,
    shippingAddress: cut(street, 500)!,
    shippingAddress2: cut(street2, 500),
    shippingCity: cut(a.city, 50)!,
    // Never the city: an address without a province goes without one (held before this where
    // the destination needs one).
    shippingProvince: cut(a.province || a.provinceCode, 50),
    shippingCountryCode: a.countryCode!.toUpperCase(),
    shippingCountry: cut(a.country || a.countryCode, 50)!,
    shippingZip: cut(a.zip, 20),
    shippingPhone: phone || undefined,
    email,
    logisticName: settings.logisticName,
    fromCountryCode: settings.fromCountryCode,
    shopLogisticsType: settings.shopLogisticsType as 1 | 2 | 3,
    ...(settings.shopLogisticsType === 1 && settings.storageId
      ? { storageId: settings.storageId }
      : {}),
    // IOSS is the EU's import scheme: other destinations go without it.
    ...(isEuMember(a.countryCode)
      ? {
          iossType: settings.iossType as 1 | 2 | 3,
          ...(settings.iossNumber ? { iossNumber: settings.iossNumber } : {}),
        }
      : { iossType: 1 as const }),
    storeOrderTime: Math.floor(Math.min(Number.isNaN(created) ? nowMs : created, nowMs) / 1000),
    isSandbox: settings.sandbox ? 1 : 0,
    platform: "Shopify",
    products,
  };
}
