/**
 * Shipping rules, pure (app/shipping/rules.ts): what a rule form accepts and refuses, which rule
 * a destination gets (its country's, its region's, the default), the order in which methods are
 * tried for each strategy with the price cap and the fallbacks, and the plain-words lines that
 * describe a rule and a method. The pipeline's use of them is in
 * test/fulfilment/place-shipping.test.ts.
 */
import { describe, expect, it } from "vitest";
import {
  EVERYWHERE,
  REGIONS,
  STRATEGIES,
  candidates,
  describeOption,
  describeRule,
  ruleFor,
  ruleSchema,
  rulesSchema,
} from "../../app/shipping/rules";
import { toMoney } from "../../app/svc/decimal";

const o = (logisticName: string, price: string, min: number | null, max: number | null) => ({
  logisticName,
  priceUsd: toMoney(price),
  minDays: min,
  maxDays: max,
});
const rule = (r: Record<string, unknown>) => ruleSchema.parse({ to: "*", ...r });
const issues = (r: Record<string, unknown>) => {
  const p = ruleSchema.safeParse({ to: "*", ...r });
  return p.success ? [] : p.error.issues.map((i) => [i.path.join("."), i.message]);
};

// The 27 member states, written out here (not read from the module under test).
const EU = "AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK".split(
  " ",
);

describe("the rule form", () => {
  it("normalises what it keeps: codes upper-cased and trimmed, CN by default, amounts as money", () => {
    expect(ruleSchema.parse({ to: " de ", strategy: "cheapest" })).toEqual({
      to: "DE",
      from: "CN",
      strategy: "cheapest",
      fallbacks: [],
    });
    expect(ruleSchema.parse({ to: "eu", from: " us ", strategy: "fastest" })).toMatchObject({
      to: "EU",
      from: "US",
    });
    expect(rule({ strategy: "cheapest", maxPriceUsd: " 12.5 " }).maxPriceUsd).toBe("12.50");
    expect(rule({ strategy: "cheapest", maxPriceUsd: "" }).maxPriceUsd).toBeUndefined();
    expect(rule({ strategy: "cheapest", maxPriceUsd: "0.01" }).maxPriceUsd).toBe("0.01");
    expect(rule({ strategy: "cheapest_within", days: "7" }).days).toBe(7);
    expect(rule({ strategy: "named", method: "  Express Air " }).method).toBe("Express Air");
    expect(rule({ strategy: "cheapest", fallbacks: [" A ", "B"] }).fallbacks).toEqual(["A", "B"]);
    expect(rule({ strategy: "cheapest" }).to).toBe(EVERYWHERE);
    expect(EVERYWHERE).toBe("*");
    expect([...STRATEGIES]).toEqual(["cheapest", "fastest", "cheapest_within", "named"]);
  });

  it("refuses what it cannot use, in plain words, field by field", () => {
    expect(issues({ to: "Germany", strategy: "cheapest" })).toEqual([
      ["to", "a two-letter country code, a region (EU) or * for every other destination"],
    ]);
    expect(issues({ to: "D", strategy: "cheapest" })).toHaveLength(1);
    expect(issues({ to: "DEU", strategy: "cheapest" })).toHaveLength(1);
    expect(issues({ to: "xEUx", strategy: "cheapest" })).toHaveLength(1);
    expect(issues({ from: "China", strategy: "cheapest" })).toEqual([
      ["from", "a two-letter country code"],
    ]);
    expect(issues({ from: "CNN", strategy: "cheapest" })).toHaveLength(1);
    expect(issues({ from: "xCNx", strategy: "cheapest" })).toHaveLength(1);
    expect(issues({ strategy: "slowest" })).toEqual([
      ["strategy", "cheapest, fastest, cheapest_within or named"],
    ]);
    expect(issues({ strategy: "cheapest_within" })).toEqual([["days", "enter the number of days"]]);
    expect(issues({ strategy: "named" })).toEqual([["method", "choose a method"]]);
    expect(issues({ strategy: "named", method: "   " })).toEqual([["method", "choose a method"]]);
    expect(issues({ strategy: "cheapest", days: 0 })).toHaveLength(1);
    expect(issues({ strategy: "cheapest", days: 1 })).toEqual([]);
    expect(issues({ strategy: "cheapest", days: 90 })).toEqual([]);
    expect(issues({ strategy: "cheapest", days: 91 })).toHaveLength(1);
    expect(issues({ strategy: "cheapest", days: 2.5 })).toHaveLength(1);
    expect(issues({ strategy: "named", method: "x".repeat(50) })).toEqual([]);
    expect(issues({ strategy: "named", method: "x".repeat(51) })).toHaveLength(1);
    for (const bad of ["0", "0.00", "-1", "abc"])
      expect(issues({ strategy: "cheapest", maxPriceUsd: bad }), bad).toEqual([
        ["maxPriceUsd", "a positive amount"],
      ]);
    expect(issues({ strategy: "cheapest", fallbacks: ["A", " "] })).toHaveLength(1);
    expect(issues({ strategy: "cheapest", fallbacks: ["x".repeat(50)] })).toEqual([]);
    expect(issues({ strategy: "cheapest", fallbacks: ["x".repeat(51)] })).toHaveLength(1);
    expect(issues({ strategy: "cheapest", fallbacks: ["1", "2", "3", "4", "5"] })).toEqual([]);
    expect(
      issues({ strategy: "cheapest", fallbacks: ["1", "2", "3", "4", "5", "6"] }),
    ).toHaveLength(1);
  });

  it("a list takes at most 50 rules and one rule per destination", () => {
    const countries = Array.from({ length: 50 }, (_, i) =>
      String.fromCharCode(65 + Math.floor(i / 26), 65 + (i % 26)),
    );
    expect(
      rulesSchema.safeParse(countries.map((to) => ({ to, strategy: "cheapest" }))).success,
    ).toBe(true);
    expect(
      rulesSchema.safeParse([...countries, "ZZ"].map((to) => ({ to, strategy: "cheapest" })))
        .success,
    ).toBe(false);
    const twice = rulesSchema.safeParse([
      { to: "DE", strategy: "cheapest" },
      { to: "FR", strategy: "cheapest" },
      { to: "de", strategy: "fastest" },
    ]);
    expect(twice.success).toBe(false);
    expect(twice.error!.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["2.to", "a second rule for DE"],
    ]);
    expect(
      rulesSchema.safeParse([
        { to: "DE", strategy: "cheapest" },
        { to: "*", strategy: "cheapest" },
      ]).success,
    ).toBe(true);
  });
});

describe("the rule for a destination", () => {
  const rules = [
    rule({ to: "EU", strategy: "fastest" }),
    rule({ to: "DE", strategy: "cheapest" }),
    rule({ strategy: "named", method: "Mid" }),
  ];

  it("each EU member state gets the EU rule, others the default; the country's own rule first", () => {
    expect(REGIONS.EU!.label).toBe("European Union");
    expect([...REGIONS.EU!.countries].sort()).toEqual([...EU].sort());
    for (const c of EU.filter((x) => x !== "DE")) expect(ruleFor(rules, c)!.to, c).toBe("EU");
    expect(ruleFor(rules, "DE")!.to).toBe("DE");
    expect(ruleFor(rules, "de")!.to).toBe("DE");
    expect(ruleFor(rules, "fr")!.to).toBe("EU");
    for (const c of ["GB", "CH", "NO", "US", "TR"]) expect(ruleFor(rules, c)!.to, c).toBe("*");
    expect(ruleFor(rules.slice(0, 2), "US")).toBeNull();
    expect(ruleFor([], "DE")).toBeNull();
  });
});

describe("the methods to try", () => {
  const offered = [
    o("Slow", "2.00", 10, 20),
    o("Mid", "5.00", 5, 8),
    o("Fast", "9.00", 2, 3),
    o("Odd", "1.00", null, null),
    o("Twin", "9.50", 2, 3),
  ];
  const names = (r: Record<string, unknown>, list = offered) =>
    candidates(rule(r), list).map((x) => x.logisticName);

  it("cheapest: by price; fastest: by the longest transit, unknown last, then by price", () => {
    expect(names({ strategy: "cheapest" })).toEqual(["Odd", "Slow", "Mid", "Fast", "Twin"]);
    expect(names({ strategy: "fastest" })).toEqual(["Fast", "Twin", "Mid", "Slow", "Odd"]);
    // Ties in speed go to the cheaper, whichever comes first in the quote.
    expect(names({ strategy: "fastest" }, [...offered].reverse())).toEqual([
      "Fast",
      "Twin",
      "Mid",
      "Slow",
      "Odd",
    ]);
    // The input is not reordered.
    const copy = [...offered];
    candidates(rule({ strategy: "cheapest" }), copy);
    candidates(rule({ strategy: "fastest" }), copy);
    expect(copy).toEqual(offered);
  });

  it("cheapest within N days: only methods known to arrive in time, by price; the day itself counts", () => {
    expect(names({ strategy: "cheapest_within", days: 8 })).toEqual(["Mid", "Fast", "Twin"]);
    expect(names({ strategy: "cheapest_within", days: 3 })).toEqual(["Fast", "Twin"]);
    expect(names({ strategy: "cheapest_within", days: 8 }, [...offered].reverse())).toEqual([
      "Mid",
      "Fast",
      "Twin",
    ]);
    expect(names({ strategy: "cheapest_within", days: 2 })).toEqual([]);
    expect(names({ strategy: "cheapest_within", days: 90 })).toEqual([
      "Slow",
      "Mid",
      "Fast",
      "Twin",
    ]);
    expect(
      names({ strategy: "cheapest_within", days: 8 }, [o("Zero", "1.00", 0, 0), ...offered]),
    ).toEqual(["Zero", "Mid", "Fast", "Twin"]);
  });

  it("named: that method (any case, spaces trimmed), then the fallbacks offered, no repeats", () => {
    expect(names({ strategy: "named", method: "fast" })).toEqual(["Fast"]);
    expect(names({ strategy: "named", method: "Nope" })).toEqual([]);
    expect(names({ strategy: "named", method: "Mid" }, [o(" MID ", "5.00", 5, 8)])).toEqual([
      " MID ",
    ]);
    expect(
      names({ strategy: "named", method: "fast", fallbacks: ["Mid", "Fast", "Nope", "Slow"] }),
    ).toEqual(["Fast", "Mid", "Slow"]);
    expect(names({ strategy: "cheapest", fallbacks: ["Fast"] })).toEqual([
      "Odd",
      "Slow",
      "Mid",
      "Fast",
      "Twin",
    ]);
    expect(
      names({ strategy: "cheapest_within", days: 3, fallbacks: ["slow", "Twin", "Odd"] }),
    ).toEqual(["Fast", "Twin", "Slow", "Odd"]);
  });

  it("the price cap holds for the pick and the fallbacks alike; the cap itself is allowed", () => {
    expect(names({ strategy: "cheapest", maxPriceUsd: "5" })).toEqual(["Odd", "Slow", "Mid"]);
    expect(names({ strategy: "cheapest", maxPriceUsd: "4.99" })).toEqual(["Odd", "Slow"]);
    expect(names({ strategy: "fastest", maxPriceUsd: "9" })).toEqual([
      "Fast",
      "Mid",
      "Slow",
      "Odd",
    ]);
    expect(
      names({ strategy: "named", method: "Twin", fallbacks: ["Fast", "Slow"], maxPriceUsd: "9" }),
    ).toEqual(["Fast", "Slow"]);
    expect(
      names({ strategy: "named", method: "Nope", fallbacks: ["Slow"], maxPriceUsd: "1.50" }),
    ).toEqual([]);
  });
});

describe("in plain words", () => {
  it("describes a rule: where, from, how, the cap and the fallbacks", () => {
    expect(describeRule(rule({ to: "DE", strategy: "cheapest" }))).toBe(
      "rule for DE from CN: cheapest",
    );
    expect(describeRule(rule({ to: "EU", from: "US", strategy: "fastest" }))).toBe(
      "rule for European Union from US: fastest",
    );
    expect(describeRule(rule({ strategy: "cheapest_within", days: 7, maxPriceUsd: "20" }))).toBe(
      "rule for every other destination from CN: cheapest within 7 days, at most 20.00 USD",
    );
    expect(
      describeRule(
        rule({ to: "FR", strategy: "named", method: "Express Air", fallbacks: ["A", "B"] }),
      ),
    ).toBe("rule for FR from CN: Express Air, then A, then B");
    expect(describeRule(rule({ to: "FR", strategy: "fastest", fallbacks: ["A"] }))).toBe(
      "rule for FR from CN: fastest, then A",
    );
  });

  it("describes a method: name, price, and its days when known", () => {
    expect(describeOption(o("Express Air", "14.99", 3, 5))).toBe(
      "Express Air, 14.99 USD, 3–5 days",
    );
    expect(describeOption(o("Express Air", "14.99", 4, 4))).toBe("Express Air, 14.99 USD, 4 days");
    expect(describeOption(o("Post", "2.00", null, 9))).toBe("Post, 2.00 USD");
    expect(describeOption(o("Post", "2.00", 3, null))).toBe("Post, 2.00 USD");
    expect(describeOption(o("Post", "2.00", null, null))).toBe("Post, 2.00 USD");
    expect(describeOption(o("Post", "2.00", 0, 0))).toBe("Post, 2.00 USD, 0 days");
  });
});
