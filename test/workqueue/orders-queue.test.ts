/**
 * The orders work queue (issue 15) over the pipeline's real rows, placed through the shop and
 * service simulators: task views with counts, search by order number, customer name or email,
 * service order id and tracking number, date range and sort; bulk actions as a job with a
 * result per order, once per form however often it is submitted, resumed after a crash
 * without repeating an order.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bulkOrdersHandler,
  latestBulkRun,
  startBulkRun,
} from "../../app/workqueue/bulk-orders.server";
import { listOrders, marginUsd } from "../../app/workqueue/orders.server";
import { fits, fittingActions } from "../../app/workqueue/order-fit";
import { orderFacts } from "../../app/orders/facts";
import type { JobContext } from "../../app/jobs/handler";
import { updateSettings } from "../../app/settings.server";
import { type Harness, prisma, startHarness } from "../fulfilment/harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    shopDomain: "work-queue.myshopify.com",
    balance: "5000.00",
    // Every order waits an hour before it is placed: "to place", not a problem.
    settings: { reviewWindowMinutes: 60 },
  });
});
afterAll(async () => h?.close());

let n = 0;
/** An order from a named customer, received (held for the review window). */
async function customerOrder(first: string, last: string) {
  const p = await h.connectedProduct(`Queue item ${++n}`, "20.00");
  const placed = h.shop.placeOrder(h.shopDomain, {
    lines: [{ variantId: p.variants[0]!.id, quantity: 1 }],
    email: `${first.toLowerCase()}.${last.toLowerCase()}@example.com`,
    shippingAddress: {
      firstName: first,
      lastName: last,
      address1: "1 Main St",
      city: "Austin",
      province: "Texas",
      provinceCode: "TX",
      zip: "73301",
      country: "United States",
      countryCode: "US",
      phone: "+15125550100",
    },
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

const list = (q: string) => listOrders(prisma, h.shopDomain, new URLSearchParams(q));
const names = async (q: string) => (await list(q)).orders.map((o) => o.customerName);

function form(fields: Record<string, string | string[]>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    for (const x of Array.isArray(v) ? v : [v]) f.append(k, x);
  }
  return f;
}

/** A job context for running the bulk handler directly (as a worker would, twice after a crash). */
function ctxFor(runId: string): JobContext {
  return {
    job: { id: 0n, shopDomain: h.shopDomain } as JobContext["job"],
    payload: { runId },
    prisma,
    workerId: "test",
    signal: new AbortController().signal,
    commit: (fn) => prisma.$transaction(fn),
  };
}

describe("the orders work queue", () => {
  it("stores who ordered and the shop total from the webhook; empty when Shopify withholds them", () => {
    expect(
      orderFacts({
        total_price: "42.50",
        email: "Ada@Example.com",
        customer: { first_name: "Ada", last_name: "Lovelace" },
      }),
    ).toEqual({
      customerName: "Ada Lovelace",
      customerEmail: "ada@example.com",
      shopTotal: "42.50",
    });
    expect(orderFacts({ shipping_address: { name: "Grace Hopper" }, total_price: 7 })).toEqual({
      customerName: "Grace Hopper",
      customerEmail: null,
      shopTotal: "7",
    });
    expect(orderFacts({ total_price: "1e9", email: "not an email", customer: null })).toEqual({
      customerName: null,
      customerEmail: null,
      shopTotal: null,
    });
  });

  it("finds orders by number, customer, email, service order and tracking number; views count", async () => {
    const ada = await customerOrder("Ada", "Lovelace");
    const grace = await customerOrder("Grace", "Hopper");
    const alan = await customerOrder("Alan", "Turing");
    expect(ada.customerName).toBe("Ada Lovelace");
    expect(ada.customerEmail).toBe("ada.lovelace@example.com");
    expect(ada.shopTotal).toBe("20.00");
    expect(ada.state).toBe("HELD");

    const all = await list("");
    expect(all.viewCounts.to_place).toBe(3);
    // Held only for the review window: to place, not a problem.
    expect(all.viewCounts.attention).toBe(0);
    expect(all.total).toBe(3);

    expect(await names("q=hopper")).toEqual(["Grace Hopper"]);
    expect(await names("q=ALAN.TURING@EXAMPLE")).toEqual(["Alan Turing"]);
    expect(await names(`q=${encodeURIComponent(ada.shopifyOrderName!)}`)).toEqual(["Ada Lovelace"]);
    expect(await names(`q=${ada.shopifyOrderName!.slice(1)}`)).toEqual(["Ada Lovelace"]);

    await prisma.shopOrder.update({ where: { id: grace.id }, data: { svcOrderId: "SVC-777" } });
    await prisma.shipment.create({
      data: { orderId: alan.id, svcOrderId: "SVC-888", trackNumber: "YT2411250001" },
    });
    expect(await names("q=SVC-777")).toEqual(["Grace Hopper"]);
    expect(await names("q=yt2411250001")).toEqual(["Alan Turing"]);
    // A part of a tracking number finds nothing (numbers are exact, names are partial).
    expect(await names("q=YT24112")).toEqual([]);
    const found = await list("q=YT2411250001");
    expect(found.orders[0]!.trackNumber).toBe("YT2411250001");

    // Date range (inclusive end day) and sort.
    const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000);
    await prisma.shopOrder.update({ where: { id: ada.id }, data: { createdAt: tenDaysAgo } });
    const day = (d: Date) => d.toISOString().slice(0, 10);
    expect(await names(`from=${day(tenDaysAgo)}&to=${day(tenDaysAgo)}`)).toEqual(["Ada Lovelace"]);
    expect((await names(`from=${day(new Date())}`)).sort()).toEqual([
      "Alan Turing",
      "Grace Hopper",
    ]);
    expect((await names("sort=oldest"))[0]).toBe("Ada Lovelace");
    expect((await names("sort=newest"))[2]).toBe("Ada Lovelace");
    // Nonsense filters are ignored, not errors.
    expect((await list("view=bogus&from=2026-13-45&sort=x&page=-3")).total).toBe(3);

    // A failed order and a flagged paid one need attention; older ?problems=1 links still work.
    await prisma.shopOrder.update({ where: { id: grace.id }, data: { state: "FAILED" } });
    await prisma.shopOrder.update({
      where: { id: alan.id },
      data: { state: "PAID", flag: "parcel_abnormal" },
    });
    const attention = await list("view=attention");
    expect(attention.orders.map((o) => o.customerName).sort()).toEqual([
      "Alan Turing",
      "Grace Hopper",
    ]);
    expect((await list("problems=1")).total).toBe(2);
    expect(attention.viewCounts).toMatchObject({
      to_place: 1,
      awaiting_shipment: 1,
      attention: 2,
      all: 3,
    });
    // Held with no reason code at all (a row written before reasons existed): a problem too,
    // not hidden by the SQL that drops NULLs from `NOT IN`.
    const waiting = (await names("view=to_place"))[0];
    expect(waiting).toBe("Ada Lovelace");
    await prisma.shopOrder.updateMany({
      where: { shopDomain: h.shopDomain, customerName: "Ada Lovelace" },
      data: { state: "HELD", reasonCode: null },
    });
    expect((await list("view=attention")).viewCounts).toMatchObject({ attention: 3 });
    await prisma.shopOrder.deleteMany({ where: { shopDomain: h.shopDomain } });
  });

  it("works out the margin in USD at the recorded rate, only when both sides are known", () => {
    const o = { shopTotal: "50.00", amount: "31.25", currency: "USD", fxRate: null };
    expect(marginUsd(o)).toBe("18.75");
    expect(marginUsd({ ...o, currency: "EUR", fxRate: "1.10" })).toBe("23.75");
    expect(marginUsd({ ...o, currency: "EUR", fxRate: null })).toBeNull();
    expect(marginUsd({ ...o, amount: null })).toBeNull();
    expect(marginUsd({ ...o, amount: "60.00" })).toBe("-10.00");
  });

  it("offers only the actions that fit an order's state", () => {
    const base = { reasonCode: null, svcOrderId: null, paymentBatchId: null, flag: null };
    // Scheduled (the review window): nothing to retry; Release is its "Place now".
    expect(fittingActions({ ...base, state: "HELD", reasonCode: "review_window" })).toEqual([
      "hold",
      "release",
      "cancel",
    ]);
    expect(fittingActions({ ...base, state: "HELD", reasonCode: "merchant_hold" })).toEqual([
      "retry",
      "release",
      "cancel",
    ]);
    expect(fittingActions({ ...base, state: "CREATED", svcOrderId: "S1" })).toEqual([
      "pay-now",
      "hold",
      "cancel",
    ]);
    expect(fittingActions({ ...base, state: "PAID", svcOrderId: "S1" })).toEqual([]);
    expect(fits("retry", { ...base, state: "PAID", flag: "parcel_abnormal" })).toBe(true);
    expect(fittingActions({ ...base, state: "CANCELLED" })).toEqual([]);
  });

  it("retries 30 held orders as one job, with a result per order, once per form", async () => {
    // Shopify withholds the customers' data: the orders wait, without name or email.
    await updateSettings(prisma, h.shopDomain, { reviewWindowMinutes: 0 });
    h.shop.setProtectedCustomerData(h.shopDomain, false);
    const held = [];
    for (let i = 0; i < 30; i++) held.push(await customerOrder(`Bulk${i}`, "Buyer"));
    expect(held.every((o) => o.state === "HELD" && o.reasonCode === "protected_data")).toBe(true);
    expect(held.every((o) => o.customerName === null && o.customerEmail === null)).toBe(true);
    // Access granted in the Partner Dashboard (out of the app's sight): the merchant retries.
    h.shop.setProtectedCustomerData(h.shopDomain, true);
    await updateSettings(prisma, h.shopDomain, { reviewWindowMinutes: 60 });
    const waiting = await customerOrder("Waiting", "Buyer");
    const cancelled = await customerOrder("Gone", "Buyer");
    await prisma.shopOrder.update({ where: { id: cancelled.id }, data: { state: "CANCELLED" } });
    const ids = [...held.map((o) => o.id), waiting.id, cancelled.id];

    const submit = () =>
      startBulkRun(
        prisma,
        h.shopDomain,
        form({ intent: "retry", clientKey: "form-key-0001", orderId: ids }),
      );
    const [first, second] = await Promise.all([submit(), submit()]).catch(async () => [
      // Both raced to create the run: the loser retries and finds the winner's.
      await submit(),
      await submit(),
    ]);
    expect(first.ok && second.ok).toBe(true);
    if (!first.ok || !second.ok) return;
    expect(second.runId).toBe(first.runId);
    expect(await prisma.bulkRun.count({ where: { shopDomain: h.shopDomain } })).toBe(1);
    expect(await prisma.job.count({ where: { kind: "orders.bulk" } })).toBe(1);

    await h.settle();
    const run = await latestBulkRun(prisma, h.shopDomain);
    expect(run).toMatchObject({ id: first.runId, total: 32, done: 32, finished: true, failed: 2 });
    expect(run!.results.find((r) => r.orderId === cancelled.id)).toMatchObject({
      ok: false,
      message: "A cancelled order cannot be retried.",
    });
    // Retry says what holds an order still, and does not cut the review window short.
    expect(run!.results.find((r) => r.orderId === waiting.id)?.message).toMatch(
      /^Still held: the review window ends at \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} (UTC|GMT[+-]\d+)\. Release it to send it now\.$/,
    );
    expect((await h.row(Number(waiting.shopifyOrderId))).state).toBe("HELD");
    expect(run!.results.filter((r) => r.ok)).toHaveLength(30);
    // Retried: placed at the service, each once.
    const after = await prisma.shopOrder.findMany({ where: { id: { in: held.map((o) => o.id) } } });
    expect(after.every((o) => o.svcOrderId && o.state !== "HELD")).toBe(true);
    expect(new Set(after.map((o) => o.svcOrderId)).size).toBe(30);

    // The same form again (a double click that got through) starts nothing new.
    const again = await submit();
    expect(again).toMatchObject({ ok: true, runId: first.runId });
    expect(await prisma.job.count({ where: { kind: "orders.bulk" } })).toBe(1);
  });

  it("resumes a crashed run without acting twice on an order", async () => {
    const a = await customerOrder("Crash", "One");
    const b = await customerOrder("Crash", "Two");
    const started = await startBulkRun(
      prisma,
      h.shopDomain,
      form({ intent: "hold", clientKey: "form-key-crash", orderId: [a.id, b.id] }),
    );
    if (!started.ok) throw new Error("refused");
    // The first attempt dies after the first order (its lease lost): a's result is recorded.
    const handler = bulkOrdersHandler(async () => h.deps);
    const run0 = await prisma.bulkRun.findUniqueOrThrow({ where: { id: started.runId } });
    await prisma.bulkRun.update({
      where: { id: run0.id },
      data: { results: { [a.id]: { ok: true, message: "Done: the order is now HELD." } }, done: 1 },
    });
    await handler(ctxFor(started.runId));
    await handler(ctxFor(started.runId));
    const run = await prisma.bulkRun.findUniqueOrThrow({ where: { id: started.runId } });
    expect(run.done).toBe(2);
    expect(Object.keys(run.results as object).sort()).toEqual([a.id, b.id].sort());
    // a was never acted on again; b was held once.
    const holds = async (id: string) =>
      prisma.timelineEntry.count({ where: { orderId: id, step: "hold" } });
    expect(await holds(a.id)).toBe(0);
    expect(await holds(b.id)).toBe(1);
  });

  it("refuses a selection with another shop's order, or none, and changes nothing", async () => {
    const other = await prisma.shopOrder.create({
      data: {
        shopDomain: "someone-else.myshopify.com",
        shopifyOrderId: "999",
        orderNumber: "someone-else-999",
        state: "HELD",
      },
    });
    const before = await prisma.bulkRun.count();
    const r = await startBulkRun(
      prisma,
      h.shopDomain,
      form({ intent: "cancel", clientKey: "form-key-other", orderId: [other.id] }),
    );
    expect(r).toEqual({
      ok: false,
      errors: { form: "Some selected orders are not this shop's. Reload." },
    });
    expect(
      await startBulkRun(prisma, h.shopDomain, form({ intent: "cancel", clientKey: "form-key-x" })),
    ).toEqual({ ok: false, errors: { form: "Select the orders first" } });
    expect(
      await startBulkRun(
        prisma,
        h.shopDomain,
        form({ intent: "explode", clientKey: "form-key-y", orderId: [other.id] }),
      ),
    ).toEqual({ ok: false, errors: { form: "Unknown action" } });
    expect(await prisma.bulkRun.count()).toBe(before);
    expect((await prisma.shopOrder.findUniqueOrThrow({ where: { id: other.id } })).state).toBe(
      "HELD",
    );
  });
});
