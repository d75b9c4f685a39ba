/**
 * The edges of reading a Shopify id: zero is no id, a digit string or a GID must be exactly
 * that (nothing before or after), and a list holding an id is not an id.
 */
import { describe, expect, it } from "vitest";
import { parseJsonLossless, payloadId } from "../../app/events/ids.server";

describe("payloadId at its edges", () => {
  it("zero and a list are no id", () => {
    expect(payloadId(0)).toBeUndefined();
    expect(payloadId([450789469])).toBeUndefined();
    expect(payloadId(["450789469"])).toBeUndefined();
    expect(payloadId({ id: 1 })).toBeUndefined();
    expect(payloadId(1)).toBe("1");
  });

  it("a digit string or a GID with anything before or after is no id", () => {
    expect(payloadId("a12")).toBeUndefined();
    expect(payloadId("")).toBeUndefined();
    expect(payloadId("xgid://shopify/Order/1")).toBeUndefined();
    expect(payloadId("gid://shopify/Order/1/2")).toBeUndefined();
    expect(payloadId("gid://shopify/Order/")).toBeUndefined();
    expect(payloadId("gid://shopify//1")).toBeUndefined();
    expect(payloadId("gid://shopify/Order/12?")).toBe("12");
  });
});

describe("parseJsonLossless at its edges", () => {
  it("an integer written with an exponent or a fraction above 2^53 stays a number", () => {
    expect(parseJsonLossless("[9007199254740993.0, 9.007199254740993e15, 1E16]")).toEqual([
      9007199254740992, 9007199254740992, 1e16,
    ]);
  });
});
