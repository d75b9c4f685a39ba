/**
 * Choosing an order's shipping method (app/shipping/choose.server.ts) and the stored freight
 * quotes it asks (app/shipping/quote.server.ts), against the service simulator over HTTP and the
 * test database: a merchant's pin, the legacy single method, no rule, no matched line, a refused
 * quote, nothing fitting (the offer named in the merchant's words), the choices in the rule's
 * order; quotes stored per route and variants, asked again after their time, and per line when
 * the combined quote offers nothing; the timeline's sentence. The pipeline's use is in
 * test/fulfilment/place-shipping.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { choiceMessage, chooseShipping } from "../../app/shipping/choose.server";
import {
  QUOTE_TTL_MS,
  combine,
  pruneQuotes,
  quoteFor,
  quoteKey,
} from "../../app/shipping/quote.server";
import { ruleSchema } from "../../app/shipping/rules";
import { DEFAULT_SETTINGS, type ShopSettings } from "../../app/settings.server";
import { toMoney } from "../../app/svc/decimal";
import type { SvcClient } from "../../app/svc/index.server";
import { closeSvcPools } from "../../app/svc/transport.server";
import {
  accountFixture,
  prisma,
  startServiceSim,
  type Fixture,
  type ServiceSim,
} from "../svc/sim-helpers";

let sim: ServiceSim;
let fx: Fixture;
let vids: string[] = [];
let clockMs = Date.parse("2026-11-24T08:00:00Z");

beforeAll(async () => {
  sim = await startServiceSim({ catalogSize: 20 });
  fx = await accountFixture(sim, { callsPerSecond: 50, queryCallsPerSecond: 50 });
  vids = [...sim.state.catalog.variantByVid.values()].filter((v) => !v.removed).map((v) => v.vid);
});
afterAll(async () => {
  await closeSvcPools();
  await sim.close();
});

const quoteCalls = () => sim.calls().filter((c) => c.op === "freightCalculate").length;
const deps = (client: SvcClient = fx.client) => ({
  prisma,
  svcFor: async () => client,
  clock: { now: () => clockMs },
});
const settings = (over: Partial<Record<keyof ShopSettings, unknown>> = {}): ShopSettings =>
  ({ ...DEFAULT_SETTINGS, fromCountryCode: "CN", logisticName: "", ...over }) as ShopSettings;
const rule = (r: Record<string, unknown>) => ruleSchema.parse({ to: "*", ...r });
const choose = (o: {
  settings: ShopSettings;
  country?: string;
  pinned?: string | null;
  lines?: Array<{ svcVid: string | null; quantity: number }>;
  zip?: string | null;
  client?: SvcClient;
}) =>
  chooseShipping(deps(o.client), {
    order: { logisticName: o.pinned ?? null },
    lines: o.lines ?? [{ svcVid: vids[0]!, quantity: 1 }],
    countryCode: o.country ?? "US",
    zip: o.zip,
    settings: o.settings,
    accountId: fx.accountId,
  });

/** The client with freightCalculate offering nothing for several variants at once. */
function ownMethodsOnly(client: SvcClient): SvcClient {
  const logistics = new Proxy(client.logistics, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (prop !== "freightCalculate" || typeof v !== "function") return v;
      return async (req: { products: unknown[] }) =>
        req.products.length > 1 ? [] : (v as (r: unknown) => Promise<unknown>).call(target, req);
    },
  });
  return new Proxy(client, {
    get: (t, p, r) => (p === "logistics" ? logistics : (Reflect.get(t, p, r) as unknown)),
  });
}

describe("choosing the method", () => {
  it("a method the merchant chose for this order is used as is, from the rule's origin", async () => {
    const s = settings({ shippingRules: [rule({ from: "US", strategy: "cheapest" })] });
    const before = quoteCalls();
    expect(await choose({ settings: s, pinned: "Express Air" })).toEqual({
      ok: true,
      from: "US",
      choices: [{ logisticName: "Express Air" }],
      rule: s.shippingRules[0],
      note: "the method chosen for this order",
    });
    expect(await choose({ settings: settings(), pinned: "USPS" })).toMatchObject({
      ok: true,
      from: "CN",
      rule: null,
    });
    expect(quoteCalls()).toBe(before);
  });

  it("old settings (one method, no rules) keep that method unquoted; no rule at all is refused", async () => {
    expect(await choose({ settings: settings({ logisticName: "USPS" }) })).toEqual({
      ok: true,
      from: "CN",
      choices: [{ logisticName: "USPS" }],
      rule: null,
      note: null,
    });
    expect(await choose({ settings: settings() })).toEqual({
      ok: false,
      reason: "settings_incomplete",
      message:
        "Shipping is not set up: add a shipping rule in Settings (a rule for every destination is enough) and the order goes on.",
    });
    // Rules that do not cover the destination: the old method is not used.
    const de = settings({
      logisticName: "USPS",
      shippingRules: [rule({ to: "DE", strategy: "cheapest" })],
    });
    expect(await choose({ settings: de, country: "BR" })).toEqual({
      ok: false,
      reason: "settings_incomplete",
      message:
        "No shipping rule covers BR: add a rule for it, or one for every other destination, in Settings.",
    });
  });

  it("no matched line: a named method is used unquoted, any other strategy is refused", async () => {
    const lines = [{ svcVid: null, quantity: 1 }];
    const named = settings({ shippingRules: [rule({ strategy: "named", method: "USPS" })] });
    expect(await choose({ settings: named, lines })).toEqual({
      ok: true,
      from: "CN",
      choices: [{ logisticName: "USPS" }],
      rule: named.shippingRules[0],
      note: "rule for every other destination from CN: USPS",
    });
    const cheapest = settings({ shippingRules: [rule({ strategy: "cheapest" })] });
    expect(await choose({ settings: cheapest, lines, country: "FR" })).toEqual({
      ok: false,
      reason: "no_shipping_method",
      message:
        "No line is matched to a catalog product, so no freight quote can choose the method (rule for every other destination from CN: cheapest). Use a named method for FR, or match the lines.",
    });
    expect(await choose({ settings: cheapest, lines: [] })).toMatchObject({
      ok: false,
      reason: "no_shipping_method",
    });
  });

  it("quoted: the strategy's order, unmatched lines left out of the quote", async () => {
    const s = settings({ shippingRules: [rule({ strategy: "fastest", maxPriceUsd: "20" })] });
    const r = await choose({
      settings: s,
      lines: [
        { svcVid: vids[0]!, quantity: 1 },
        { svcVid: null, quantity: 3 },
      ],
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.from).toBe("CN");
    expect(r.note).toBe("rule for every other destination from CN: fastest, at most 20.00 USD");
    expect(r.choices.length).toBeGreaterThan(1);
    const days = r.choices.map((c) => c.maxDays ?? Infinity);
    expect(days).toEqual([...days].sort((a, b) => a - b));
    for (const c of r.choices) expect(Number(c.priceUsd)).toBeLessThanOrEqual(20);
    const cheapest = await choose({
      settings: settings({ shippingRules: [rule({ strategy: "cheapest" })] }),
    });
    expect(cheapest.ok && cheapest.choices[0]).toEqual({
      logisticName: "USPS",
      priceUsd: "3.99",
      minDays: 2,
      maxDays: 5,
    });
  });

  it("nothing fits: the rule and what is offered, in the merchant's words", async () => {
    const s = settings({ shippingRules: [rule({ strategy: "cheapest", maxPriceUsd: "0.01" })] });
    const r = await choose({ settings: s, country: "US" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toBe("no_shipping_method");
    expect(r.message).toMatch(
      /^No shipping method fits the rule for every other destination from CN: cheapest, at most 0\.01 USD\. Offered from CN to US: USPS, 3\.99 USD, 2–5 days; .+\. Change the rule in Settings and the order goes on\.$/,
    );
    // A blocked destination: nothing offered at all.
    const kp = await choose({
      settings: settings({ shippingRules: [rule({ strategy: "cheapest" })] }),
      country: "KP",
    });
    expect(kp).toEqual({
      ok: false,
      reason: "no_shipping_method",
      message:
        "No shipping method fits the rule for every other destination from CN: cheapest. Offered from CN to KP: nothing. Change the rule in Settings and the order goes on.",
    });
  });

  it("a quote the service refuses holds the order with its words; a passing failure is thrown", async () => {
    const s = settings({ shippingRules: [rule({ strategy: "cheapest" })] });
    const r = await choose({ settings: s, lines: [{ svcVid: "no-such-vid", quantity: 1 }] });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toBe("no_shipping_method");
    expect(r.message).toMatch(/^The service gave no freight quote from CN to US: .+\.$/);
    sim.setFaults({ rate5xx: 1, ops: ["freightCalculate"] });
    try {
      const client = await fx.newClient({
        retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
      });
      await expect(
        choose({ settings: s, country: "CA", lines: [{ svcVid: vids[5]!, quantity: 1 }], client }),
      ).rejects.toThrow();
    } finally {
      sim.clearFaults();
    }
  });

  it("the timeline's sentence names the method, its price and days, and why", () => {
    const quoted = { logisticName: "USPS", priceUsd: toMoney("3.99"), minDays: 2, maxDays: 5 };
    expect(choiceMessage(quoted, "rule for US from CN: cheapest")).toBe(
      "Shipping: USPS, 3.99 USD, 2–5 days (rule for US from CN: cheapest).",
    );
    expect(choiceMessage(quoted, "a note", "Express Air")).toBe(
      "Shipping: USPS, 3.99 USD, 2–5 days (fallback after Express Air was refused).",
    );
    expect(choiceMessage({ logisticName: "USPS" }, null)).toBe("Shipping: USPS.");
    expect(choiceMessage({ logisticName: "USPS" }, "")).toBe("Shipping: USPS.");
  });
});

describe("stored quotes", () => {
  it("one question per route, zip and variants while fresh; stored with its time; asked again after", async () => {
    clockMs += 10 * QUOTE_TTL_MS;
    const input = {
      from: "cn",
      to: "fr",
      zip: "75 001",
      products: [{ vid: vids[2]!, quantity: 2 }],
    };
    const before = quoteCalls();
    const a = await quoteFor(deps(), fx.accountId, input);
    expect(a.perLine).toBe(false);
    expect(a.fetchedAt).toEqual(new Date(clockMs));
    expect(a.options.length).toBeGreaterThan(0);
    const call = sim
      .calls()
      .filter((c) => c.op === "freightCalculate")
      .at(-1)!;
    expect(JSON.stringify(call)).toContain('"startCountryCode":"CN"');
    expect(JSON.stringify(call)).toContain('"endCountryCode":"FR"');
    const stored = await prisma.freightQuote.findUniqueOrThrow({
      where: { key: quoteKey(fx.accountId, input) },
    });
    expect(stored).toMatchObject({ accountId: fx.accountId, fetchedAt: new Date(clockMs) });
    expect(stored.options).toEqual({ options: a.options, perLine: false });

    clockMs += QUOTE_TTL_MS - 1;
    const b = await quoteFor(deps(), fx.accountId, input);
    expect(b).toEqual({ options: a.options, perLine: false, fetchedAt: a.fetchedAt });
    expect(quoteCalls()).toBe(before + 1);
    clockMs += 1;
    const c = await quoteFor(deps(), fx.accountId, input);
    expect(c.fetchedAt).toEqual(new Date(clockMs));
    expect(quoteCalls()).toBe(before + 2);
    await quoteFor(deps(), fx.accountId, input, { fresh: true });
    expect(quoteCalls()).toBe(before + 3);
  });

  it("a zip goes to the service cut to 20 characters; none is not sent", async () => {
    const before = quoteCalls();
    await quoteFor(deps(), fx.accountId, {
      from: "CN",
      to: "US",
      zip: "1".repeat(25),
      products: [{ vid: vids[3]!, quantity: 1 }],
    });
    await quoteFor(deps(), fx.accountId, {
      from: "CN",
      to: "US",
      zip: null,
      products: [{ vid: vids[3]!, quantity: 1 }],
    });
    const calls = sim
      .calls()
      .filter((c) => c.op === "freightCalculate")
      .slice(before);
    expect(calls).toHaveLength(2);
    expect(JSON.stringify(calls[0])).toContain(`"zip":"${"1".repeat(20)}"`);
    expect(JSON.stringify(calls[0])).not.toContain("1".repeat(21));
    expect(JSON.stringify(calls[1])).not.toContain('"zip"');
  });

  it("when the combined quote offers nothing, each variant is asked alone and the common methods kept", async () => {
    const client = ownMethodsOnly(fx.client);
    const products = [
      { vid: vids[6]!, quantity: 1 },
      { vid: vids[7]!, quantity: 2 },
      { vid: vids[6]!, quantity: 1 },
    ];
    const before = quoteCalls();
    const q = await quoteFor(deps(client), fx.accountId, { from: "CN", to: "US", products });
    expect(q.perLine).toBe(true);
    expect(quoteCalls()).toBe(before + 2);
    const one = await fx.client.logistics.freightCalculate({
      startCountryCode: "CN",
      endCountryCode: "US",
      products: [{ vid: vids[6]!, quantity: 2 }],
    });
    const two = await fx.client.logistics.freightCalculate({
      startCountryCode: "CN",
      endCountryCode: "US",
      products: [{ vid: vids[7]!, quantity: 2 }],
    });
    expect(q.options).toEqual(combine([one, two]));
    expect(q.options.length).toBeGreaterThan(0);
    const stored = await prisma.freightQuote.findUniqueOrThrow({
      where: { key: quoteKey(fx.accountId, { from: "CN", to: "US", products }) },
    });
    expect(stored.options).toMatchObject({ perLine: true });
    expect(
      (await quoteFor(deps(client), fx.accountId, { from: "CN", to: "US", products })).perLine,
    ).toBe(true);
    // One variant offered nothing: nothing per line either (asked once).
    const kp = await quoteFor(deps(client), fx.accountId, {
      from: "CN",
      to: "KP",
      products: [{ vid: vids[8]!, quantity: 1 }],
    });
    expect(kp).toMatchObject({ options: [], perLine: false });
  });

  it("keys: case, spaces in the zip, line order and split quantities do not matter", () => {
    const p = [
      { vid: "a", quantity: 1 },
      { vid: "b", quantity: 2 },
    ];
    const k = quoteKey("acc", { from: "CN", to: "US", zip: "ab 12", products: p });
    expect(k).toMatch(/^[0-9a-f]{64}$/);
    expect(quoteKey("acc", { from: "cn", to: "us", zip: " AB12 ", products: [p[1]!, p[0]!] })).toBe(
      k,
    );
    expect(quoteKey("acc", { from: "CN", to: "US", zip: "ab13", products: p })).not.toBe(k);
    expect(quoteKey("acc", { from: "US", to: "US", zip: "ab12", products: p })).not.toBe(k);
    expect(
      quoteKey("acc", { from: "CN", to: "US", zip: "ab12", products: [{ vid: "a", quantity: 1 }] }),
    ).not.toBe(k);
    expect(
      quoteKey("acc", {
        from: "CN",
        to: "US",
        zip: "ab12",
        products: [
          { vid: "a", quantity: 1 },
          { vid: "b", quantity: 3 },
        ],
      }),
    ).not.toBe(k);
    expect(quoteKey("acc", { from: "CN", to: "US", products: p })).toBe(
      quoteKey("acc", { from: "CN", to: "US", zip: "", products: p }),
    );
    // Sorted by variant whatever the order, with more than two.
    const three = [
      { vid: "c", quantity: 1 },
      { vid: "a", quantity: 1 },
      { vid: "b", quantity: 1 },
    ];
    expect(quoteKey("acc", { from: "CN", to: "US", products: three })).toBe(
      quoteKey("acc", { from: "CN", to: "US", products: [three[1]!, three[2]!, three[0]!] }),
    );
  });

  it("combines per-line quotes: common methods, summed, slowest, cheapest first", () => {
    const o = (logisticName: string, priceUsd: string, min: number | null, max: number | null) => ({
      logisticName,
      priceUsd: toMoney(priceUsd),
      minDays: min,
      maxDays: max,
    });
    expect(
      combine([
        [o("A", "3.00", 2, 5), o("B", "1.00", 7, 9), o("D", "0.50", 1, 1)],
        [o("B", "2.50", 8, 12), o("A", "1.00", 4, 4), o("C", "1.00", 1, 2)],
      ]),
    ).toEqual([o("B", "3.50", 8, 12), o("A", "4.00", 4, 5)]);
    expect(combine([[o("A", "1", 1, null)], [o("A", "2", 1, 2)]])).toEqual([
      o("A", "3.00", 1, null),
    ]);
    expect(combine([[o("A", "1", 1, 2)]])).toEqual([o("A", "1.00", 1, 2)]);
    expect(combine([])).toEqual([]);
  });

  it("old quotes are pruned, fresh ones kept", async () => {
    const now = clockMs + 100 * QUOTE_TTL_MS;
    await prisma.freightQuote.createMany({
      data: [
        {
          key: "old-1",
          accountId: fx.accountId,
          options: {},
          fetchedAt: new Date(now - QUOTE_TTL_MS - 1),
        },
        {
          key: "edge-1",
          accountId: fx.accountId,
          options: {},
          fetchedAt: new Date(now - QUOTE_TTL_MS),
        },
      ],
    });
    const count = await prisma.freightQuote.count();
    const pruned = await pruneQuotes(prisma, now);
    expect(pruned).toBe(count - 1);
    expect((await prisma.freightQuote.findMany()).map((q) => q.key)).toEqual(["edge-1"]);
  });
});
