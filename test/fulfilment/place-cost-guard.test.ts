/**
 * The cost guard (issue 16), end to end over HTTP: with automatic payment on, an order whose
 * service cost is over the merchant's cap, or whose margin is under the minimum, is created at
 * the service but held before payment, with the figures in the reason; nothing is paid for it.
 * Retry asks the guard again (and says why it still holds); Release pays it, once; a settings
 * save that lifts the guard sends the held orders into the next payment.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { settingsAction } from "../../app/settings-forms/page.server";
import { releaseOrder, retryOrder } from "../../app/fulfilment/actions.server";
import { costGuardReason } from "../../app/orders/cost-guard";
import { updateSettings } from "../../app/settings.server";
import { type Harness, opCalls, prisma, startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "cost-guard.myshopify.com", balance: "500.00" });
});
afterAll(async () => h?.close());
beforeEach(async () => {
  await updateSettings(prisma, h.shopDomain, { costCapUsd: "", minMarginPct: "" });
});

let n = 0;
async function placed(price = "10.00") {
  const p = await h.connectedProduct(`Guarded ${++n}`, price);
  const o = await h.order([{ product: p, quantity: 1 }]);
  await h.settle();
  return h.row(o.legacyId);
}

describe("the cost guard", () => {
  it("holds an order over the cap, pays nothing for it, and pays it once the cap is lifted", async () => {
    await updateSettings(prisma, h.shopDomain, { costCapUsd: "0.50" });
    const carts = opCalls(h, "addCart");
    const row = await placed();
    expect(row.state).toBe("HELD");
    expect(row.reasonCode).toBe("cost_guard");
    expect(row.svcOrderId).toBeTruthy();
    const amount = Number(row.amount).toFixed(2);
    const shipping = row.shippingCost
      ? ` (shipping ${Number(row.shippingCost).toFixed(2)} USD included)`
      : "";
    expect(row.reasonMessage).toBe(
      `Held before payment: the service asks ${amount} USD${shipping}, over your cap of 0.50 USD. Release it to pay it anyway, or change the cost guard in Settings.`,
    );
    expect(
      row.timeline.some(
        (t) => t.step === "guard" && t.outcome === "held" && t.errorCode === "cost_guard",
      ),
    ).toBe(true);
    // The delivery's job, which placed it, says what it did.
    const job = await prisma.job.findFirstOrThrow({
      where: { kind: "shopify:orders/paid", result: { path: ["orderId"], equals: row.id } },
    });
    expect(job.result).toEqual({
      orderId: row.id,
      created: true,
      placeHere: true,
      placed: { outcome: "held", reason: "cost_guard" },
    });
    expect(opCalls(h, "addCart")).toBe(carts);
    expect(h.svc.order(row.svcOrderId!)!.paid).toBe(false);

    // Retry asks the guard again: still over, nothing changes.
    const retry = await retryOrder(h.deps, row.id);
    expect(retry).toEqual({
      ok: false,
      error: expect.stringMatching(/^Still held: the service asks .* over your cap of 0\.50 USD\./),
    });
    expect((await h.row(Number(row.shopifyOrderId))).state).toBe("HELD");

    // The merchant lifts the cap in Settings: the order goes into the next payment.
    const form = new FormData();
    form.set("intent", "save-settings");
    form.set("costCapUsd", "");
    const saved = await settingsAction(prisma, h.shopDomain, form, { sandbox: false });
    expect(saved).toMatchObject({ ok: true, message: expect.stringContaining("1 held order is") });
    await h.settle();
    const paid = await h.row(Number(row.shopifyOrderId));
    expect(paid.state).toBe("PAID");
    expect(h.svc.order(row.svcOrderId!)!.paid).toBe(true);
    expect(paid.timeline.filter((t) => t.step === "pay" && t.outcome === "ok")).toHaveLength(1);
  });

  it("holds an order whose margin is under the minimum; Release pays it anyway, once", async () => {
    await updateSettings(prisma, h.shopDomain, { minMarginPct: "99.5" });
    const row = await placed("12.00");
    expect(row).toMatchObject({ state: "HELD", reasonCode: "cost_guard" });
    expect(row.reasonMessage).toMatch(
      /^Held before payment: the service asks \d+\.\d\d USD( \(shipping \d+\.\d\d USD included\))? for an order of \d+\.\d\d USD, a margin of -?\d+\.\d\d USD \(-?\d+\.\d%\), under your minimum of 99\.5%\./,
    );
    const released = await releaseOrder(h.deps, row.id);
    expect(released).toEqual({ ok: true, state: "CREATED" });
    await h.settle();
    // A second Release finds nothing to release, and nothing is paid twice.
    expect(await releaseOrder(h.deps, row.id)).toMatchObject({ ok: false });
    await h.settle();
    const paid = await h.row(Number(row.shopifyOrderId));
    expect(paid.state).toBe("PAID");
    expect(paid.timeline.filter((t) => t.step === "pay" && t.outcome === "ok")).toHaveLength(1);
  });

  it("lets an order within the guard through (a margin of 0% or more)", async () => {
    await updateSettings(prisma, h.shopDomain, {
      costCapUsd: "9999",
      minMarginPct: "0",
      payBatchWindowSeconds: 0,
    });
    const row = await placed("100.00");
    expect(row.state).toBe("PAID");
  });
});

describe("the cost guard in another currency", () => {
  it("works the margin out in USD at the rate the order was placed with", async () => {
    await updateSettings(prisma, h.shopDomain, {
      fxRates: { EUR: "2.00" },
      minMarginPct: "60",
    });
    const p = await h.connectedProduct("Euro guarded", "20.00");
    const placedEur = h.shop.placeOrder(h.shopDomain, {
      lines: [{ variantId: p.variants[0]!.id, quantity: 1 }],
      currency: "EUR",
    });
    await h.shop.sendWebhook(
      h.shopDomain,
      "orders/paid",
      h.shop.orderWebhookPayload(h.shopDomain, placedEur.id),
    );
    await h.settle();
    const row = await h.row(placedEur.legacyId);
    expect(row).toMatchObject({ state: "HELD", reasonCode: "cost_guard", fxRate: "2.00" });
    // 20.00 EUR at 2.00 = 40.00 USD: the order's worth in USD, not in euros.
    expect(row.reasonMessage).toContain(" for an order of 40.00 USD, a margin of ");
    // A lower minimum that this margin meets: the order goes into the next payment.
    const form = new FormData();
    form.set("intent", "save-settings");
    form.set("minMarginPct", "1");
    expect(await settingsAction(prisma, h.shopDomain, form, { sandbox: false })).toMatchObject({
      ok: true,
    });
    await h.settle();
    expect((await h.row(placedEur.legacyId)).state).toBe("PAID");
  });
});

describe("the cost guard without automatic payment", () => {
  it("holds nothing: the merchant pays each order", async () => {
    await updateSettings(prisma, h.shopDomain, { costCapUsd: "0.50", autoPay: false });
    try {
      const row = await placed();
      expect(row).toMatchObject({ state: "CREATED", reasonCode: null });
    } finally {
      await updateSettings(prisma, h.shopDomain, { autoPay: true });
    }
  });
});

describe("the cost guard's figures", () => {
  const o = {
    amount: "40.00",
    shippingCost: "5.50",
    shopTotal: "50.00",
    currency: "EUR",
    fxRate: "1.10",
  };
  it("a cost equal to the cap is not over it", () => {
    expect(costGuardReason({ costCapUsd: "40", minMarginPct: "" }, o)).toBeNull();
    expect(costGuardReason({ costCapUsd: "39.99", minMarginPct: "" }, o)).toContain(
      "the service asks 40.00 USD (shipping 5.50 USD included), over your cap of 39.99 USD",
    );
  });
  it("works the margin out in USD at the recorded rate", () => {
    // 50 EUR × 1.10 = 55.00 USD; margin 15.00 USD = 27.3%.
    expect(costGuardReason({ costCapUsd: "", minMarginPct: "27.2" }, o)).toBeNull();
    expect(costGuardReason({ costCapUsd: "", minMarginPct: "27.3" }, o)).toBe(
      "Held before payment: the service asks 40.00 USD (shipping 5.50 USD included) for an order of 55.00 USD, a margin of 15.00 USD (27.3%), under your minimum of 27.3%. Release it to pay it anyway, or change the cost guard in Settings.",
    );
    expect(
      costGuardReason(
        { costCapUsd: "", minMarginPct: "10" },
        { ...o, currency: "USD", fxRate: null },
      ),
    ).toBeNull(); // 50 − 40 = 20%
  });
  it("holds when the margin cannot be worked out, and says why", () => {
    expect(costGuardReason({ costCapUsd: "", minMarginPct: "10" }, { ...o, fxRate: null })).toMatch(
      /the margin cannot be worked out \(no exchange rate for EUR\)/,
    );
    expect(
      costGuardReason({ costCapUsd: "1", minMarginPct: "10" }, { ...o, amount: null }),
    ).toBeNull();
  });
});
