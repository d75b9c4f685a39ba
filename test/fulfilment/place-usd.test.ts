/**
 * USD (issue 14): prices go to the service in USD, converted from the shop's currency with the
 * ECB's reference rates (a rates server of the same shape here) or the merchant's own rate; a
 * USD shop needs none; a currency without a rate holds the order until one is set.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settingsAction, parseRates } from "../../app/settings-forms/page.server";
import { refreshRates } from "../../app/fx/rates.server";
import { schedulePlace } from "../../app/orders/schedule.server";
import { updateSettings } from "../../app/settings.server";
import { type FxSim, startFxSim } from "../sim/fx/server";
import { type Harness, prisma, startHarness } from "./harness";

let h: Harness;
let fx: FxSim;
beforeAll(async () => {
  fx = await startFxSim();
  h = await startHarness({ shopDomain: "usd-shop.myshopify.com" });
  h.deps.options = { ...h.deps.options, fxRatesUrl: fx.url };
});
afterAll(async () => {
  await h?.close();
  await fx?.close();
});

async function orderIn(currency: string, title: string, price: string) {
  const p = await h.connectedProduct(title, price);
  const placed = h.shop.placeOrder(h.shopDomain, {
    lines: [{ variantId: p.variants[0]!.id, quantity: 2 }],
    currency,
  });
  const res = await h.shop.sendWebhook(
    h.shopDomain,
    "orders/paid",
    h.shop.orderWebhookPayload(h.shopDomain, placed.id),
  );
  expect(res.status).toBe(200);
  await h.settle();
  return placed.legacyId;
}

const sentPrices = (orderNumber: string) => {
  const call = h.svc
    .calls({ op: "createOrderV3", accountId: h.simAccountId })
    .filter((c) => (c.body as { orderNumber?: string }).orderNumber === orderNumber)
    .at(-1)!;
  return (call.body as { products: Array<{ unitPrice: unknown }> }).products.map(
    (p) => p.unitPrice,
  );
};

describe("prices in USD", () => {
  it("a EUR shop sends USD at the reference rate, and keeps both on the order", async () => {
    const id = await orderIn("EUR", "Euro Lamp", "20.00");
    const row = await h.row(id);
    expect(row.state).toBe("PAID");
    expect(sentPrices(row.orderNumber)).toEqual(["21.62"]);
    expect(row.lines[0]).toMatchObject({ unitPrice: "20.00", unitPriceUsd: "21.62" });
    expect([row.fxRate, row.fxSource]).toEqual(["1.0812", "ECB 2026-11-23"]);
    expect(fx.requests()).toBe(1);
    // A second order uses the stored rates (fetched at most every 12 hours).
    const again = await h.row(await orderIn("GBP", "Pound Lamp", "10.00"));
    expect(sentPrices(again.orderNumber)).toEqual(["12.95"]);
    expect(again.fxRate).toBe("1.2948503");
    expect(fx.requests()).toBe(1);
  });

  it("a USD shop sends its prices unchanged and asks no rates", async () => {
    const before = fx.requests();
    const row = await h.row(await orderIn("USD", "Dollar Lamp", "19.99"));
    expect(row.state).toBe("PAID");
    expect(sentPrices(row.orderNumber)).toEqual(["19.99"]);
    expect([row.fxRate, row.lines[0]!.unitPriceUsd]).toEqual([null, null]);
    expect(fx.requests()).toBe(before);
  });

  it("a currency without a rate is held no_fx_rate; a rate set in Settings lets it go on", async () => {
    const before = fx.requests();
    const id = await orderIn("ISK", "Krona Lamp", "1000");
    let row = await h.row(id);
    expect([row.state, row.reasonCode]).toEqual(["HELD", "no_fx_rate"]);
    expect(row.reasonMessage).toBe(
      "Prices go to the service in USD, and no exchange rate from ISK is known (the rates source did not answer or has no ISK). Set a rate for ISK in Settings → Exchange rates, or wait: the order goes on when rates arrive.",
    );
    expect(row.timeline.filter((t) => t.errorCode === "no_fx_rate")).toHaveLength(1);
    expect(h.svc.orders().filter((o) => o.orderNumber === row.orderNumber)).toHaveLength(0);
    // The rates fetched for the first order are fresh: a currency they lack asks nothing.
    expect(fx.requests()).toBe(before);
    // The currency placed by is the shop's, not the webhook's (here: a webhook without one).
    await prisma.shopOrder.update({ where: { id: row.id }, data: { currency: null } });

    const form = new FormData();
    form.set("intent", "save-fx");
    form.set("fxRates", "ISK 0.0072\nEUR=1.05");
    const r = await settingsAction(prisma, h.shopDomain, form, { sandbox: false });
    expect(r).toMatchObject({
      ok: true,
      message: "Exchange rates saved; 1 held order is checked again now",
    });
    await h.settle();
    row = await h.row(id);
    expect(row.state).toBe("PAID");
    expect(sentPrices(row.orderNumber)).toEqual(["7.20"]);
    expect([row.currency, row.fxRate, row.fxSource]).toEqual(["ISK", "0.0072", "merchant"]);
    expect(row.lines[0]).toMatchObject({ unitPrice: "1000.00", unitPriceUsd: "7.20" });
    await updateSettings(prisma, h.shopDomain, { fxRates: {} });
  });

  it("an order held for a rate the source lacks goes on when the rates bring it", async () => {
    const id = await orderIn("CHF", "Franc Lamp", "50.00");
    let row = await h.row(id);
    expect([row.state, row.reasonCode]).toEqual(["HELD", "no_fx_rate"]);
    // Checked again (the reconciler's pass) while still without a rate: held, and the shop's
    // currency recorded, so that the rate arriving finds the order.
    await prisma.shopOrder.update({ where: { id: row.id }, data: { currency: null } });
    await schedulePlace(prisma, { orderId: row.id, shopDomain: h.shopDomain, key: "again" });
    await h.settle();
    row = await h.row(id);
    expect([row.state, row.reasonCode, row.currency]).toEqual(["HELD", "no_fx_rate", "CHF"]);
    expect(row.timeline.filter((t) => t.errorCode === "no_fx_rate")).toHaveLength(1);

    fx.set({ rates: { USD: "1.0812", GBP: "0.8350", CHF: "0.9370" }, date: "2026-11-24" });
    await refreshRates(prisma, fx.url, Date.now());
    await h.settle();
    row = await h.row(id);
    expect(row.state).toBe("PAID");
    // 1.0812 / 0.9370 = 1.15389541 USD per franc; 50.00 × that = 57.69.
    expect(sentPrices(row.orderNumber)).toEqual(["57.69"]);
    expect([row.fxRate, row.fxSource]).toEqual(["1.15389541", "ECB 2026-11-24"]);
  });
});

describe("the settings field", () => {
  it("the settings field takes one rate per line and refuses anything else", () => {
    expect(parseRates(" eur 1.08 \n\nGBP=1.27")).toEqual({ EUR: "1.08", GBP: "1.27" });
    expect(parseRates("")).toEqual({});
    expect(parseRates("EUR 0")).toMatch(/is not a rate/);
    expect(parseRates("EUR -1")).toMatch(/is not a rate/);
    expect(parseRates("EURO 1")).toMatch(/is not a rate/);
    expect(parseRates("EUR 1\nEUR 2")).toBe("EUR is listed twice");
    expect(parseRates("USD 1")).toBe("USD needs no rate");
  });
});
