/**
 * What the order pages say (issue 35): a review-window wait is scheduled, not a problem, on the
 * list, the dashboard and in the emails, and a shorter window in Settings moves its time; the
 * lines show what the service charges, never the shop's price as it; the short-balance warning
 * counts what waiting orders need; an action that changes nothing says what still stops the
 * order instead of "Done". Real rows, placed through the shop and service simulators.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardData } from "../../app/workqueue/dashboard.server";
import { fittingActions } from "../../app/workqueue/order-fit";
import { orderAction, runOrderAction } from "../../app/workqueue/order-actions.server";
import { listOrders } from "../../app/workqueue/orders.server";
import { orderDetail } from "../../app/workqueue/order-detail.server";
import { shopTimeZone } from "../../app/orders/shop-zone.server";
import { latestBulkRun } from "../../app/workqueue/bulk-orders.server";
import { flagWords, plainMessage, stepWords } from "../../app/orders/plain-words";
import { repairCardData } from "../../app/repair/page.server";
import { scheduledText, shopClock } from "../../app/orders/shop-time";
import { stateLabelOf } from "../../app/orders/states";
import { recheckHeld, SETTINGS_CAUSES } from "../../app/orders/recheck.server";
import { detectNotices } from "../../app/notify/detect.server";
import { getSettings, updateSettings } from "../../app/settings.server";
import { type Harness, prisma, startHarness } from "../fulfilment/harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    shopDomain: "order-views.myshopify.com",
    balance: "5000.00",
    settings: { reviewWindowMinutes: 60 },
  });
});
afterAll(async () => h?.close());

const MIN = 60_000;

async function scheduledOrder(title: string, price = "20.00") {
  const p = await h.connectedProduct(title, price);
  const o = await h.order([{ product: p, quantity: 1 }]);
  await h.settle();
  const row = await h.row(o.legacyId);
  expect(row).toMatchObject({ state: "HELD", reasonCode: "review_window" });
  return row;
}

describe("a review-window wait", () => {
  it("reads Scheduled with its time in the shop's zone, and offers Place now, not Retry", async () => {
    const row = await scheduledOrder("Scheduled mug");
    expect(stateLabelOf(row)).toEqual({ label: "Scheduled", tone: "info" });
    expect(fittingActions(row)).not.toContain("retry");
    expect(fittingActions(row)).toContain("release");
    // 04:39 UTC is 05:39 in Paris in November; the day shows when it is not the order's day.
    expect(shopClock("2026-11-27T04:39:00Z", "Europe/Paris")).toBe("05:39");
    expect(shopClock("2026-11-27T04:39:00Z", "Europe/Paris", "2026-11-26T20:00:00Z")).toBe(
      "27 Nov, 05:39",
    );
    expect(shopClock("2026-11-27T04:39:00Z", "Not/AZone")).toBe("04:39");
    expect(scheduledText("2026-11-27T04:39:00Z", "America/New_York", "2026-11-26T23:10:00Z")).toBe(
      "Scheduled · places at 23:39",
    );

    const detail = await orderDetail(prisma, h.shopDomain, row.id);
    expect(detail?.placeAfter).toBe(row.placeAfter?.toISOString());
    const listed = (await listOrders(prisma, h.shopDomain, new URLSearchParams())).orders.find(
      (o) => o.id === row.id,
    );
    expect(listed?.placeAfter).toBe(row.placeAfter?.toISOString());
  });

  it("is no problem on the dashboard nor in the emails", async () => {
    const row = await scheduledOrder("Scheduled lamp");
    const d = await dashboardData(prisma, h.shopDomain);
    expect(d.problems.map((p) => p.id)).not.toContain(row.id);
    expect(d.scheduled).toBeGreaterThanOrEqual(1);
    expect(d.counts.HELD).toBe(0);
    expect(d.days.reduce((a, b) => a + b.problems, 0)).toBe(0);

    // Long past the "held for N minutes" notice delay: still nothing to tell.
    const settings = await getSettings(prisma, h.shopDomain);
    await detectNotices(
      prisma,
      h.shopDomain,
      { ...settings, notifyFailures: true, notifyHeldAfterMinutes: 0 },
      async () => ({ amount: "5000.00", outage: false }),
      Date.now() + MIN,
    );
    const notices = await prisma.notice.findMany({ where: { shopDomain: h.shopDomain } });
    expect(notices.filter((n) => n.orderId === row.id)).toEqual([]);
  });

  it("moves earlier when the window is shortened in Settings, and is placed once it has passed", async () => {
    const row = await scheduledOrder("Scheduled vase");
    const received = row.createdAt.getTime();
    // Received (the row's time) plus the window, to the second.
    const near = (at: Date | null, minutes: number) =>
      expect(Math.abs(at!.getTime() - received - minutes * MIN)).toBeLessThan(5_000);
    near(row.placeAfter, 60);

    await updateSettings(prisma, h.shopDomain, { reviewWindowMinutes: 30 });
    expect(await recheckHeld(prisma, h.shopDomain, SETTINGS_CAUSES, "t1")).toBe(0);
    const moved = await h.row(Number(row.shopifyOrderId));
    expect(moved.state).toBe("HELD");
    near(moved.placeAfter, 30);

    // A longer window does not push it later than the time the merchant was shown.
    await updateSettings(prisma, h.shopDomain, { reviewWindowMinutes: 90 });
    await recheckHeld(prisma, h.shopDomain, SETTINGS_CAUSES, "t2");
    near((await h.row(Number(row.shopifyOrderId))).placeAfter, 30);

    // No window at all: it goes to the service now.
    await updateSettings(prisma, h.shopDomain, { reviewWindowMinutes: 0 });
    await recheckHeld(prisma, h.shopDomain, SETTINGS_CAUSES, "t3");
    await h.settle();
    const placed = await h.row(Number(row.shopifyOrderId));
    expect(placed.svcOrderId).toBeTruthy();
    expect(["CREATED", "PAYING", "PAID", "SHIPPED", "FULFILLED"]).toContain(placed.state);
    await updateSettings(prisma, h.shopDomain, { reviewWindowMinutes: 60 });
  });

  it("Place now sends it at once and says so, not 'Done: RECEIVED'", async () => {
    const row = await scheduledOrder("Scheduled clock");
    const form = new FormData();
    form.set("intent", "release");
    const r = await orderAction(prisma, h.shopDomain, row.id, form);
    expect(r).toMatchObject({ ok: true });
    const message = r.ok ? r.message : "";
    expect(message).not.toMatch(/Done|RECEIVED|CREATED/);
    expect(message).toMatch(/being placed now/);
    await h.settle();
    expect((await h.row(Number(row.shopifyOrderId))).svcOrderId).toBeTruthy();
  });
});

describe("the order's lines", () => {
  it("show what the service charges per line, not the shop's selling price", async () => {
    await updateSettings(prisma, h.shopDomain, { reviewWindowMinutes: 0 });
    const p = await h.connectedProduct("Priced kettle", "61.88");
    const o = await h.order([{ product: p, quantity: 2 }]);
    await h.settle();
    await updateSettings(prisma, h.shopDomain, { reviewWindowMinutes: 60 });
    const row = await h.row(o.legacyId);
    expect(row.svcOrderId).toBeTruthy();
    const vid = row.lines[0]!.svcVid!;
    await prisma.catalogVariant.upsert({
      where: { vid },
      create: { vid, pid: "P-kettle", productName: "Kettle", costUsd: "12.34" },
      update: { costUsd: "12.34" },
    });
    const detail = await orderDetail(prisma, h.shopDomain, row.id);
    const line = detail!.lines[0]!;
    expect(line.unitPrice).toBe("61.88");
    expect(line.serviceCost).toEqual({ unit: "12.34", total: "24.68" });

    // A variant whose price the app has not read: the service order's amount less its quoted
    // shipping (one line), never the shop's price.
    await prisma.catalogVariant.delete({ where: { vid } });
    // The quoted shipping of the order (the harness names a method without a quote).
    await prisma.shopOrder.update({ where: { id: row.id }, data: { shippingCost: "4.99" } });
    const derivedOrder = (await orderDetail(prisma, h.shopDomain, row.id))!;
    const derived = derivedOrder.lines[0]!;
    const goods = ((Math.round(Number(row.amount) * 100) - 499) / 100).toFixed(2);
    expect(derived.serviceCost?.total).toBe(goods);
    expect(derived.serviceCost?.total).not.toBe("123.76");

    // Nothing known at the service yet: not known, never the shop's price.
    await prisma.shopOrder.update({ where: { id: row.id }, data: { amount: null } });
    const unknown = (await orderDetail(prisma, h.shopDomain, row.id))!.lines[0]!;
    expect(unknown.serviceCost).toBeNull();
  });
});

describe("the short-balance warning", () => {
  it("counts what an order held for the balance needs, also inside a payment batch", async () => {
    await prisma.shopOrder.create({
      data: {
        shopDomain: h.shopDomain,
        shopifyOrderId: "900001",
        orderNumber: "views-short-1",
        state: "HELD",
        reasonCode: "short_balance",
        svcOrderId: "S-short-1",
        amount: "14.89",
        // Its batch's payment was refused for the balance: the order keeps the batch.
        paymentBatchId: "batch-short-1",
      },
    });
    const w = (await dashboardData(prisma, h.shopDomain)).warnings;
    expect(w.waitingCost).not.toBe("0.00");
    expect(Number(w.waitingCost)).toBeGreaterThanOrEqual(14.89);
    await prisma.shopOrder.deleteMany({ where: { orderNumber: "views-short-1" } });
  });
});

describe("an action that changes nothing", () => {
  it("Release on an order with an unconnected line says what still holds it, and changes nothing", async () => {
    const p = h.unconnectedProduct("Unmatched scarf");
    const o = await h.order([{ product: p, quantity: 1 }]);
    await h.settle();
    const row = await h.row(o.legacyId);
    // Past the window: held for the line with no match.
    await prisma.shopOrder.update({
      where: { id: row.id },
      data: { placeAfter: new Date(Date.now() - MIN) },
    });
    const held = await prisma.shopOrder.update({
      where: { id: row.id },
      data: { state: "HELD", reasonCode: "unconnected_lines", reasonMessage: "No match." },
    });
    await prisma.shopOrderLine.updateMany({ where: { orderId: row.id }, data: { svcVid: null } });
    const lines = await prisma.shopOrderLine.count({ where: { orderId: row.id } });
    if (lines === 0) {
      await prisma.shopOrderLine.create({
        data: {
          orderId: row.id,
          shopifyLineItemId: "1",
          shopifyVariantId: String(p.variants[0]!.legacyId),
          title: "Unmatched scarf",
          quantity: 1,
          unitPrice: "25.00",
        },
      });
    }
    const r = await runOrderAction(h.deps, h.shopDomain, held.id, "release");
    expect(r.ok).toBe(false);
    expect(r.ok ? r.message : r.error).toMatch(/no match/);
    expect(r.ok ? r.message : r.error).not.toMatch(/Done|RECEIVED/);
    const after = await prisma.shopOrder.findUniqueOrThrow({ where: { id: held.id } });
    expect(after).toMatchObject({ state: "HELD", reasonCode: "unconnected_lines" });
  });

  it("Retry of an order the service refused, with nothing corrected, says it will be refused again", async () => {
    const failed = await prisma.shopOrder.create({
      data: {
        shopDomain: h.shopDomain,
        shopifyOrderId: "900002",
        orderNumber: "views-refused-1",
        state: "FAILED",
        reasonCode: "intercepted",
        svcOrderId: "S-refused-1",
        svcAccountId: h.accountId,
        placedAt: new Date(),
        reasonMessage:
          "The service intercepted the order: the address is incomplete. Correct the cause, then Retry.",
      },
    });
    await prisma.timelineEntry.create({
      data: { orderId: failed.id, step: "pay", outcome: "error", message: "intercepted" },
    });
    const r = await runOrderAction(h.deps, h.shopDomain, failed.id, "retry");
    const text = r.ok ? r.message : r.error;
    expect(text).not.toMatch(/Done|CREATED|RECEIVED/);
    expect(text).toMatch(/nothing was corrected/);
    expect(text).toMatch(/the address is incomplete/);

    // After a repair, a retry is just a retry.
    await prisma.shopOrder.update({
      where: { id: failed.id },
      data: { state: "FAILED", reasonCode: "intercepted" },
    });
    await prisma.timelineEntry.create({
      data: { orderId: failed.id, step: "pay", outcome: "error", message: "intercepted" },
    });
    await prisma.timelineEntry.create({
      data: { orderId: failed.id, step: "repair", outcome: "info", message: "Address corrected." },
    });
    const again = await runOrderAction(h.deps, h.shopDomain, failed.id, "retry");
    expect(again.ok ? again.message : again.error).toMatch(/next payment/);
    await prisma.shopOrder.deleteMany({ where: { orderNumber: "views-refused-1" } });
  });
});

describe("plain words and the shop's time", () => {
  it("reads the shop's time zone from Shopify once and keeps it with the shop", async () => {
    await prisma.shop.update({ where: { domain: h.shopDomain }, data: { ianaTimezone: null } });
    // The shop simulator answers Shopify's `shop { ianaTimezone }`.
    expect(await shopTimeZone(prisma, h.shopDomain)).toBe("America/New_York");
    const stored = await prisma.shop.findUniqueOrThrow({ where: { domain: h.shopDomain } });
    expect(stored.ianaTimezone).toBe("America/New_York");
    // Stored: Shopify is not asked again.
    const never = async (): Promise<string> => {
      throw new Error("asked again");
    };
    expect(await shopTimeZone(prisma, h.shopDomain, never)).toBe("America/New_York");
    const row = await scheduledOrder("Zoned teapot");
    const detail = await orderDetail(prisma, h.shopDomain, row.id);
    expect(detail?.timeZone).toBe("America/New_York");
    // A shop Shopify does not answer for shows UTC, and is not asked on every page.
    expect(await shopTimeZone(prisma, "nowhere.myshopify.com", never)).toBeNull();
  });

  it("names steps, flags and times in plain words, without topics or machine times", () => {
    expect(stepWords("pay:carted")).toBe("Payment");
    expect(stepWords("received")).toBe("Received");
    expect(stepWords("something_new")).toBe("Update");
    expect(flagWords("cancelled_after_payment")).toMatch(/^Cancelled after/);
    expect(flagWords("some_new_flag")).not.toMatch(/some_new_flag/);
    const text = plainMessage(
      "Received from the shop (orders/paid). Placed after 2026-11-27T12:35:12.654Z.",
      "Europe/Paris",
    );
    expect(text).toBe("Received from the shop (when paid). Placed after 27 Nov 2026, 13:35 CET.");
  });

  it("tells a flagged order in the emails by what happened, not by the flag's code", async () => {
    const row = await scheduledOrder("Flagged lamp");
    await prisma.shopOrder.update({
      where: { id: row.id },
      data: { state: "PAID", reasonCode: null, reasonMessage: null, flag: "parcel_abnormal" },
    });
    const settings = await getSettings(prisma, h.shopDomain);
    await detectNotices(prisma, h.shopDomain, { ...settings, notifyFailures: true }, async () => ({
      amount: "5000.00",
      outage: false,
    }));
    const told = await prisma.notice.findMany({
      where: { shopDomain: h.shopDomain, orderId: row.id },
    });
    expect(told.map((n) => n.text)).toEqual([
      expect.stringContaining("The carrier reports a problem with the parcel."),
    ]);
    expect(told[0]!.text).not.toContain("parcel_abnormal");
  });

  it("says a reversed date range is reversed", async () => {
    const r = await listOrders(
      prisma,
      h.shopDomain,
      new URLSearchParams("from=2026-11-20&to=2026-11-01"),
    );
    expect(r.orders).toEqual([]);
    expect(r.rangeError).toMatch(/From date is after the To date/);
    const ok = await listOrders(prisma, h.shopDomain, new URLSearchParams("from=2026-11-01"));
    expect(ok.rangeError).toBeNull();
  });

  it("shows a finished bulk run's outcome for a while, not for the session", async () => {
    const row = await scheduledOrder("Bulk jug");
    const finishedAt = new Date();
    await prisma.bulkRun.create({
      data: {
        shopDomain: h.shopDomain,
        intent: "hold",
        clientKey: "views-bulk-1",
        orderIds: [row.id],
        results: { [row.id]: { ok: true, message: "Held." } },
        total: 1,
        done: 1,
        finishedAt,
      },
    });
    expect(await latestBulkRun(prisma, h.shopDomain, finishedAt.getTime() + MIN)).not.toBeNull();
    expect(await latestBulkRun(prisma, h.shopDomain, finishedAt.getTime() + 11 * MIN)).toBeNull();
  });

  it("the Repair card says the real reason there is no quote", async () => {
    const row = await scheduledOrder("Unquoted bowl");
    const card = await repairCardData(prisma, h.shopDomain, row.id);
    const why = card?.methods?.error ?? "";
    // An account is connected and the product is matched: that is not the reason.
    expect(why).not.toMatch(/needs an account and matched lines/);
    expect(why).toMatch(/when it is placed/);
  });
});
