/** Webhook ids above 2^53 survive parsing as exact digit strings; ids are read alike from any form. */
import { describe, expect, it } from "vitest";
import { parseJsonLossless, payloadId } from "../../app/events/ids.server";

describe("parseJsonLossless", () => {
  it("keeps integers above 2^53 as their digits and parses everything else as JSON.parse does", () => {
    const text =
      '{"id":788032119674292922,"small":450789469,"max":9007199254740991,"over":9007199254740993,' +
      '"neg":-9007199254740993,"price":"19.99","weight":0.5,"big_float":1.5e300,"exp":1e20,' +
      '"list":[12345678901234567890,1],"nested":{"customer":{"id":115310627314723954}},"none":null}';
    // What the library's JSON.parse gives: the last digits are lost.
    expect(String((JSON.parse(text) as { id: number }).id)).toBe("788032119674292900");
    expect(parseJsonLossless(text)).toEqual({
      id: "788032119674292922",
      small: 450789469,
      max: 9007199254740991,
      over: "9007199254740993",
      neg: "-9007199254740993",
      price: "19.99",
      weight: 0.5,
      big_float: 1.5e300,
      exp: 1e20,
      list: ["12345678901234567890", 1],
      nested: { customer: { id: "115310627314723954" } },
      none: null,
    });
  });

  it("throws on what is not JSON, like JSON.parse", () => {
    expect(() => parseJsonLossless("{id: 1}")).toThrow(SyntaxError);
  });
});

describe("payloadId", () => {
  it("reads a safe integer, a digit string or a GID; refuses a rounded number and other values", () => {
    expect(payloadId(450789469)).toBe("450789469");
    expect(payloadId("788032119674292922")).toBe("788032119674292922");
    expect(payloadId("gid://shopify/Order/820982911946154508")).toBe("820982911946154508");
    expect(payloadId("gid://shopify/ProductVariant/42?foo=bar")).toBe("42");
    expect(payloadId(2 ** 60)).toBeUndefined(); // above 2^53 a number may be rounded: not trusted
    expect(payloadId(1.5)).toBeUndefined();
    expect(payloadId(-3)).toBeUndefined();
    expect(payloadId("12a")).toBeUndefined();
    expect(payloadId(null)).toBeUndefined();
  });
});
