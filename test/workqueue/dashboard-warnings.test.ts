/**
 * The dashboard that warns (issue 15): a service outage (every call answered 503) shows, and
 * goes when the service answers again; disconnected with orders in flight; webhooks missing;
 * a balance below what the waiting orders cost; orders held for protected customer data; and
 * the money of a period. The balance is the live service call the page shows when it comes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardData, liveBalance } from "../../app/workqueue/dashboard.server";
import { updateSettings } from "../../app/settings.server";
import { type Harness, prisma, startHarness } from "../fulfilment/harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "dashboard-warnings.myshopify.com", balance: "42.00" });
});
afterAll(async () => h?.close());

let seq = 0;
async function row(data: Record<string, unknown>) {
  const id = String(++seq);
  return prisma.shopOrder.create({
    data: { shopDomain: h.shopDomain, shopifyOrderId: id, orderNumber: `dash-${id}`, ...data },
  });
}

describe("the dashboard's warnings", () => {
  it("shows a service outage while every call fails, and not once it answers", async () => {
    h.svc.setFaults({ rate5xx: 1 });
    const down = await liveBalance(prisma, h.shopDomain, true);
    expect(down.outage).toBe(true);
    expect(down.amount).toBeNull();
    h.svc.clearFaults();
    const up = await liveBalance(prisma, h.shopDomain, true);
    expect(up).toEqual({ amount: "42.00", error: null, outage: false });

    // Orders held because the service kept failing warn without a live call.
    await row({ state: "HELD", reasonCode: "service_unavailable" });
    await row({ state: "HELD", reasonCode: "service_unavailable" });
    const d = await dashboardData(prisma, h.shopDomain);
    expect(d.warnings.outageHeld).toBe(2);
    await prisma.shopOrder.deleteMany({ where: { shopDomain: h.shopDomain } });
    expect((await dashboardData(prisma, h.shopDomain)).warnings.outageHeld).toBe(0);
  });

  it("a refusal is not an outage; not connected is neither", async () => {
    const none = await liveBalance(prisma, "nobody.myshopify.com", false);
    expect(none).toEqual({ amount: null, error: "Not connected", outage: false });
    const missing = await liveBalance(prisma, "nobody.myshopify.com", true);
    expect(missing.outage).toBe(false);
  });

  it("warns of a balance below what the orders waiting for payment cost", async () => {
    await prisma.svcAccount.update({
      where: { id: h.accountId },
      data: { knownBalance: "25.00" },
    });
    await row({ state: "CREATED", svcOrderId: "S-1", amount: "15.50" });
    await row({ state: "HELD", reasonCode: "short_balance", svcOrderId: "S-2", amount: "12.25" });
    // Already in a payment: not waiting.
    await row({ state: "PAYING", svcOrderId: "S-3", amount: "99.00", paymentBatchId: "b1" });
    const w = (await dashboardData(prisma, h.shopDomain)).warnings;
    expect(w).toMatchObject({
      knownBalance: "25.00",
      waitingCost: "27.75",
      balanceBelowWaiting: true,
      shortBalanceHeld: 1,
    });
    await prisma.svcAccount.update({
      where: { id: h.accountId },
      data: { knownBalance: "27.75" },
    });
    expect((await dashboardData(prisma, h.shopDomain)).warnings.balanceBelowWaiting).toBe(false);
    await prisma.shopOrder.deleteMany({ where: { shopDomain: h.shopDomain } });
  });

  it("warns of a balance under the merchant's threshold, and not without one", async () => {
    await prisma.svcAccount.update({
      where: { id: h.accountId },
      data: { knownBalance: "30.00" },
    });
    let w = (await dashboardData(prisma, h.shopDomain)).warnings;
    expect(w).toMatchObject({ lowBalanceUsd: null, balanceBelowThreshold: false });
    expect((await updateSettings(prisma, h.shopDomain, { lowBalanceUsd: "50" })).ok).toBe(true);
    w = (await dashboardData(prisma, h.shopDomain)).warnings;
    expect(w).toMatchObject({ lowBalanceUsd: "50", balanceBelowThreshold: true });
    expect((await updateSettings(prisma, h.shopDomain, { lowBalanceUsd: "30.00" })).ok).toBe(true);
    w = (await dashboardData(prisma, h.shopDomain)).warnings;
    expect(w.balanceBelowThreshold).toBe(false); // equal is not below
    await updateSettings(prisma, h.shopDomain, { lowBalanceUsd: "" });
  });

  it("warns when disconnected with orders at the service, and of missing webhooks", async () => {
    await row({ state: "PAID", svcOrderId: "S-4" });
    await row({ state: "SHIPPED", svcOrderId: "S-5" });
    await row({ state: "DELIVERED", svcOrderId: "S-6" });
    await row({ state: "HELD", reasonCode: "protected_data" });
    let d = await dashboardData(prisma, h.shopDomain);
    expect(d.warnings.disconnectedInFlight).toBe(0);
    expect(d.warnings.protectedDataHeld).toBe(1);

    await prisma.svcAccount.update({
      where: { id: h.accountId },
      data: { webhookRegisteredAt: null },
    });
    d = await dashboardData(prisma, h.shopDomain);
    expect(d.warnings.webhooksMissing).toBe(true);

    const saved = await prisma.svcAccount.findUniqueOrThrow({ where: { id: h.accountId } });
    await prisma.svcAccount.update({
      where: { id: h.accountId },
      data: { apiKeyEnc: null, accessTokenEnc: null, refreshTokenEnc: null },
    });
    d = await dashboardData(prisma, h.shopDomain);
    expect(d.account.connected).toBe(false);
    // PAID and SHIPPED wait for tracking; DELIVERED is done.
    expect(d.warnings.disconnectedInFlight).toBe(2);
    // Not connected: the connection banner says it, not "webhooks missing".
    expect(d.warnings.webhooksMissing).toBe(false);
    await prisma.svcAccount.update({
      where: { id: h.accountId },
      data: {
        apiKeyEnc: saved.apiKeyEnc,
        accessTokenEnc: saved.accessTokenEnc,
        refreshTokenEnc: saved.refreshTokenEnc,
        webhookRegisteredAt: new Date(),
      },
    });
    await prisma.shopOrder.deleteMany({ where: { shopDomain: h.shopDomain } });
  });

  it("sums the money of the chosen period", async () => {
    const now = Date.now();
    const daysAgo = (d: number) => new Date(now - d * 86_400_000);
    const paid = { state: "PAID", currency: "USD" };
    await row({ ...paid, amount: "10.00", shopTotal: "25.00", paidAt: daysAgo(1) });
    await row({ ...paid, amount: "20.00", shopTotal: "30.00", paidAt: daysAgo(20) });
    await row({
      ...paid,
      currency: "EUR",
      fxRate: "1.10",
      amount: "5.00",
      shopTotal: "10.00",
      paidAt: daysAgo(3),
    });
    // Paid long ago, and one without a known rate (no margin).
    await row({ ...paid, amount: "7.00", shopTotal: "9.00", paidAt: daysAgo(60) });
    await row({ ...paid, currency: "GBP", amount: "3.00", shopTotal: "4.00", paidAt: daysAgo(2) });
    await row({ state: "CANCELLED", createdAt: daysAgo(1) });

    const week = (await dashboardData(prisma, h.shopDomain, now, 7)).money;
    expect(week).toMatchObject({
      days: 7,
      paid: 3,
      spendUsd: "18.00",
      marginUsd: "21.00", // (25 - 10) + (11 - 5)
      marginOrders: 2,
    });
    expect(week.revenue).toEqual(
      expect.arrayContaining([
        { currency: "USD", amount: "25.00" },
        { currency: "EUR", amount: "10.00" },
        { currency: "GBP", amount: "4.00" },
      ]),
    );
    // Received: every order created in the period but the cancelled one.
    expect(week.received).toBe(5);
    const month = (await dashboardData(prisma, h.shopDomain, now, 30)).money;
    expect(month).toMatchObject({ paid: 4, spendUsd: "38.00", marginUsd: "31.00" });
    const quarter = (await dashboardData(prisma, h.shopDomain, now, 90)).money;
    expect(quarter).toMatchObject({ paid: 5, spendUsd: "45.00" });
  });

  it("lists a hold without a reason code among the latest problems, and not a review-window wait", async () => {
    await prisma.shopOrder.deleteMany({ where: { shopDomain: h.shopDomain } });
    await row({ state: "HELD", reasonCode: "review_window", shopifyOrderName: "#wait" });
    await row({ state: "HELD", reasonCode: null, shopifyOrderName: "#bare" });
    const d = await dashboardData(prisma, h.shopDomain);
    expect(d.problems.map((p) => p.name)).toEqual(["#bare"]);
  });
});
