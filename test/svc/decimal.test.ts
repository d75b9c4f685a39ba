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
  isDecimal,
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

describe("decimal exponents", () => {
  it("refuses an exponent so large it would spell out millions of digits, at once", () => {
    // A 12-character JSON number from the service (kept as text by the lossless parser) must
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
});
