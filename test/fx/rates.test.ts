/**
 * Exchange rates (issue 14, app/fx): the ECB document read strictly, exact arithmetic, the
 * merchant's rate first, stale rates unused, the source asked at most every 12 hours (and not
 * again right after a failure), rates arriving re-checking the orders held for want of them,
 * and the hourly refresh job. The rates source is the simulator in test/sim/fx (real HTTP).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { itemsTotal, rateText } from "../../app/fx/format";
import { FX_JOB, fxHandlers, fxRecurringJobs } from "../../app/fx/jobs.server";
import {
  convert,
  divide,
  MAX_DOCUMENT_CHARS,
  parseEcbXml,
  REFRESH_MS,
  refreshDue,
  refreshRates,
  RETRY_MS,
  STALE_MS,
  usdRate,
} from "../../app/fx/rates.server";
import type { JobContext } from "../../app/jobs/handler";
import { ecbXml, type FxSim, startFxSim } from "../sim/fx/server";

let fx: FxSim;
beforeAll(async () => {
  fx = await startFxSim();
});
afterAll(async () => {
  await fx?.close();
});
beforeEach(async () => {
  await prisma.fxRate.deleteMany({});
  await prisma.job.deleteMany({});
  await prisma.shopOrder.deleteMany({});
  fx.set({ rates: { USD: "1.0812", GBP: "0.8350", JPY: "163.42" }, status: 200 });
});

/** Times far apart per test, so that one test's failed fetch never holds back another's. */
let clock = Date.parse("2026-11-24T08:00:00Z");
const later = () => (clock += 10 * 24 * 3_600_000);

describe("the ECB document", () => {
  const ok = (cubes: string) =>
    `<gesmes:Envelope><Cube><Cube time="2026-11-23">${cubes}</Cube></Cube></gesmes:Envelope>`;

  it("is read: date, units per EUR, EUR itself 1", () => {
    const doc = parseEcbXml(ecbXml("2026-11-20", { USD: "1.1", JPY: "160" }));
    expect(doc.date).toBe("2026-11-20");
    expect([...doc.perEur]).toEqual([
      ["EUR", "1"],
      ["USD", "1.1"],
      ["JPY", "160"],
    ]);
    // The ECB's own quoting (double quotes, no space before the slash).
    expect(
      parseEcbXml(ok(`<Cube currency="USD" rate="1.0812"/><Cube currency="CHF" rate="0.9370"/>`))
        .perEur,
    ).toEqual(
      new Map([
        ["EUR", "1"],
        ["USD", "1.0812"],
        ["CHF", "0.9370"],
      ]),
    );
  });

  it("refuses zero, negative, empty and non-numeric rates", () => {
    for (const rate of ["0", "0.0000", "-3", "", "1,5", "1e3", " 1.2", "abc"]) {
      expect(() =>
        parseEcbXml(ok(`<Cube currency="USD" rate="1.1"/><Cube currency="JPY" rate="${rate}"/>`)),
      ).toThrow(/JPY has no positive rate/);
    }
  });

  it("refuses a malformed or doubled entry, a bad code, no USD, no or two dates, a huge body", () => {
    expect(() =>
      parseEcbXml(ok(`<Cube currency="USD" rate="1.1"/><Cube rate="2" currency="JPY"/>`)),
    ).toThrow(/a currency entry is malformed/);
    expect(() =>
      parseEcbXml(ok(`<Cube currency="USD" rate="1.1"/><Cube currency="JPY" rate=160/>`)),
    ).toThrow(/malformed/);
    expect(() => parseEcbXml(ok(`<Cube currency="usd" rate="1.1"/>`))).toThrow(
      /"usd" is not a currency code/,
    );
    expect(() =>
      parseEcbXml(ok(`<Cube currency="USD" rate="1.1"/><Cube currency="USD" rate="1.2"/>`)),
    ).toThrow(/USD is listed twice/);
    expect(() =>
      parseEcbXml(ok(`<Cube currency="EUR" rate="1"/><Cube currency="USD" rate="1.2"/>`)),
    ).toThrow(/EUR is listed twice/);
    expect(() => parseEcbXml(ok(`<Cube currency="JPY" rate="160"/>`))).toThrow(/no USD rate/);
    expect(() => parseEcbXml("<html>maintenance</html>")).toThrow(/no date/);
    expect(() =>
      parseEcbXml(
        `<Cube time="2026-11-23"><Cube currency="USD" rate="1.1"/></Cube><Cube time="2026-11-22"></Cube>`,
      ),
    ).toThrow(/more than one date/);
    expect(() =>
      parseEcbXml(`<Cube time="2026-13-45"><Cube currency="USD" rate="1.1"/></Cube>`),
    ).toThrow(/is not a date/);
    expect(() =>
      parseEcbXml(ok(`<Cube currency="USD" rate="1.1"/>`) + " ".repeat(MAX_DOCUMENT_CHARS)),
    ).toThrow(/too large/);
  });
});

describe("exact arithmetic", () => {
  it("divides to eight digits and converts to cents, half up", () => {
    expect(divide("1.0812", "0.8350")).toBe("1.2948503");
    expect(divide("1", "3")).toBe("0.33333333");
    expect(divide("2", "3")).toBe("0.66666667");
    expect(divide("1.0812", "1")).toBe("1.0812");
    expect(convert("20.00", "1.0812")).toBe("21.62");
    expect(convert("0.5", "0.01")).toBe("0.01");
    expect(convert("0.4", "0.01")).toBe("0.00");
    expect(convert("0.125", "1")).toBe("0.13");
    expect(convert("19.99", "1")).toBe("19.99");
    expect(convert("3", "2")).toBe("6.00");
    // A float would make 1.005 × 1 = 1.00; exact decimals give 1.01.
    expect(convert("1.005", "1")).toBe("1.01");
  });
});

describe("the rate of a currency", () => {
  it("needs none for USD and asks the source nothing", async () => {
    const before = fx.requests();
    expect(
      await usdRate(prisma, "usd", { fxRates: { USD: "2" } }, { nowMs: later(), url: fx.url }),
    ).toEqual({
      usdPerUnit: "1",
      source: "USD",
    });
    expect(fx.requests()).toBe(before);
  });

  it("is the merchant's own when set, over a stored or fetched one", async () => {
    const now = later();
    expect(await usdRate(prisma, "EUR", { fxRates: {} }, { nowMs: now, url: fx.url })).toEqual({
      usdPerUnit: "1.0812",
      source: "ECB 2026-11-23",
    });
    const before = fx.requests();
    expect(
      await usdRate(prisma, "EUR", { fxRates: { EUR: "1.2" } }, { nowMs: now, url: fx.url }),
    ).toEqual({
      usdPerUnit: "1.2",
      source: "merchant",
    });
    expect(
      await usdRate(prisma, "GBP", { fxRates: { EUR: "1.2" } }, { nowMs: now, url: fx.url }),
    ).toEqual({
      usdPerUnit: "1.2948503",
      source: "ECB 2026-11-23",
    });
    expect(fx.requests()).toBe(before);
  });

  it("asks the source at most every 12 hours, by its last good fetch, whatever the currency", async () => {
    const now = later();
    const before = fx.requests();
    expect(
      await usdRate(prisma, "GBP", { fxRates: {} }, { nowMs: now, url: fx.url }),
    ).not.toBeNull();
    // A currency the document lacks does not make every order ask again.
    expect(
      await usdRate(prisma, "ISK", { fxRates: {} }, { nowMs: now + 1, url: fx.url }),
    ).toBeNull();
    expect(
      await usdRate(prisma, "ISK", { fxRates: {} }, { nowMs: now + REFRESH_MS - 1, url: fx.url }),
    ).toBeNull();
    expect(fx.requests()).toBe(before + 1);
    fx.set({ rates: { USD: "1.10", GBP: "0.80", ISK: "150" } });
    expect(
      await usdRate(prisma, "ISK", { fxRates: {} }, { nowMs: now + REFRESH_MS, url: fx.url }),
    ).toEqual({
      usdPerUnit: "0.00733333",
      source: "ECB 2026-11-23",
    });
    expect(fx.requests()).toBe(before + 2);
    expect((await prisma.fxRate.findUniqueOrThrow({ where: { currency: "GBP" } })).usdPerUnit).toBe(
      "1.375",
    );
  });

  it("is none when the stored one is older than 72 hours and the source does not answer", async () => {
    const now = later();
    await usdRate(prisma, "EUR", { fxRates: {} }, { nowMs: now, url: fx.url });
    fx.set({ status: 503 });
    expect(
      await usdRate(prisma, "EUR", { fxRates: {} }, { nowMs: now + STALE_MS - 1, url: fx.url }),
    ).toEqual({
      usdPerUnit: "1.0812",
      source: "ECB 2026-11-23",
    });
    expect(
      await usdRate(prisma, "EUR", { fxRates: {} }, { nowMs: now + STALE_MS, url: fx.url }),
    ).toBeNull();
    // No source configured: the stored rate alone decides.
    expect(
      await usdRate(prisma, "EUR", { fxRates: {} }, { nowMs: now + 1, url: "" }),
    ).not.toBeNull();
    expect(
      await usdRate(prisma, "EUR", { fxRates: {} }, { nowMs: now + STALE_MS, url: "" }),
    ).toBeNull();
  });

  it("does not ask a failing source again for 5 minutes", async () => {
    const now = later();
    fx.set({ status: 500 });
    const before = fx.requests();
    expect(await usdRate(prisma, "EUR", { fxRates: {} }, { nowMs: now, url: fx.url })).toBeNull();
    expect(
      await usdRate(prisma, "EUR", { fxRates: {} }, { nowMs: now + RETRY_MS - 1, url: fx.url }),
    ).toBeNull();
    expect(fx.requests()).toBe(before + 1);
    fx.set({ status: 200 });
    expect(
      await usdRate(prisma, "EUR", { fxRates: {} }, { nowMs: now + RETRY_MS, url: fx.url }),
    ).not.toBeNull();
    expect(fx.requests()).toBe(before + 2);
  });

  it("a malformed document stores nothing", async () => {
    const now = later();
    fx.set({ body: ecbXml("2026-11-23", { USD: "1.1", GBP: "0" }) });
    await expect(refreshRates(prisma, fx.url, now)).rejects.toThrow(/GBP has no positive rate/);
    expect(await prisma.fxRate.count()).toBe(0);
    expect(await refreshDue(prisma, fx.url, now + 1)).toBe(false);
    expect(await refreshDue(prisma, fx.url, now + RETRY_MS)).toBe(true);
    expect(await refreshDue(prisma, "", now + RETRY_MS)).toBe(false);
  });
});

describe("rates arriving", () => {
  const heldOrder = (
    n: number,
    o: { currency: string | null; reasonCode?: string; state?: string },
  ) =>
    prisma.shopOrder.create({
      data: {
        shopDomain: n % 2 ? "a.myshopify.com" : "b.myshopify.com",
        shopifyOrderId: String(n),
        orderNumber: `fx-${n}`,
        state: o.state ?? "HELD",
        reasonCode: o.reasonCode ?? "no_fx_rate",
        currency: o.currency,
      },
    });

  it("re-check the orders of every shop held for a rate now stored, and no others", async () => {
    const chf = await heldOrder(1, { currency: "CHF" });
    const unknown = await heldOrder(2, { currency: null });
    await heldOrder(3, { currency: "ISK" });
    await heldOrder(4, { currency: "CHF", reasonCode: "paused" });
    await heldOrder(5, { currency: "CHF", state: "CREATED", reasonCode: "no_fx_rate" });
    fx.set({ rates: { USD: "1.0812", CHF: "0.9370" } });
    expect(await refreshRates(prisma, fx.url, later())).toEqual(["EUR", "USD", "CHF"]);
    const jobs = await prisma.job.findMany({ where: { kind: "fulfilment.place" } });
    expect(jobs.map((j) => (j.payload as { orderId: string }).orderId).sort()).toEqual(
      [chf.id, unknown.id].sort(),
    );
    expect(jobs.map((j) => j.shopDomain).sort()).toEqual(["a.myshopify.com", "b.myshopify.com"]);
  });

  it("leave out a rate too small to write in eight digits", async () => {
    fx.set({ rates: { USD: "1.08", XXX: "999999999" } });
    expect(await refreshRates(prisma, fx.url, later())).toEqual(["EUR", "USD"]);
    expect(await prisma.fxRate.findUnique({ where: { currency: "XXX" } })).toBeNull();
  });
});

describe("the hourly refresh job", () => {
  const ctx = { prisma } as unknown as JobContext;

  it("runs every hour and fetches only when due", async () => {
    expect(fxRecurringJobs).toEqual([{ kind: FX_JOB.refresh, everyMs: 3_600_000 }]);
    expect(await fxHandlers(() => "")[FX_JOB.refresh]!(ctx)).toEqual({
      skipped: "no rates source (FX_RATES_URL is off)",
    });
    const run = fxHandlers(() => fx.url)[FX_JOB.refresh]!;
    const before = fx.requests();
    expect(await run(ctx)).toEqual({ currencies: 4 });
    expect(await run(ctx)).toEqual({ skipped: "not due" });
    expect(fx.requests()).toBe(before + 1);
    fx.set({ status: 502 });
    await prisma.fxRate.deleteMany({});
    await expect(run(ctx)).rejects.toThrow(/answered 502/);
  });
});

describe("the order page's words", () => {
  it("name the rate and its source, and add the shop's lines exactly", () => {
    expect(rateText({ currency: "EUR", fxRate: "1.0812", fxSource: "ECB 2026-11-23" })).toBe(
      "1 EUR = 1.0812 USD, ECB 2026-11-23",
    );
    expect(rateText({ currency: "ISK", fxRate: "0.0072", fxSource: "merchant" })).toBe(
      "1 ISK = 0.0072 USD, your rate in Settings",
    );
    expect(rateText({ currency: "USD", fxRate: null, fxSource: null })).toBe(
      "none needed (the shop sells in USD)",
    );
    expect(rateText({ currency: "EUR", fxRate: null, fxSource: null })).toBe("none used yet");
    expect(
      itemsTotal([
        { unitPrice: "0.10", quantity: 3 },
        { unitPrice: "0.20", quantity: 1 },
      ]),
    ).toBe("0.50");
    expect(itemsTotal([])).toBe("0.00");
  });
});
