/**
 * The store-flow V3 create request of a shop order (app/fulfilment/create-request.ts), as pure
 * functions: the whole request the service receives (orderFlow 2, the shop's product and line
 * ids on every line), the contract's lengths, the fallbacks of the address (never a made-up
 * province), IOSS only to the EU, the warehouse only in its mode; and the checks that hold an
 * order before it (missing fields, a missing state or province, protected data withheld).
 */
import type { ShopOrderLine as LineRow } from "@prisma/client";
import { describe, expect, it } from "vitest";
import {
  buildCreateRequest,
  missingProvince,
  missingShipping,
  protectedDataMessage,
} from "../../app/fulfilment/create-request";
import type { ShopSettings } from "../../app/settings.server";
import type { ShippingAddress, ShopOrder } from "../../app/shop/orders.server";

const NOW = Date.parse("2026-02-01T00:00:00.000Z");

const address = (o: Partial<ShippingAddress> = {}): ShippingAddress => ({
  firstName: "Ada",
  lastName: "Lovelace",
  company: null,
  address1: "1 Main St",
  address2: null,
  city: "Springfield",
  province: "Illinois",
  provinceCode: "IL",
  zip: "62701",
  country: "United States",
  countryCode: "US",
  phone: null,
  ...o,
});

const order = (o: Partial<ShopOrder> = {}): ShopOrder =>
  ({
    id: "gid://shopify/Order/1",
    name: "#1001",
    email: "ada@example.com",
    createdAt: "2026-01-01T00:00:00.000Z",
    cancelledAt: null,
    currencyCode: "USD",
    financialStatus: "PAID",
    fulfillmentStatus: "UNFULFILLED",
    shippingAddress: address(),
    riskRecommendation: "ACCEPT",
    lines: [],
    fulfillmentOrders: [],
    fulfillments: [],
    ...o,
  }) as ShopOrder;

const line = (o: Partial<LineRow> = {}): LineRow => ({
  id: "l1",
  orderId: "o1",
  shopifyLineItemId: "501",
  shopifyProductId: "601",
  shopifyVariantId: "701",
  sku: "SKU-1",
  title: "Mug",
  variantTitle: null,
  variantOptions: "M-Blue",
  image: "https://cdn.example.com/m.png",
  quantity: 2,
  unitPrice: "9.50",
  unitPriceUsd: null,
  requiresShipping: true,
  svcVid: "VID-1",
  fulfilledQuantity: 0,
  ...o,
});

/** The settings the builder reads (a plain object: the builder reads nothing else). */
const settings = (o: Partial<ShopSettings> = {}): ShopSettings =>
  ({
    logisticName: "SvcPacket Ordinary",
    fromCountryCode: "CN",
    shopLogisticsType: 2,
    storageId: "",
    iossType: 1,
    iossNumber: "",
    sandbox: false,
    ...o,
  }) as ShopSettings;

const build = (so: ShopOrder = order(), lines = [line()], s = settings()) =>
  buildCreateRequest({ orderNumber: "shop-1001" }, so, lines, s, NOW);

describe("buildCreateRequest", () => {
  it("the whole request of a plain order: store flow 2, the shop's ids on the line", () => {
    expect(build()).toEqual({
      orderNumber: "shop-1001",
      orderFlow: 2,
      shippingCustomerName: "Ada Lovelace",
      shippingAddress: "1 Main St",
      shippingAddress2: undefined,
      shippingCity: "Springfield",
      shippingProvince: "Illinois",
      shippingCountryCode: "US",
      shippingCountry: "United States",
      shippingZip: "62701",
      shippingPhone: undefined,
      email: "ada@example.com",
      logisticName: "SvcPacket Ordinary",
      fromCountryCode: "CN",
      shopLogisticsType: 2,
      iossType: 1,
      storeOrderTime: Date.parse("2026-01-01T00:00:00.000Z") / 1000,
      isSandbox: 0,
      platform: "Shopify",
      products: [
        {
          vid: "701",
          storeProductId: "601",
          storeProductImg: "https://cdn.example.com/m.png",
          storeLineItemId: "501",
          storeProductName: "Mug",
          storeSku: "SKU-1",
          variantOptions: "M-Blue",
          quantity: 2,
          unitPrice: "9.50",
        },
      ],
    });
  });

  it("every line carries storeProductId and storeLineItemId; a line without a shop variant goes by the catalog vid and its sku", () => {
    const r = build(order(), [
      line(),
      line({
        shopifyLineItemId: "502",
        shopifyProductId: "602",
        shopifyVariantId: null,
        svcVid: "VID-9",
        sku: "SKU-9",
        quantity: 1,
        unitPrice: "4.25",
      }),
      line({ shopifyLineItemId: "503", shopifyVariantId: null, svcVid: null, sku: null }),
    ]);
    expect(r.products.map((p) => [p.storeProductId, p.storeLineItemId])).toEqual([
      ["601", "501"],
      ["602", "502"],
      ["601", "503"],
    ]);
    // With a shop variant there is no sku key at all: the service matches by the variant.
    expect(Object.keys(r.products[0]!)).not.toContain("sku");
    expect(r.products[1]).toEqual({
      vid: "VID-9",
      sku: "SKU-9",
      storeProductId: "602",
      storeProductImg: "https://cdn.example.com/m.png",
      storeLineItemId: "502",
      storeProductName: "Mug",
      storeSku: "SKU-9",
      variantOptions: "M-Blue",
      quantity: 1,
      unitPrice: "4.25",
    });
    expect(r.products[2]).toMatchObject({ vid: undefined, sku: undefined, storeSku: undefined });
    expect(Object.keys(r.products[2]!)).toContain("sku");
  });

  it("the shop's variant wins over the catalog vid", () => {
    const r = build(order(), [line({ shopifyVariantId: "701", svcVid: "VID-1" })]);
    expect(r.products[0]!.vid).toBe("701");
  });

  it("cuts texts to the contract's lengths (spaces folded); an image URL or email too long is left out", () => {
    const x = (n: number) => "x".repeat(n);
    const r = build(order({ email: `${x(38)}@example.com` }), [
      line({
        shopifyVariantId: x(60),
        shopifyProductId: x(70),
        shopifyLineItemId: x(130),
        title: `  ${x(510)}`,
        sku: x(70),
        variantOptions: x(210),
        image: `https://${x(492)}`,
      }),
      line({ shopifyVariantId: null, svcVid: x(60), sku: x(60), image: `https://${x(493)}` }),
    ]);
    expect(r.email).toBe(`${x(38)}@example.com`);
    expect(r.products[0]).toMatchObject({
      vid: x(50),
      storeProductId: x(64),
      storeLineItemId: x(125),
      storeProductName: x(500),
      storeSku: x(60),
      variantOptions: x(200),
      storeProductImg: `https://${x(492)}`,
    });
    expect(r.products[1]).toMatchObject({ vid: x(50), sku: x(50), storeSku: x(60) });
    expect(r.products[1]!.storeProductImg).toBeUndefined();
    expect(build(order({ email: `${x(39)}@example.com` })).email).toBeUndefined();
    expect(build(order({ email: null })).email).toBeUndefined();
    expect(build(order(), [line({ image: null })]).products[0]!.storeProductImg).toBeUndefined();
  });

  it("the address is cut to the contract too", () => {
    const x = (n: number) => "y".repeat(n);
    const r = build(
      order({
        shippingAddress: address({
          firstName: x(30),
          lastName: x(30),
          address1: x(510),
          address2: x(510),
          city: x(60),
          province: x(60),
          country: x(60),
          zip: x(25),
        }),
      }),
    );
    expect(r).toMatchObject({
      shippingCustomerName: `${x(30)} ${x(19)}`,
      shippingAddress: x(500),
      shippingAddress2: x(500),
      shippingCity: x(50),
      shippingProvince: x(50),
      shippingCountry: x(50),
      shippingZip: x(20),
    });
  });

  it("the recipient's name: first and last, the one given, else the company", () => {
    const name = (a: Partial<ShippingAddress>) =>
      build(order({ shippingAddress: address(a) })).shippingCustomerName;
    expect(name({ firstName: "  ", lastName: "Hopper" })).toBe("Hopper");
    expect(name({ firstName: "Grace", lastName: null })).toBe("Grace");
    expect(name({ firstName: null, lastName: null, company: "ACME" })).toBe("ACME");
    expect(name({ firstName: " ", lastName: " ", company: "ACME" })).toBe("ACME");
  });

  it("the street: address1, or address2 in its place (then no second line)", () => {
    const street = (a: Partial<ShippingAddress>) => {
      const r = build(order({ shippingAddress: address(a) }));
      return [r.shippingAddress, r.shippingAddress2];
    };
    expect(street({ address1: "1 Main St", address2: "Apt 2" })).toEqual(["1 Main St", "Apt 2"]);
    expect(street({ address1: "  ", address2: "Suite 9" })).toEqual(["Suite 9", undefined]);
    expect(street({ address1: null, address2: "Unit 4" })).toEqual(["Unit 4", undefined]);
    expect(street({ address1: null, address2: null })).toEqual([undefined, undefined]);
  });

  it("province: the name, else the code, never the city; country: the name, else the code", () => {
    const r = (a: Partial<ShippingAddress>) => build(order({ shippingAddress: address(a) }));
    expect(r({ province: "Illinois", provinceCode: "IL" }).shippingProvince).toBe("Illinois");
    expect(r({ province: "", provinceCode: "IL" }).shippingProvince).toBe("IL");
    expect(r({ province: null, provinceCode: null }).shippingProvince).toBeUndefined();
    expect(r({ country: "", countryCode: "us" })).toMatchObject({
      shippingCountry: "us",
      shippingCountryCode: "US",
    });
    expect(r({ country: "United States", countryCode: "us" }).shippingCountry).toBe(
      "United States",
    );
  });

  it("the phone keeps digits and a plus, at most 20 characters; none when nothing is left", () => {
    const phone = (p: string | null) =>
      build(order({ shippingAddress: address({ phone: p }) })).shippingPhone;
    expect(phone("+1 (555) 010-0000")).toBe("+15550100000");
    expect(phone("+1 (555) 010-0000 ext. 123456789012345")).toBe("+1555010000012345678");
    expect(phone("ext.")).toBeUndefined();
    expect(phone(null)).toBeUndefined();
  });

  it("the order time is the shop's creation time in whole seconds, never later than now, now when unreadable", () => {
    const t = (createdAt: string) => build(order({ createdAt })).storeOrderTime;
    expect(t("2026-01-01T00:00:00.999Z")).toBe(Date.parse("2026-01-01T00:00:00.000Z") / 1000);
    expect(t("2027-01-01T00:00:00Z")).toBe(NOW / 1000);
    expect(t("not a date")).toBe(NOW / 1000);
  });

  it("the shop's settings: method, origin, sandbox; a warehouse only in warehouse mode with an id", () => {
    const s = (o: Partial<ShopSettings>) => build(order(), [line()], settings(o));
    expect(s({ logisticName: "USPS", fromCountryCode: "DE", sandbox: true })).toMatchObject({
      logisticName: "USPS",
      fromCountryCode: "DE",
      isSandbox: 1,
    });
    expect(s({ shopLogisticsType: 1, storageId: "W1" })).toMatchObject({
      shopLogisticsType: 1,
      storageId: "W1",
    });
    expect(s({ shopLogisticsType: 1, storageId: "" })).not.toHaveProperty("storageId");
    expect(s({ shopLogisticsType: 2, storageId: "W1" })).not.toHaveProperty("storageId");
    expect(s({ shopLogisticsType: 3, storageId: "W1" })).toMatchObject({ shopLogisticsType: 3 });
  });

  it("IOSS goes only to the EU: the shop's type and number there, type 1 and no number elsewhere", () => {
    const ioss = { iossType: 3, iossNumber: "IM1234567" };
    const toDe = order({
      shippingAddress: address({ country: "Germany", countryCode: "de", province: null }),
    });
    const eu = build(toDe, [line()], settings(ioss));
    expect(eu).toMatchObject({ iossType: 3, iossNumber: "IM1234567", shippingCountryCode: "DE" });
    const euNoNumber = build(toDe, [line()], settings({ iossType: 2, iossNumber: "" }));
    expect(euNoNumber.iossType).toBe(2);
    expect(euNoNumber).not.toHaveProperty("iossNumber");
    const us = build(order(), [line()], settings(ioss));
    expect(us.iossType).toBe(1);
    expect(us).not.toHaveProperty("iossNumber");
  });
});

describe("missingShipping", () => {
  const missing = (a: Partial<ShippingAddress> | null) =>
    missingShipping(order({ shippingAddress: a === null ? null : address(a) }));

  it("names each missing field, nothing for a complete address", () => {
    expect(missing({})).toEqual([]);
    expect(missing(null)).toEqual(["the whole shipping address"]);
    expect(missing({ firstName: " ", lastName: null, company: " " })).toEqual(["recipient name"]);
    expect(missing({ firstName: null, lastName: null, company: null })).toEqual(["recipient name"]);
    expect(missing({ firstName: null, lastName: null, company: "ACME" })).toEqual([]);
    expect(missing({ firstName: "Ada", lastName: null })).toEqual([]);
    expect(missing({ firstName: null, lastName: "Lovelace" })).toEqual([]);
    expect(missing({ address1: " ", address2: null })).toEqual(["street address"]);
    expect(missing({ address1: null, address2: " " })).toEqual(["street address"]);
    expect(missing({ address1: null, address2: null })).toEqual(["street address"]);
    expect(missing({ address1: null, address2: "Unit 4" })).toEqual([]);
    expect(missing({ address1: "1 Main", address2: null })).toEqual([]);
    expect(missing({ city: " " })).toEqual(["city"]);
    expect(missing({ city: null })).toEqual(["city"]);
    expect(missing({ countryCode: null })).toEqual(["country code"]);
    expect(missing({ countryCode: "" })).toEqual(["country code"]);
    expect(missing({ countryCode: "USA" })).toEqual(["country code"]);
    expect(missing({ countryCode: "XUS" })).toEqual(["country code"]);
    expect(missing({ countryCode: "U1" })).toEqual(["country code"]);
    expect(missing({ countryCode: "us" })).toEqual([]);
    expect(missing({ country: null })).toEqual([]);
    expect(missing({ country: " ", countryCode: null })).toEqual(["country code", "country"]);
    expect(missing({ country: "France", countryCode: null })).toEqual(["country code"]);
    expect(
      missing({ firstName: null, lastName: null, address1: null, city: null, countryCode: "1" }),
    ).toEqual(["recipient name", "street address", "city", "country code"]);
  });
});

describe("missingProvince", () => {
  const province = (a: Partial<ShippingAddress>) =>
    missingProvince(order({ shippingAddress: address(a) }));

  it("a destination that needs one, without one: a sentence naming the word and the country", () => {
    expect(province({ province: null, provinceCode: null })).toBe(
      "The shipping address has no state, and addresses in United States need one. Add it to the address in the shop or with Repair, then Retry.",
    );
    expect(
      province({ province: " ", provinceCode: " ", countryCode: " jp ", country: "Japan" }),
    ).toBe(
      "The shipping address has no prefecture, and addresses in Japan need one. Add it to the address in the shop or with Repair, then Retry.",
    );
  });

  it("nothing when the name or the code is there, the country needs none, or there is no address", () => {
    expect(province({ province: null, provinceCode: "IL" })).toBeNull();
    expect(province({ province: "Illinois", provinceCode: null })).toBeNull();
    expect(province({ province: null, provinceCode: null, countryCode: "GB" })).toBeNull();
    expect(province({ province: null, provinceCode: null, countryCode: null })).toBeNull();
    expect(missingProvince(order({ shippingAddress: null }))).toBeNull();
  });
});

describe("protectedDataMessage", () => {
  it("names what is withheld and the fix, without customer data", () => {
    const tail =
      " from this app: the app's protected customer data access " +
      "(level 2: name, email, phone, address) has not been granted. The app owner requests it in the " +
      "Partner Dashboard → API access → Protected customer data (select name, email, phone and address, " +
      "give the reasons, and for a public app submit it for review); once granted, the order goes on by " +
      "itself, or press Retry.";
    expect(protectedDataMessage(["name", "address"])).toBe(
      `Shopify withholds the customer's name and address${tail}`,
    );
    expect(protectedDataMessage(["address"])).toBe(
      `Shopify withholds the customer's address${tail}`,
    );
    expect(protectedDataMessage(["name"])).toBe(`Shopify withholds the customer's name${tail}`);
  });
});
