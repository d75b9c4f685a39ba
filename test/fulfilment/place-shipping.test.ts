/**
 * Shipping rules (issue 14), end to end over HTTP: the method is chosen per order from the
 * service's freight quote by the rule for its destination, recorded on the timeline with its
 * price, and a method the service refuses gives way to the rule's fallback. Settings refuse a
 * method the service does not offer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settingsAction } from "../../app/settings-forms/page.server";
import { candidates, ruleFor, ruleSchema } from "../../app/shipping/rules";
import { toMoney } from "../../app/svc/decimal";
import { type Harness, opCalls, prisma, startHarness } from "./harness";

const RULES = [
  { to: "DE", from: "CN", strategy: "cheapest_within", days: 7, fallbacks: [] },
  {
    to: "FR",
    from: "CN",
    strategy: "cheapest_within",
    days: 7,
    fallbacks: ["SvcPacket Ordinary"],
  },
  { to: "AU", from: "CN", strategy: "cheapest_within", days: 3, fallbacks: [] },
  { to: "*", from: "CN", strategy: "named", method: "SvcPacket Ordinary", fallbacks: [] },
];

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    shopDomain: "shipping-rules.myshopify.com",
    settings: { logisticName: "", shippingRules: RULES },
  });
});
afterAll(async () => h?.close());

const address = (countryCode: string, country: string) => ({
  firstName: "Eva",
  lastName: "Muster",
  address1: "Hauptstrasse 5",
  city: "Berlin",
  province: "Berlin",
  provinceCode: "BE",
  zip: "10115",
  country,
  countryCode,
  phone: "+49301234567",
});

async function orderTo(countryCode: string, country: string, title: string) {
  const p = await h.connectedProduct(title, "20.00");
  const placed = h.shop.placeOrder(h.shopDomain, {
    lines: [{ variantId: p.variants[0]!.id, quantity: 1 }],
    shippingAddress: address(countryCode, country),
  });
  const res = await h.shop.sendWebhook(
    h.shopDomain,
    "orders/paid",
    h.shop.orderWebhookPayload(h.shopDomain, placed.id),
  );
  expect(res.status).toBe(200);
  await h.settle();
  return h.row(placed.legacyId);
}

describe("the method is chosen per order by the rule for its destination", () => {
  it("DE: the cheapest within 7 days (Express Air, the only one that fast), priced on the timeline", async () => {
    const quotes = opCalls(h, "freightCalculate");
    const row = await orderTo("DE", "Germany", "DE Lamp");
    expect(row.state).toBe("PAID");
    expect(row.logisticName).toBe("Express Air");
    const svcOrder = h.svc.order(row.svcOrderId!)!;
    expect(svcOrder.logisticName).toBe("Express Air");
    expect(toMoney(Number(svcOrder.postageAmount) / 100)).toBe(row.shippingCost);
    expect(row.shippingCost).toBe("18.73");
    expect(opCalls(h, "freightCalculate")).toBe(quotes + 1);
    const shipping = row.timeline.filter((t) => t.step === "shipping").map((t) => t.message);
    expect(shipping).toEqual([
      "Shipping: Express Air, 18.73 USD, 5–7 days (rule for DE from CN: cheapest within 7 days).",
    ]);
  });

  it("elsewhere (US): the named method of the default rule", async () => {
    const row = await orderTo("US", "United States", "US Lamp");
    expect(row.state).toBe("PAID");
    expect(row.logisticName).toBe("SvcPacket Ordinary");
    expect(h.svc.order(row.svcOrderId!)!.logisticName).toBe("SvcPacket Ordinary");
    expect(row.shippingCost).toBe("4.99");
  });

  it("FR: the service refuses the first choice (1605001), the fallback is used; both on the timeline", async () => {
    h.svc.suspendLogistics("Express Air");
    try {
      const creates = opCalls(h, "createOrderV3");
      const row = await orderTo("FR", "France", "FR Lamp");
      expect(row.state).toBe("PAID");
      expect(row.logisticName).toBe("SvcPacket Ordinary");
      expect(h.svc.order(row.svcOrderId!)!.logisticName).toBe("SvcPacket Ordinary");
      // Two creates (one refused), one service order.
      expect(opCalls(h, "createOrderV3")).toBe(creates + 2);
      expect(h.svc.orders().filter((o) => o.orderNumber === row.orderNumber)).toHaveLength(1);
      const steps = row.timeline
        .filter((t) => t.step === "shipping" || (t.step === "create" && t.outcome === "error"))
        .map((t) => t.message);
      expect(steps[0]).toMatch(/^Shipping: Express Air, 18\.73 USD, 5–7 days/);
      expect(steps[1]).toMatch(/refused the shipping method Express Air .*suspended/);
      expect(steps[2]).toBe(
        "Shipping: SvcPacket Ordinary, 6.23 USD, 9–14 days (fallback after Express Air was refused).",
      );
    } finally {
      h.svc.suspendLogistics("Express Air", false);
    }
  });

  it("AU: nothing within 3 days is offered: held no_shipping_method, naming what is offered", async () => {
    const row = await orderTo("AU", "Australia", "AU Lamp");
    expect([row.state, row.reasonCode]).toEqual(["HELD", "no_shipping_method"]);
    expect(row.reasonMessage).toContain("Offered from CN to AU: SvcPacket Ordinary, 7.48 USD");
    expect(h.svc.orders().filter((o) => o.orderNumber === row.orderNumber)).toHaveLength(0);

    // The merchant widens the rule in Settings: the order goes on at once.
    const form = new FormData();
    form.set("intent", "save-shipping");
    form.set(
      "shippingRules",
      JSON.stringify(RULES.map((r) => (r.to === "AU" ? { ...r, days: 10 } : r))),
    );
    const r = await settingsAction(prisma, h.shopDomain, form, { sandbox: false });
    expect(r).toMatchObject({ ok: true });
    await h.settle();
    const after = await h.row(Number(row.shopifyOrderId));
    expect(after.state).toBe("PAID");
    expect(after.logisticName).toBe("Express Air");
  });
});

describe("settings", () => {
  it("refuse a named method or a fallback the service does not offer, and change nothing", async () => {
    const before = await prisma.shop.findUniqueOrThrow({ where: { domain: h.shopDomain } });
    for (const [rules, field, text] of [
      [
        [{ to: "*", from: "CN", strategy: "named", method: "Bogus Post" }],
        "shippingRules.0.method",
        "Bogus Post is not offered from CN to US",
      ],
      [
        [{ to: "DE", from: "CN", strategy: "cheapest", fallbacks: ["USPS"] }],
        "shippingRules.0.fallbacks",
        "USPS is not offered from CN to DE",
      ],
      [
        [{ to: "DE", from: "CN", strategy: "cheapest_within" }],
        "shippingRules.0.days",
        "enter the number of days",
      ],
      [
        [{ to: "Germany", from: "CN", strategy: "cheapest" }],
        "shippingRules.0.to",
        "a two-letter country code",
      ],
    ] as const) {
      const form = new FormData();
      form.set("intent", "save-shipping");
      form.set("shippingRules", JSON.stringify(rules));
      const r = await settingsAction(prisma, h.shopDomain, form, { sandbox: false });
      expect(r.ok).toBe(false);
      expect(!r.ok && r.errors[field]).toContain(text);
    }
    const bad = new FormData();
    bad.set("intent", "save-shipping");
    bad.set("shippingRules", "{not json");
    const r = await settingsAction(prisma, h.shopDomain, bad, { sandbox: false });
    expect(!r.ok && r.errors.shippingRules).toBe(
      "The shipping rules could not be read: try again.",
    );
    expect(await prisma.shop.findUniqueOrThrow({ where: { domain: h.shopDomain } })).toEqual(
      before,
    );
  });
});

describe("rules (pure)", () => {
  const o = (logisticName: string, price: string, min: number | null, max: number | null) => ({
    logisticName,
    priceUsd: toMoney(price),
    minDays: min,
    maxDays: max,
  });
  const offered = [
    o("Slow", "2.00", 10, 20),
    o("Mid", "5.00", 5, 8),
    o("Fast", "9.00", 2, 3),
    o("Odd", "1.00", null, null),
  ];
  const rule = (r: Record<string, unknown>) => ruleSchema.parse({ to: "*", ...r });

  it("the country's rule, else its region's, else the default; none without a default", () => {
    const rules = [
      rule({ to: "EU", strategy: "fastest" }),
      rule({ to: "DE", strategy: "cheapest" }),
      rule({ strategy: "named", method: "Mid" }),
    ];
    expect(ruleFor(rules, "de")!.to).toBe("DE");
    expect(ruleFor(rules, "FR")!.to).toBe("EU");
    expect(ruleFor(rules, "US")!.to).toBe("*");
    expect(ruleFor(rules.slice(0, 2), "US")).toBeNull();
  });

  it("each strategy's order, the cap, and fallbacks after the pick without repeats", () => {
    const names = (r: Record<string, unknown>) =>
      candidates(rule(r), offered).map((x) => x.logisticName);
    expect(names({ strategy: "cheapest" })).toEqual(["Odd", "Slow", "Mid", "Fast"]);
    expect(names({ strategy: "fastest" })).toEqual(["Fast", "Mid", "Slow", "Odd"]);
    expect(names({ strategy: "cheapest_within", days: 8 })).toEqual(["Mid", "Fast"]);
    expect(names({ strategy: "cheapest_within", days: 8, maxPriceUsd: "8.99" })).toEqual(["Mid"]);
    expect(names({ strategy: "cheapest_within", days: 8, maxPriceUsd: "9" })).toEqual([
      "Mid",
      "Fast",
    ]);
    expect(
      names({ strategy: "named", method: "fast", fallbacks: ["Mid", "Fast", "Nope", "Slow"] }),
    ).toEqual(["Fast", "Mid", "Slow"]);
    expect(
      names({ strategy: "named", method: "Nope", fallbacks: ["Slow"], maxPriceUsd: "1.50" }),
    ).toEqual([]);
    expect(() => rule({ strategy: "named" })).toThrow();
    expect(() => rule({ strategy: "cheapest", maxPriceUsd: "0" })).toThrow();
    expect(() => rule({ strategy: "cheapest", maxPriceUsd: "-1" })).toThrow();
  });
});
