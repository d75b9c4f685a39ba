/**
 * Freight quotes (DESIGN §8): the client's freightCalculate against the service simulator, the
 * simulator's refusal of a method not offered on a route, and the stored quote shared by calls.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAging } from "../../app/svc/logistics.server";
import { SvcParamError, SvcValidationError } from "../../app/svc/errors";
import { closeSvcPools } from "../../app/svc/transport.server";
import { combine, quoteFor, quoteKey, QUOTE_TTL_MS } from "../../app/shipping/quote.server";
import { toMoney } from "../../app/svc/decimal";
import {
  accountFixture,
  expectCode,
  prisma,
  sampleOrder,
  startServiceSim,
  type Fixture,
  type ServiceSim,
} from "./sim-helpers";

let sim: ServiceSim;
let fx: Fixture;
let vids: string[] = [];

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
let clockMs = Date.parse("2026-11-24T08:00:00Z");
const deps = () => ({
  prisma,
  svcFor: async () => fx.client,
  clock: { now: () => clockMs },
});

describe("freightCalculate", () => {
  it("offers the route's methods cheapest first, with USD price and transit days", async () => {
    const us = await fx.client.logistics.freightCalculate({
      startCountryCode: "CN",
      endCountryCode: "US",
      products: [{ vid: vids[0]!, quantity: 1 }],
    });
    expect(us.map((o) => o.logisticName)).toEqual([
      "USPS",
      "SvcPacket Ordinary",
      "SvcPacket Sensitive",
      "Express Air",
    ]);
    expect(us[0]).toEqual({ logisticName: "USPS", priceUsd: "3.99", minDays: 2, maxDays: 5 });
    // Europe: no USPS, prices a quarter up, two more days.
    const de = await fx.client.logistics.freightCalculate({
      startCountryCode: "CN",
      endCountryCode: "DE",
      products: [{ vid: vids[0]!, quantity: 2 }],
    });
    expect(de.map((o) => o.logisticName)).not.toContain("USPS");
    expect(de.find((o) => o.logisticName === "SvcPacket Ordinary")).toEqual({
      logisticName: "SvcPacket Ordinary",
      priceUsd: "7.48",
      minDays: 9,
      maxDays: 14,
    });
    // A blocked destination: nothing offered.
    const kp = await fx.client.logistics.freightCalculate({
      startCountryCode: "CN",
      endCountryCode: "KP",
      products: [{ vid: vids[0]!, quantity: 1 }],
    });
    expect(kp).toEqual([]);
  });

  it("refuses bad input before sending, and an unknown variant at the service", async () => {
    const before = quoteCalls();
    await expect(
      fx.client.logistics.freightCalculate({
        startCountryCode: "CN",
        endCountryCode: "US",
        products: [],
      }),
    ).rejects.toBeInstanceOf(SvcValidationError);
    await expect(
      fx.client.logistics.freightCalculate({
        startCountryCode: "CHN",
        endCountryCode: "US",
        products: [{ vid: vids[0]!, quantity: 1 }],
      }),
    ).rejects.toBeInstanceOf(SvcValidationError);
    expect(quoteCalls()).toBe(before);
    await expectCode(
      fx.client.logistics.freightCalculate({
        startCountryCode: "CN",
        endCountryCode: "US",
        products: [{ vid: "no-such-vid", quantity: 1 }],
      }),
      1600100,
      SvcParamError,
    );
  });

  it("the service refuses, at creation, a method it does not offer on the route (1605001)", async () => {
    await expectCode(
      fx.client.orders.createOrderV3(
        sampleOrder(`FR-${Date.now()}`, vids[0]!, {
          shippingCountryCode: "DE",
          shippingCountry: "Germany",
          logisticName: "USPS",
        }),
      ),
      1605001,
    );
    const ok = await fx.client.orders.createOrderV3(
      sampleOrder(`FR-${Date.now()}-ok`, vids[0]!, {
        shippingCountryCode: "DE",
        shippingCountry: "Germany",
        logisticName: "Express Air",
      }),
    );
    // The postage charged is the quoted price.
    const quoted = await fx.client.logistics.freightCalculate({
      startCountryCode: "CN",
      endCountryCode: "DE",
      products: [{ vid: vids[0]!, quantity: 1 }],
    });
    const order = sim.order(ok.orderId!)!;
    expect(toMoney(Number(order.postageAmount) / 100)).toBe(
      quoted.find((o) => o.logisticName === "Express Air")!.priceUsd,
    );
  });
});

describe("stored quotes", () => {
  it("one question per route and variants while fresh, asked again past its time", async () => {
    const input = { from: "CN", to: "FR", products: [{ vid: vids[1]!, quantity: 1 }] };
    const before = quoteCalls();
    const a = await quoteFor(deps(), fx.accountId, input);
    const b = await quoteFor(deps(), fx.accountId, { ...input, products: [...input.products] });
    expect(b.options).toEqual(a.options);
    expect(quoteCalls()).toBe(before + 1);
    clockMs += QUOTE_TTL_MS + 1;
    await quoteFor(deps(), fx.accountId, input);
    expect(quoteCalls()).toBe(before + 2);
    await quoteFor(deps(), fx.accountId, input, { fresh: true });
    expect(quoteCalls()).toBe(before + 3);
  });

  it("keys ignore line order and split quantities, not the route, zip or account", () => {
    const p = [
      { vid: "a", quantity: 1 },
      { vid: "b", quantity: 2 },
    ];
    const k = quoteKey("acc", { from: "CN", to: "US", products: p });
    expect(quoteKey("acc", { from: "cn", to: "us", products: [p[1]!, p[0]!] })).toBe(k);
    expect(
      quoteKey("acc", {
        from: "CN",
        to: "US",
        products: [
          { vid: "b", quantity: 1 },
          { vid: "a", quantity: 1 },
          { vid: "b", quantity: 1 },
        ],
      }),
    ).toBe(k);
    expect(quoteKey("acc", { from: "CN", to: "CA", products: p })).not.toBe(k);
    expect(quoteKey("acc", { from: "CN", to: "US", zip: "90001", products: p })).not.toBe(k);
    expect(quoteKey("other", { from: "CN", to: "US", products: p })).not.toBe(k);
  });

  it("combines per-line quotes: only methods every line allows, summed, slowest transit", () => {
    const o = (logisticName: string, priceUsd: string, min: number | null, max: number | null) => ({
      logisticName,
      priceUsd: toMoney(priceUsd),
      minDays: min,
      maxDays: max,
    });
    expect(
      combine([
        [o("A", "3.00", 2, 5), o("B", "1.00", 7, 9)],
        [o("B", "2.50", 8, 12), o("C", "1.00", 1, 2)],
      ]),
    ).toEqual([o("B", "3.50", 8, 12)]);
    expect(combine([[o("A", "1", null, null)], [o("A", "2", 1, 2)]])).toEqual([
      o("A", "3.00", null, null),
    ]);
    expect(combine([])).toEqual([]);
  });

  it("reads transit days", () => {
    expect(parseAging("2-5")).toEqual({ min: 2, max: 5 });
    expect(parseAging(" 7 ")).toEqual({ min: 7, max: 7 });
    expect(parseAging("5~3")).toEqual({ min: 3, max: 5 });
    expect(parseAging("soon")).toEqual({ min: null, max: null });
    expect(parseAging(null)).toEqual({ min: null, max: null });
  });
});
