/**
 * The pricing rule, the cost threshold, the margin, and the pieces of the catalog sync that
 * need no database: ids read from an event body of any shape, option names and values of an
 * import, shop and catalog variants paired by their options.
 */
import { describe, expect, it } from "vitest";
import { catalogIdsFromParams, stockIn, stockCountries } from "../../app/catalog/facts.server";
import { importHandle, optionsOf } from "../../app/catalog/import.server";
import { optionKey, pairByOptions } from "../../app/catalog/option-key";
import {
  centsOf,
  costMoved,
  formatCents,
  fromUsd,
  marginPct,
  priceFor,
  roundPrice,
  type PricingRule,
} from "../../app/catalog/pricing";

const rule = (o: Partial<PricingRule> = {}): PricingRule => ({
  priceRule: "multiplier",
  priceValue: "2.5",
  priceRounding: "99",
  compareAtPct: "",
  ...o,
});

describe("the pricing rule", () => {
  it("multiplies the cost and rounds up to .99", () => {
    expect(priceFor("10.00", rule())).toEqual({ price: "25.99", compareAtPrice: null });
    expect(priceFor("11.96", rule())).toEqual({ price: "29.99", compareAtPrice: null }); // 29.90
    expect(priceFor("12", rule({ priceValue: "2" }))).toEqual({
      price: "24.99",
      compareAtPrice: null,
    });
  });

  it("a price already ending in .99 stays; .95 and .00 endings; the exact cent", () => {
    expect(roundPrice(2999n, "99")).toBe(2999n);
    expect(roundPrice(3000n, "99")).toBe(3099n);
    expect(roundPrice(2996n, "95")).toBe(3095n);
    expect(roundPrice(2995n, "95")).toBe(2995n);
    expect(roundPrice(2901n, "00")).toBe(3000n);
    expect(roundPrice(2900n, "00")).toBe(2900n);
    expect(roundPrice(2901n, "none")).toBe(2901n);
    expect(priceFor("3.333", rule({ priceValue: "3", priceRounding: "none" })).price).toBe("9.99");
    expect(priceFor("1.005", rule({ priceValue: "1", priceRounding: "none" })).price).toBe("1.01");
  });

  it("a fixed markup adds to the cost in the shop's currency", () => {
    expect(priceFor("10.00", rule({ priceRule: "markup", priceValue: "7.50" })).price).toBe(
      "17.99",
    );
    expect(
      priceFor("10.00", rule({ priceRule: "markup", priceValue: "7.5", priceRounding: "none" }))
        .price,
    ).toBe("17.50");
  });

  it("turns USD into the shop's currency first (EUR at 1.08 USD)", () => {
    expect(fromUsd("10.80", "1.08")).toBe(1000n);
    expect(fromUsd("10.00", "1.08")).toBe(926n); // 9.259… → 9.26
    expect(priceFor("10.80", rule({ priceValue: "2" }), "1.08").price).toBe("20.99");
  });

  it("a compare-at price this many % above, rounded the same way; 0 or empty: none", () => {
    expect(priceFor("10.00", rule({ compareAtPct: "30" }))).toEqual({
      price: "25.99",
      compareAtPrice: "33.99", // 25.99 × 1.3 = 33.787
    });
    expect(priceFor("10.00", rule({ compareAtPct: "0" })).compareAtPrice).toBeNull();
  });

  it("refuses what is not a decimal instead of pricing it; spaces around are fine", () => {
    expect(() => priceFor("abc", rule())).toThrow(/Not a decimal/);
    expect(() => priceFor("x10.00", rule())).toThrow(/Not a decimal/);
    expect(() => priceFor("10.00x", rule())).toThrow(/Not a decimal/);
    expect(() => fromUsd("1", "0")).toThrow("A rate of zero");
    expect(priceFor(" 10.00 ", rule()).price).toBe("25.99");
  });

  it("cents: half up beyond two decimals, padded below a unit", () => {
    expect(centsOf("1.005")).toBe(101n);
    expect(centsOf("1.0049")).toBe(100n);
    expect(centsOf("2.5")).toBe(250n);
    expect(centsOf("3")).toBe(300n);
    expect(formatCents(5n)).toBe("0.05");
    expect(formatCents(123456n)).toBe("1234.56");
  });

  it("the compare-at price rounds half up to the cent", () => {
    // 9.99 × 1.05 = 10.4895 → 10.49
    expect(
      priceFor("9.99", rule({ priceValue: "1", priceRounding: "none", compareAtPct: "5" })),
    ).toEqual({ price: "9.99", compareAtPrice: "10.49" });
  });
});

describe("the cost threshold and the margin", () => {
  it("a move of at least the threshold, either way, counts", () => {
    expect(costMoved("10.00", "10.50", "5")).toBe(true);
    expect(costMoved("10.00", "10.49", "5")).toBe(false);
    expect(costMoved("10.00", "9.50", "5")).toBe(true);
    expect(costMoved("10.00", "9.60", "5")).toBe(false);
    expect(costMoved("10.00", "10.00", "0")).toBe(false);
    expect(costMoved("0", "1", "5")).toBe(true);
    expect(costMoved("10.00", "10.75", "7.5")).toBe(true);
    expect(costMoved("10.00", "10.74", "7.5")).toBe(false);
    // Relative to the old cost: 10.50 → 10.00 is 4.76%, under 5%; 9.50 → 10.00 is 5.26%.
    expect(costMoved("10.50", "10.00", "5")).toBe(false);
    expect(costMoved("9.50", "10.00", "5")).toBe(true);
  });

  it("margin in % of the price, one decimal; negative when the cost is higher", () => {
    expect(marginPct("25.00", 1000n)).toBe("60.0");
    expect(marginPct("10.00", 1234n)).toBe("-23.4");
    expect(marginPct("3.00", 100n)).toBe("66.6");
    expect(marginPct("10.00", 1000n)).toBe("0.0");
    expect(marginPct(null, 100n)).toBeNull();
    expect(marginPct("0", 100n)).toBeNull();
  });
});

describe("catalog events, stock and options", () => {
  it("finds product and variant ids in an event body of any shape", () => {
    expect(catalogIdsFromParams({ pid: "P1", vid: "V1" })).toEqual({ pids: ["P1"], vids: ["V1"] });
    expect(
      catalogIdsFromParams(JSON.stringify({ list: [{ productId: "P2", variantId: 7 }] })),
    ).toEqual({ pids: ["P2"], vids: ["7"] });
    expect(catalogIdsFromParams("not json")).toEqual({ pids: [], vids: [] });
    expect(catalogIdsFromParams({ pid: "" })).toEqual({ pids: [], vids: [] });
  });

  it("counts the stock of the warehouse countries that count", () => {
    expect(stockIn({ CN: 5, US: 3, DE: 9 }, ["CN", "US"])).toBe(8);
    expect(stockIn({ CN: -4, US: "x" }, ["CN", "US"])).toBe(0);
    expect(stockIn(null, ["CN"])).toBe(0);
    expect(stockCountries({ stockCountries: "us, cn,US", fromCountryCode: "CN" })).toEqual([
      "US",
      "CN",
    ]);
    expect(stockCountries({ stockCountries: "", fromCountryCode: "DE" })).toEqual(["DE"]);
  });

  it("option names from productKeyEn, values from variantKey; a keyless product is one option", () => {
    const v = (variantKey: string, variantSku = "S") => ({ variantKey, variantSku }) as never;
    const three = optionsOf({
      productKeyEn: "Color-Size-Material",
      variants: [v("Red-M-Cotton"), v("Blue-L-Nylon")],
    });
    expect(three.names).toEqual(["Color", "Size", "Material"]);
    expect(three.valuesOf(v("Red-M-Cotton"))).toEqual(["Red", "M", "Cotton"]);
    // productKeyEn of another width: named by position.
    expect(optionsOf({ productKeyEn: "Color", variants: [v("Red-M")] }).names).toEqual([
      "Option 1",
      "Option 2",
    ]);
    // Keys of different widths: one option of the whole key.
    const mixed = optionsOf({ productKeyEn: "", variants: [v("Red"), v("Blue-L")] });
    expect(mixed.names).toEqual(["Variant"]);
    expect(mixed.valuesOf(v("Blue-L"))).toEqual(["Blue L"]);
    expect(optionsOf({ variants: [v("", "SKU1")] }).names).toEqual(["Title"]);
    expect(importHandle("SVC-Trail Jacket", "pid")).toBe("svc-svc-trail-jacket");
    expect(importHandle("", "AB/12")).toBe("svc-ab-12");
  });

  it("pairs shop variants with catalog variants by option values, whatever the order or case", () => {
    expect(optionKey(["Red / M"])).toBe(optionKey(["m-red"]));
    const pairs = pairByOptions(
      [
        { id: "1", options: [{ value: "M" }, { value: "Red" }] },
        { id: "2", options: [{ value: "XL" }, { value: "Red" }] },
      ],
      [
        { vid: "a", key: "Red-M" },
        { vid: "b", key: "Red-L" },
      ],
    );
    expect(pairs.map((p) => [p.shop.id, p.catalog?.vid ?? null])).toEqual([
      ["1", "a"],
      ["2", null],
    ]);
  });
});
