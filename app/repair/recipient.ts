/**
 * The merchant's corrections of an order's recipient (issue 14), kept on the order
 * (ShopOrder.recipient) and laid over the shop's address whenever the order is placed; plus the
 * customs ids some destinations need (a tax id for BR, CL, MX, TR; a personal customs code for
 * KR), which Shopify addresses do not carry. Pure: no database, no service.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import type { ShippingAddress, ShopOrder } from "../shop/orders.server";
import type { CreateOrderV3Request } from "../svc/order-shapes";

const text = (max: number, label: string) =>
  z.string().trim().max(max, `${label}: at most ${max} characters`).optional();

export const recipientSchema = z
  .object({
    name: text(50, "Name"),
    address1: text(500, "Address"),
    address2: text(500, "Address line 2"),
    city: text(50, "City"),
    province: text(50, "Province or state"),
    zip: text(20, "Postal code"),
    countryCode: z
      .string()
      .trim()
      .toUpperCase()
      .regex(/^[A-Z]{2}$/, "Country: a two-letter code (BR, DE…)")
      .optional(),
    phone: z
      .string()
      .trim()
      .regex(/^\+?[\d\s().-]{4,25}$/, "Phone: digits, with an optional leading +")
      .optional(),
    email: z
      .string()
      .trim()
      .email("Email: not an address")
      .max(50, "Email: at most 50 characters")
      .optional(),
    taxId: text(20, "Tax id"),
    houseNumber: text(20, "House number"),
    consigneeID: text(20, "Customs code"),
  })
  // Empty fields mean "as in the shop".
  .transform((r) =>
    Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined && v !== "")),
  );

export type Recipient = Partial<Record<keyof z.input<typeof recipientSchema>, string>>;

export const RECIPIENT_FIELDS = [
  "name",
  "address1",
  "address2",
  "city",
  "province",
  "zip",
  "countryCode",
  "phone",
  "email",
  "taxId",
  "houseNumber",
  "consigneeID",
] as const;

/** The customs ids a destination needs, with the name its customs give them. */
export const CUSTOMS_IDS: Record<
  string,
  Partial<Record<"taxId" | "houseNumber" | "consigneeID", string>>
> = {
  BR: { taxId: "CPF or CNPJ", houseNumber: "house number" },
  CL: { taxId: "RUT" },
  MX: { taxId: "RFC" },
  TR: { taxId: "T.C. Kimlik No." },
  KR: { consigneeID: "Personal Customs Clearance Code (P + 12 digits)" },
};

/** The recipient stored on an order (tolerant of old or odd JSON: unknown keys dropped). */
export function storedRecipient(raw: unknown): Recipient {
  const r = recipientSchema.safeParse(raw ?? {});
  return r.success ? (r.data as Recipient) : {};
}

/** The shop order as it is placed: the merchant's corrections laid over the shop's address. */
export function withRecipient(o: ShopOrder, r: Recipient): ShopOrder {
  if (Object.keys(r).length === 0) return o;
  const a: ShippingAddress = o.shippingAddress ?? {
    firstName: null,
    lastName: null,
    company: null,
    address1: null,
    address2: null,
    city: null,
    province: null,
    provinceCode: null,
    zip: null,
    country: null,
    countryCode: null,
    phone: null,
  };
  const country = r.countryCode && r.countryCode !== a.countryCode;
  return {
    ...o,
    email: r.email ?? o.email,
    shippingAddress: {
      ...a,
      ...(r.name ? { firstName: r.name, lastName: null, company: null } : {}),
      ...(r.address1 !== undefined ? { address1: r.address1 } : {}),
      ...(r.address2 !== undefined ? { address2: r.address2 } : {}),
      ...(r.city !== undefined ? { city: r.city } : {}),
      ...(r.province !== undefined ? { province: r.province, provinceCode: null } : {}),
      ...(r.zip !== undefined ? { zip: r.zip } : {}),
      ...(r.countryCode
        ? { countryCode: r.countryCode, country: country ? r.countryCode : a.country }
        : {}),
      ...(r.phone !== undefined ? { phone: r.phone } : {}),
    },
  };
}

/** The customs ids of the corrections, added to the create request. */
export function withCustomsIds(req: CreateOrderV3Request, r: Recipient): CreateOrderV3Request {
  return {
    ...req,
    ...(r.taxId ? { taxId: r.taxId } : {}),
    ...(r.houseNumber ? { houseNumber: r.houseNumber } : {}),
    ...(r.consigneeID ? { consigneeID: r.consigneeID } : {}),
  };
}

const norm = (v: unknown) =>
  typeof v === "string" ? v.trim().toLowerCase().replace(/\s+/g, " ") : "";

/**
 * A fingerprint of a shipping address (name, street, city, province, zip, country), the same
 * from the Admin API's address and from a REST webhook's `shipping_address`.
 */
export function addressFingerprint(a: {
  firstName?: unknown;
  lastName?: unknown;
  address1?: unknown;
  address2?: unknown;
  city?: unknown;
  province?: unknown;
  zip?: unknown;
  countryCode?: unknown;
}): string {
  const parts = [
    a.firstName,
    a.lastName,
    a.address1,
    a.address2,
    a.city,
    a.province,
    a.zip,
    a.countryCode,
  ].map(norm);
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex");
}

/** The same fingerprint from a REST payload's shipping_address (snake_case). */
export function restAddressFingerprint(a: Record<string, unknown>): string {
  return addressFingerprint({
    firstName: a.first_name,
    lastName: a.last_name,
    address1: a.address1,
    address2: a.address2,
    city: a.city,
    province: a.province,
    zip: a.zip,
    countryCode: a.country_code,
  });
}
