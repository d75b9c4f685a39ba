import { describe, expect, it } from "vitest";
import {
  addMoney,
  compareMoney,
  fromCents,
  multiplyMoney,
  subtractMoney,
  toCents,
  toMoney,
  DecimalError,
  formatScaled,
  isDecimal,
  parseDecimal,
} from "../../app/svc/decimal";
import { parseJsonLossless } from "../../app/svc/json";

describe("exact decimal money", () => {
  it("normalises strings and numbers to canonical text without float drift", () => {
    expect(toMoney("12.5")).toBe("12.50");
    expect(toMoney(12.5)).toBe("12.50");
    expect(toMoney("0.1")).toBe("0.10");
    expect(toMoney(7)).toBe("7.00");
    expect(toMoney("-3.456")).toBe("-3.456");
    expect(toMoney(1e-7)).toBe("0.0000001");
    expect(toMoney("1234567890123456.78")).toBe("1234567890123456.78");
  });

  it("adds, subtracts and multiplies exactly", () => {
    expect(addMoney("0.1", "0.2")).toBe("0.30");
    expect(0.1 + 0.2).not.toBe(0.3); // what floats would have done
    expect(addMoney("9999999999999999.99", "0.01")).toBe("10000000000000000.00");
    expect(subtractMoney("10.00", "0.01")).toBe("9.99");
    expect(multiplyMoney("19.99", 3)).toBe("59.97");
    expect(compareMoney("10", "9.99")).toBe(1);
    expect(compareMoney("1.10", "1.1")).toBe(0);
  });

  it("converts to and from cents", () => {
    expect(toCents("12.34")).toBe(1234n);
    expect(toCents("12.3")).toBe(1230n);
    expect(toCents("12.340")).toBe(1234n);
    expect(() => toCents("12.345")).toThrow(DecimalError);
    expect(fromCents(-5n)).toBe("-0.05");
  });

  it("rejects non-decimals", () => {
    expect(() => toMoney("abc")).toThrow(DecimalError);
    expect(() => toMoney(Number.NaN)).toThrow(DecimalError);
  });

  it("parses JSON without losing digits of long numbers or money", () => {
    const v = parseJsonLossless(
      '{"openId":1234567890123456789,"amount":12.50,"n":3,"x":0.1}',
    ) as Record<string, unknown>;
    expect(v.openId).toBe("1234567890123456789");
    expect(v.amount).toBe("12.50");
    expect(v.n).toBe(3);
    expect(v.x).toBe(0.1);
  });
});

describe("decimal parsing of signed, exponent and malformed values", () => {
  it("accepts an explicit sign on either side of zero, and never prints a negative zero", () => {
    expect(toMoney("+12.5")).toBe("12.50");
    expect(toMoney("-12.5")).toBe("-12.50");
    expect(toMoney("-0.5")).toBe("-0.50");
    expect(toMoney(-0.05)).toBe("-0.05");
    expect(toMoney("-0")).toBe("0.00");
    expect(toMoney("-0.00")).toBe("0.00");
    expect(toMoney(-0)).toBe("0.00");
    expect(toCents("+1.25")).toBe(125n);
    expect(toCents("-1.25")).toBe(-125n);
  });

  it("trims surrounding whitespace of text but nothing inside it", () => {
    expect(toMoney("  12.50\n")).toBe("12.50");
    expect(toMoney("\t-3.1 ")).toBe("-3.10");
    expect(() => toMoney("12 .50")).toThrow(DecimalError);
    expect(() => toMoney("- 12.50")).toThrow(DecimalError);
  });

  it.each([
    ["", "empty"],
    ["   ", "blank"],
    ["abc", "letters"],
    ["x1.5", "junk before"],
    ["1.5x", "junk after"],
    ["1-2", "a sign inside"],
    ["USD 1.50", "a currency before"],
    ["1.50 USD", "a currency after"],
    ["1,50", "a decimal comma"],
    ["1,234.56", "a thousands separator"],
    ["1.2.3", "two points"],
    ["12.", "a point without fraction digits"],
    [".5", "a point without integer digits"],
    ["+", "a sign alone"],
    ["--1", "two signs"],
    ["+-1", "mixed signs"],
    ["0x10", "hexadecimal"],
    ["Infinity", "Infinity as text"],
    ["NaN", "NaN as text"],
    ["1e", "an exponent without digits"],
    ["e5", "an exponent without a mantissa"],
    ["1e2.5", "a fractional exponent"],
    ["1e--2", "an exponent with two signs"],
    ["x1e2", "junk before an exponent"],
    ["1e2x", "junk after an exponent"],
    [".5e1", "an exponent after a point without integer digits"],
  ])("refuses %j (%s) with a DecimalError, and isDecimal says no", (text) => {
    expect(() => toMoney(text)).toThrow(DecimalError);
    expect(() => toCents(text)).toThrow(DecimalError);
    expect(isDecimal(text)).toBe(false);
  });

  it("refuses non-finite numbers", () => {
    for (const n of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(() => toMoney(n)).toThrow(DecimalError);
      expect(isDecimal(n)).toBe(false);
    }
  });

  it("names the refused input in the error, cut to 40 characters", () => {
    expect(() => toMoney("12,50")).toThrow('Not a decimal: "12,50"');
    expect(() => toMoney(`${"9".repeat(39)}x-and-much-more`)).toThrow(
      `Not a decimal: "${"9".repeat(39)}x"`,
    );
  });

  it("expands exponents exactly, whatever their sign and the case of the E", () => {
    expect(toMoney("1e2")).toBe("100.00");
    expect(toMoney("1E2")).toBe("100.00");
    expect(toMoney("1e+2")).toBe("100.00");
    expect(toMoney("+1e2")).toBe("100.00");
    expect(toMoney("1.5e3")).toBe("1500.00");
    expect(toMoney("12e1")).toBe("120.00");
    expect(toMoney("1.5e1")).toBe("15.00"); // the point lands after the last digit
    expect(toMoney("1.234e2")).toBe("123.40"); // the point lands inside the digits
    expect(toMoney("12.5e-1")).toBe("1.25");
    expect(toMoney("1.5e-1")).toBe("0.15"); // the point lands before the first digit
    expect(toMoney("1e-3")).toBe("0.001"); // zeros between the point and the digits
    expect(toMoney("-2.5e-3")).toBe("-0.0025");
    expect(toMoney("-2.5E+1")).toBe("-25.00");
    expect(toMoney("1e12")).toBe("1000000000000.00"); // a two-digit exponent
    expect(toMoney("1e-12")).toBe("0.000000000001");
    expect(toMoney(" 1e2 ")).toBe("100.00");
    // Numbers JavaScript prints with an exponent.
    expect(toMoney(1e21)).toBe("1000000000000000000000.00");
    expect(toMoney(-1e-7)).toBe("-0.0000001");
    expect(toMoney(1.5e-7)).toBe("0.00000015");
    expect(toCents("1.23e2")).toBe(12300n);
    expect(toCents("5e-2")).toBe(5n);
    expect(() => toCents("5e-3")).toThrow(DecimalError);
  });

  it("refuses an exponent so large it would spell out millions of digits, at once", () => {
    // A 10-character JSON number from the service (kept as text by the lossless parser) must
    // not make the process build and parse a number of 50 million digits.
    expect(() => toMoney("1e50000000")).toThrow(DecimalError);
    expect(() => toMoney("1e-50000000")).toThrow(DecimalError);
    expect(isDecimal("9.99e99999999999")).toBe(false);
    // Every finite JavaScript number still parses (exponents reach 308 and -324).
    expect(toMoney(Number.MAX_VALUE).split(".")[0]).toHaveLength(309);
    expect(toMoney(Number.MIN_VALUE)).toBe(`0.${"0".repeat(323)}5`);
    // The bound: 1000 either way.
    expect(toMoney("1e1000")).toBe(`1${"0".repeat(1000)}.00`);
    expect(toMoney("1e-1000")).toBe(`0.${"0".repeat(999)}1`);
    expect(() => toMoney("1e1001")).toThrow(DecimalError);
    expect(() => toMoney("1e-1001")).toThrow(DecimalError);
  });

  it("parseDecimal keeps the digits and the scale of the input", () => {
    expect(parseDecimal("12.50")).toEqual({ units: 1250n, scale: 2 });
    expect(parseDecimal("-0.005")).toEqual({ units: -5n, scale: 3 });
    expect(parseDecimal("+7")).toEqual({ units: 7n, scale: 0 });
    expect(parseDecimal(7)).toEqual({ units: 7n, scale: 0 });
    expect(parseDecimal("007.10")).toEqual({ units: 710n, scale: 2 });
  });
});

describe("isDecimal: the validator of the service's money fields", () => {
  it("accepts decimal strings and finite numbers", () => {
    expect(isDecimal("12.50")).toBe(true);
    expect(isDecimal("-0.01")).toBe(true);
    expect(isDecimal(" 3 ")).toBe(true);
    expect(isDecimal(12.5)).toBe(true);
    expect(isDecimal(0)).toBe(true);
    expect(isDecimal("1e-7")).toBe(true);
  });

  it("refuses every other type, even one that looks like a decimal string", () => {
    for (const v of [null, undefined, true, false, {}, [], ["1.50"], 5n, new String("1.50")]) {
      expect(isDecimal(v)).toBe(false);
    }
    // An object whose trim() yields a decimal is still not a string.
    expect(isDecimal({ trim: () => "1.50" })).toBe(false);
  });
});

describe("formatScaled", () => {
  it("prints units at their scale with a leading zero and the sign", () => {
    expect(formatScaled({ units: 5n, scale: 2 })).toBe("0.05");
    expect(formatScaled({ units: -5n, scale: 3 })).toBe("-0.005");
    expect(formatScaled({ units: 123456n, scale: 2 })).toBe("1234.56");
    expect(formatScaled({ units: -100n, scale: 2 })).toBe("-1.00");
    expect(formatScaled({ units: 0n, scale: 2 })).toBe("0.00");
    expect(formatScaled({ units: 0n, scale: 0 })).toBe("0");
    expect(formatScaled({ units: 12345n, scale: 0 })).toBe("12345");
    expect(formatScaled({ units: -7n, scale: 0 })).toBe("-7");
  });
});

describe("money arithmetic at more than two fraction digits, negatives and edges", () => {
  it("toMoney keeps extra fraction digits and pads to two", () => {
    expect(toMoney("1.005")).toBe("1.005");
    expect(toMoney("1.0050")).toBe("1.0050");
    expect(toMoney("1")).toBe("1.00");
    expect(toMoney("0")).toBe("0.00");
    expect(toMoney("000012.3")).toBe("12.30");
  });

  it("toCents and fromCents", () => {
    expect(toCents(12.34)).toBe(1234n);
    expect(toCents(12)).toBe(1200n);
    expect(toCents("0")).toBe(0n);
    expect(toCents("-0.10")).toBe(-10n);
    expect(toCents("-12.3400")).toBe(-1234n);
    expect(toCents("0.0100")).toBe(1n);
    expect(() => toCents("-12.345")).toThrow(DecimalError);
    expect(() => toCents("0.001")).toThrow(DecimalError);
    expect(() => toCents("0.0001")).toThrow(DecimalError);
    expect(fromCents(0n)).toBe("0.00");
    expect(fromCents(5n)).toBe("0.05");
    expect(fromCents(123456n)).toBe("1234.56");
    expect(fromCents(-123456n)).toBe("-1234.56");
    expect(fromCents(toCents("98765432109876.54"))).toBe("98765432109876.54");
  });

  it("addMoney sums any number of values at the largest scale among them", () => {
    expect(addMoney()).toBe("0.00");
    expect(addMoney("5")).toBe("5.00");
    expect(addMoney("1.005", "2")).toBe("3.005");
    expect(addMoney("1", "2", "3.5")).toBe("6.50");
    expect(addMoney("10.00", "-2.50", -0.5)).toBe("7.00");
    expect(addMoney("-1.00", "-2.25")).toBe("-3.25");
    expect(addMoney("0.001", "0.002", "0.0005")).toBe("0.0035");
  });

  it("subtractMoney goes below zero and keeps extra fraction digits", () => {
    expect(subtractMoney("0.01", "0.015")).toBe("-0.005");
    expect(subtractMoney("5", "7.5")).toBe("-2.50");
    expect(subtractMoney(100, "0.30")).toBe("99.70");
    expect(subtractMoney("-1", "-1")).toBe("0.00");
  });

  it("multiplyMoney by integer quantities, numbers or bigints, and nothing else", () => {
    expect(multiplyMoney("1.005", 3)).toBe("3.015");
    expect(multiplyMoney("2.5", 4)).toBe("10.00");
    expect(multiplyMoney("2.50", -2)).toBe("-5.00");
    expect(multiplyMoney("19.99", 0)).toBe("0.00");
    expect(multiplyMoney("19.99", 3n)).toBe("59.97");
    expect(multiplyMoney(0.1, 3)).toBe("0.30");
    expect(multiplyMoney("0.01", 10n ** 20n)).toBe("1000000000000000000.00");
    expect(() => multiplyMoney("19.99", 1.5)).toThrow(DecimalError);
    expect(() => multiplyMoney("19.99", Number.NaN)).toThrow(DecimalError);
    expect(() => multiplyMoney("19.99", Number.POSITIVE_INFINITY)).toThrow(DecimalError);
  });

  it("compareMoney orders both ways, and at more than two fraction digits", () => {
    expect(compareMoney("9.99", "10")).toBe(-1);
    expect(compareMoney("10", "9.99")).toBe(1);
    expect(compareMoney("1.005", "1.004")).toBe(1);
    expect(compareMoney("1.004", "1.005")).toBe(-1);
    expect(compareMoney("1.0", "1.000")).toBe(0);
    expect(compareMoney("-1", "0.00")).toBe(-1);
    expect(compareMoney("0.00", "-0.01")).toBe(1);
    expect(compareMoney(0.1, "0.10")).toBe(0);
    // An order costing exactly the balance is covered by it.
    expect(compareMoney("1234.56", "1234.560")).toBe(0);
  });
});
