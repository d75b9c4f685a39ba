/**
 * The merchant's corrections of a recipient, pure (app/repair/recipient.ts): what the Repair form
 * accepts and refuses (in the merchant's words), how corrections lie over the shop's address when
 * the order is placed, the customs ids added to the create request, and the address fingerprint
 * that is the same from the Admin API and from a REST webhook. The pipeline's use of them is in
 * test/fulfilment/repair-flow.test.ts.
 */
import { describe, expect, it } from "vitest";
import {
  CUSTOMS_IDS,
  RECIPIENT_FIELDS,
  addressFingerprint,
  recipientSchema,
  restAddressFingerprint,
  storedRecipient,
  withCustomsIds,
  withRecipient,
} from "../../app/repair/recipient";
import type { ShippingAddress, ShopOrder } from "../../app/shop/orders.server";
import type { CreateOrderV3Request } from "../../app/svc/order-shapes";

const issues = (r: Record<string, unknown>) => {
  const p = recipientSchema.safeParse(r);
  return p.success ? [] : p.error.issues.map((i) => [i.path.join("."), i.message]);
};

const address: ShippingAddress = {
  firstName: "Ana",
  lastName: "Lima",
  company: "Lima Ltda",
  address1: "Rua A 1",
  address2: "Apto 2",
  city: "São Paulo",
  province: "São Paulo",
  provinceCode: "SP",
  zip: "01000-000",
  country: "Brazil",
  countryCode: "BR",
  phone: "+55 11 1234 5678",
};
const order = (a: ShippingAddress | null = address): ShopOrder =>
  ({
    id: "gid://shopify/Order/1",
    name: "#1001",
    email: "ana@example.com",
    shippingAddress: a,
  }) as unknown as ShopOrder;

describe("the Repair form", () => {
  it("keeps only what was filled in, trimmed; the country upper-cased", () => {
    expect(
      recipientSchema.parse({
        name: "  Ana Lima ",
        address1: "",
        city: " Rio ",
        countryCode: " br ",
        phone: " +55 (21) 1234-5678 ",
        email: " ana@example.com ",
        taxId: "123",
        houseNumber: "",
        consigneeID: "P123456789012",
      }),
    ).toEqual({
      name: "Ana Lima",
      city: "Rio",
      countryCode: "BR",
      phone: "+55 (21) 1234-5678",
      email: "ana@example.com",
      taxId: "123",
      consigneeID: "P123456789012",
    });
    expect(recipientSchema.parse({ name: "   " })).toEqual({});
    expect(recipientSchema.parse({})).toEqual({});
  });

  it("refuses each field past its length, with the field's name and the limit", () => {
    const cases: Array<[string, number, string]> = [
      ["name", 50, "Name"],
      ["address1", 500, "Address"],
      ["address2", 500, "Address line 2"],
      ["city", 50, "City"],
      ["province", 50, "Province or state"],
      ["zip", 20, "Postal code"],
      ["taxId", 20, "Tax id"],
      ["houseNumber", 20, "House number"],
      ["consigneeID", 20, "Customs code"],
    ];
    for (const [field, max, label] of cases) {
      expect(issues({ [field]: "x".repeat(max) }), field).toEqual([]);
      expect(issues({ [field]: ` ${"x".repeat(max)} ` }), field).toEqual([]);
      expect(issues({ [field]: "x".repeat(max + 1) }), field).toEqual([
        [field, `${label}: at most ${max} characters`],
      ]);
    }
  });

  it("refuses a country, phone or email it cannot use, in plain words", () => {
    for (const bad of ["Brazil", "B", "BRA", "xBRx", "1A"])
      expect(issues({ countryCode: bad }), bad).toEqual([
        ["countryCode", "Country: a two-letter code (BR, DE…)"],
      ]);
    for (const good of ["+5511", "1234", "(11) 1234-5678", "+1 555.123.4567", "1".repeat(25)])
      expect(issues({ phone: good }), good).toEqual([]);
    for (const bad of ["123", "1".repeat(26), "call me", "x1234", "1234x", "++1234"])
      expect(issues({ phone: bad }), bad).toEqual([
        ["phone", "Phone: digits, with an optional leading +"],
      ]);
    expect(issues({ email: "not-an-address" })).toEqual([["email", "Email: not an address"]]);
    expect(issues({ email: `${"a".repeat(38)}@example.com` })).toEqual([]);
    expect(issues({ email: `${"a".repeat(39)}@example.com` })).toEqual([
      ["email", "Email: at most 50 characters"],
    ]);
  });

  it("lists every field, and the customs ids each destination needs", () => {
    expect([...RECIPIENT_FIELDS]).toEqual([
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
    ]);
    expect(CUSTOMS_IDS).toEqual({
      BR: { taxId: "CPF or CNPJ", houseNumber: "house number" },
      CL: { taxId: "RUT" },
      MX: { taxId: "RFC" },
      TR: { taxId: "T.C. Kimlik No." },
      KR: { consigneeID: "Personal Customs Clearance Code (P + 12 digits)" },
    });
  });

  it("reads a stored recipient leniently: unknown keys dropped, nothing from bad JSON", () => {
    expect(storedRecipient({ city: "Rio", junk: "x" })).toEqual({ city: "Rio" });
    expect(storedRecipient(null)).toEqual({});
    expect(storedRecipient(undefined)).toEqual({});
    expect(storedRecipient({ countryCode: "Brazil", city: "Rio" })).toEqual({});
    expect(storedRecipient("text")).toEqual({});
  });
});

describe("corrections over the shop's address", () => {
  it("no correction: the order as it is", () => {
    const o = order();
    expect(withRecipient(o, {})).toBe(o);
  });

  it("each corrected field replaces the shop's; the rest is kept", () => {
    const placed = withRecipient(order(), {
      address1: "Rua B 9",
      address2: "",
      city: "Rio",
      province: "Rio de Janeiro",
      zip: "20000-000",
      phone: "+55 21 0000 0000",
      email: "new@example.com",
    });
    expect(placed.email).toBe("new@example.com");
    expect(placed.name).toBe("#1001");
    expect(placed.shippingAddress).toEqual({
      ...address,
      address1: "Rua B 9",
      address2: "",
      city: "Rio",
      province: "Rio de Janeiro",
      provinceCode: null,
      zip: "20000-000",
      phone: "+55 21 0000 0000",
    });
  });

  it("a name replaces first name, last name and company", () => {
    expect(withRecipient(order(), { name: "Bia Souza" }).shippingAddress).toEqual({
      ...address,
      firstName: "Bia Souza",
      lastName: null,
      company: null,
    });
    expect(withRecipient(order(), { city: "Rio" }).email).toBe("ana@example.com");
  });

  it("a new country replaces the country's name with its code; the same country keeps the name", () => {
    expect(withRecipient(order(), { countryCode: "PT" }).shippingAddress).toMatchObject({
      countryCode: "PT",
      country: "PT",
    });
    expect(withRecipient(order(), { countryCode: "BR" }).shippingAddress).toMatchObject({
      countryCode: "BR",
      country: "Brazil",
    });
    expect(withRecipient(order(), { city: "Rio" }).shippingAddress).toMatchObject({
      countryCode: "BR",
      country: "Brazil",
      province: "São Paulo",
      provinceCode: "SP",
    });
  });

  it("an order with no address gets one from the corrections alone", () => {
    expect(
      withRecipient(order(null), { address1: "Rua C 3", countryCode: "BR" }).shippingAddress,
    ).toEqual({
      firstName: null,
      lastName: null,
      company: null,
      address1: "Rua C 3",
      address2: null,
      city: null,
      province: null,
      provinceCode: null,
      zip: null,
      country: "BR",
      countryCode: "BR",
      phone: null,
    });
  });

  it("customs ids go on the create request; absent ones are not sent", () => {
    const req = { orderNumber: "N1" } as unknown as CreateOrderV3Request;
    expect(withCustomsIds(req, {})).toEqual({ orderNumber: "N1" });
    expect(withCustomsIds(req, { taxId: "T", houseNumber: "12", consigneeID: "P1" })).toEqual({
      orderNumber: "N1",
      taxId: "T",
      houseNumber: "12",
      consigneeID: "P1",
    });
    expect(withCustomsIds(req, { taxId: "", city: "Rio" })).toEqual({ orderNumber: "N1" });
    expect(Object.keys(withCustomsIds(req, { houseNumber: "12" }))).toEqual([
      "orderNumber",
      "houseNumber",
    ]);
    expect(Object.keys(withCustomsIds(req, { consigneeID: "P1" }))).toEqual([
      "orderNumber",
      "consigneeID",
    ]);
  });
});

describe("the address fingerprint", () => {
  const admin = {
    firstName: "Ana",
    lastName: "Lima",
    address1: "Rua A 1",
    address2: "Apto 2",
    city: "São Paulo",
    province: "São Paulo",
    zip: "01000-000",
    countryCode: "BR",
  };
  const rest = {
    first_name: "Ana",
    last_name: "Lima",
    address1: "Rua A 1",
    address2: "Apto 2",
    city: "São Paulo",
    province: "São Paulo",
    zip: "01000-000",
    country_code: "BR",
  };

  it("is the same from the Admin API and from a webhook, whatever the case and spacing", () => {
    const f = addressFingerprint(admin);
    expect(f).toMatch(/^[0-9a-f]{64}$/);
    expect(restAddressFingerprint(rest)).toBe(f);
    expect(addressFingerprint({ ...admin, address1: "  RUA   a 1 ", city: "são\tpaulo" })).toBe(f);
    expect(addressFingerprint({ ...admin, phone: "1" } as typeof admin)).toBe(f);
  });

  it("changes with each part of the address", () => {
    const f = addressFingerprint(admin);
    const parts = Object.keys(admin) as Array<keyof typeof admin>;
    const seen = new Set([f]);
    for (const k of parts) {
      const g = addressFingerprint({ ...admin, [k]: "other" });
      expect(g, k).not.toBe(f);
      seen.add(g);
    }
    expect(seen.size).toBe(parts.length + 1);
    const restKeys = Object.keys(rest) as Array<keyof typeof rest>;
    for (const k of restKeys)
      expect(restAddressFingerprint({ ...rest, [k]: "other" }), k).not.toBe(f);
    // Missing and non-text parts count as empty; a part moved to another field is another address.
    expect(addressFingerprint({ ...admin, address2: undefined })).toBe(
      addressFingerprint({ ...admin, address2: "" }),
    );
    expect(addressFingerprint({ ...admin, address2: 7 })).toBe(
      addressFingerprint({ ...admin, address2: "" }),
    );
    expect(addressFingerprint({ ...admin, address1: "Apto 2", address2: "Rua A 1" })).not.toBe(f);
  });
});
