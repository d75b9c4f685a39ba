/**
 * The Products page's "Margin under (%)" filter (issue 35): a margin out of 0–100 or not a
 * number is said by the field and filters nothing; it was silently dropped before, so -5 and
 * 250 looked accepted.
 */
import { describe, expect, it } from "vitest";
import { marginFilter } from "../../app/connections/products-page.server";

describe("the margin filter", () => {
  it("takes a number from 0 to 100, or nothing", () => {
    expect(marginFilter(undefined)).toEqual({});
    expect(marginFilter("  ")).toEqual({});
    expect(marginFilter("0")).toEqual({ value: 0 });
    expect(marginFilter("12.5")).toEqual({ value: 12.5 });
    expect(marginFilter(" 100 ")).toEqual({ value: 100 });
  });

  it("refuses -5, 250 and words with a sentence, and applies no filter", () => {
    for (const raw of ["-5", "250", "100.01", "-0.01", "ten", "1e999"]) {
      const r = marginFilter(raw);
      expect(r.value, raw).toBeUndefined();
      expect(r.error, raw).toBe(
        "Enter a margin from 0 to 100 (%): the list is not filtered by it.",
      );
    }
  });
});
