/**
 * The merchant's order actions (Retry, Hold, Release, Cancel, and the re-check of held orders)
 * called directly against a real database: in every state each action accepts, the state, reason,
 * payment batch, timeline entry and job it leaves; in every state it refuses (and for another
 * shop's order), a clear refusal and nothing changed. None of them calls the service: the
 * service client of these dependencies throws. Whole flows over HTTP are in actions-flow.test.ts.
 */
import type { Prisma, PrismaClient } from "@prisma/client";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import {
  type ActionResult,
  cancelOrder,
  holdOrder,
  releaseOrder,
  retryOrder,
} from "../../app/fulfilment/actions.server";
import type { FulfilmentDeps } from "../../app/orders/deps.server";
import { recheckHeld } from "../../app/orders/recheck.server";
import { JOB } from "../../app/orders/schedule.server";
import { currentLogContext, withLogContext } from "../../app/log-context.server";

const SHOP = "actions.myshopify.com";
const OTHER = "other-actions.myshopify.com";
const PAID = ["PAID", "SHIPPED", "FULFILLED", "DELIVERED"] as const;

let nowMs = Date.parse("2026-11-23T12:00:00.000Z");
const deps: FulfilmentDeps = {
  prisma,
  svcFor: () => Promise.reject(new Error("an action never calls the service")),
  shopFor: () => Promise.reject(new Error("an action never calls the shop")),
  clock: { now: () => nowMs },
};

// The embedded database starts on first use: in the hook's time, not the first test's.
beforeAll(async () => {
  await prisma.shopOrder.count();
});

let seq = 0;
let svcSeq = 0;
/** A service order id of its own. */
const svcId = () => `SO-${++svcSeq}`;
beforeEach(() => {
  nowMs += 60_000;
});

async function makeOrder(data: Partial<Prisma.ShopOrderUncheckedCreateInput> = {}) {
  seq++;
  return prisma.shopOrder.create({
    data: {
      shopDomain: SHOP,
      shopifyOrderId: String(5000 + seq),
      orderNumber: `act-${seq}`,
      svcAccountId: `acc-${seq}`,
      ...data,
    },
  });
}

async function makeBatch(state: string, svcAccountId = `acc-${seq}`) {
  return prisma.paymentBatch.create({ data: { svcAccountId, isSandbox: false, state } });
}

const row = (id: string) => prisma.shopOrder.findUniqueOrThrow({ where: { id } });
const timeline = (id: string) =>
  prisma.timelineEntry.findMany({ where: { orderId: id }, orderBy: { id: "asc" } });
const orderJobs = (id: string) =>
  prisma.job.findMany({ where: { concurrencyKey: `order:${id}` }, orderBy: { id: "asc" } });
const payJobs = (accountId: string) =>
  prisma.job.findMany({ where: { concurrencyKey: `pay:${accountId}` }, orderBy: { id: "asc" } });

/** Everything an action could change: the order row, all timeline entries and all jobs. */
async function world(id: string) {
  return {
    order: await prisma.shopOrder.findUnique({ where: { id } }),
    timeline: await prisma.timelineEntry.count(),
    jobs: await prisma.job.count(),
  };
}

/** The order's last timeline entry, without its id and time. */
async function lastEntry(id: string) {
  const t = await timeline(id);
  const e = t.at(-1);
  return e && { step: e.step, outcome: e.outcome, errorCode: e.errorCode, message: e.message };
}

/** The order's last timeline entry is this one. */
async function expectEntry(
  id: string,
  e: { step: string; outcome: string; message: string; errorCode?: string },
) {
  expect(await lastEntry(id)).toEqual({ errorCode: null, ...e });
}

/** The order now has these fields, and its last timeline entry is this one. */
async function expectOrder(
  id: string,
  fields: Record<string, unknown>,
  entry: Parameters<typeof expectEntry>[1],
) {
  expect(await row(id)).toMatchObject(fields);
  await expectEntry(id, entry);
}

/** A job of this shop with this payload, due now. */
function expectDue(
  job: { payload: unknown; shopDomain: string | null; runAt: Date } | undefined,
  payload: object,
) {
  expect(job?.payload).toEqual(payload);
  expect(job?.shopDomain).toBe(SHOP);
  expect(job?.runAt.getTime()).toBeLessThanOrEqual(Date.now());
}

/** The action sent the order back to be placed: RECEIVED, no reason, one place job due now. */
async function expectPlacedAgain(id: string, result: ActionResult, note?: string) {
  expect(result).toEqual({ ok: true, state: "RECEIVED", ...(note ? { note } : {}) });
  expect(await row(id)).toMatchObject({
    state: "RECEIVED",
    reasonCode: null,
    reasonMessage: null,
    svcOrderId: null,
  });
  const j = await orderJobs(id);
  expect(j.map((x) => x.kind)).toEqual([JOB.place]);
  expectDue(j[0], { orderId: id });
}

/**
 * Dependencies whose database runs `meanwhile` right after the action has read the order: a
 * worker (or a webhook) changing the order between the action's read and its write.
 */
function racing(meanwhile: (orderId: string) => Promise<unknown>): FulfilmentDeps {
  const orders = new Proxy(prisma.shopOrder, {
    get(target, p) {
      if (p === "findUnique") {
        return async (args: Prisma.ShopOrderFindUniqueArgs) => {
          const o = await target.findUnique(args);
          if (o) await meanwhile(o.id);
          return o;
        };
      }
      const v = Reflect.get(target, p) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const db = new Proxy(prisma, {
    get(target, p) {
      if (p === "shopOrder") return orders;
      const v = Reflect.get(target, p) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { ...deps, prisma: db as PrismaClient };
}

describe("every action", () => {
  const actions = {
    retry: (id: string, shopDomain?: string) => retryOrder(deps, id, { shopDomain }),
    hold: (id: string, shopDomain?: string) => holdOrder(deps, id, { shopDomain }),
    release: (id: string, shopDomain?: string) => releaseOrder(deps, id, { shopDomain }),
    cancel: (id: string, shopDomain?: string) => cancelOrder(deps, { orderId: id }, { shopDomain }),
  };
  // A state each action accepts, so that only the shop makes it refuse.
  const accepted: Record<keyof typeof actions, Partial<Prisma.ShopOrderUncheckedCreateInput>> = {
    retry: { state: "FAILED" },
    hold: { state: "RECEIVED" },
    release: { state: "HELD", reasonCode: "merchant_hold" },
    cancel: { state: "RECEIVED" },
  };

  for (const [name, act] of Object.entries(actions) as [
    keyof typeof actions,
    typeof actions.retry,
  ][]) {
    it(`${name}: another shop's order is refused and left as it is; its own shop's is not`, async () => {
      const o = await makeOrder(accepted[name]);
      const before = await world(o.id);
      expect(await act(o.id, OTHER)).toEqual({ ok: false, error: "Order not found." });
      expect(await world(o.id)).toEqual(before);
      expect(await act("no-such-order", SHOP)).toEqual({ ok: false, error: "Order not found." });
      expect(await world(o.id)).toEqual(before);

      const r = await act(o.id, SHOP);
      expect(r.ok).toBe(true);
      expect(await prisma.timelineEntry.count({ where: { orderId: o.id } })).toBe(1);
    });
  }

  it("an action's log lines carry the order and its shop", async () => {
    const o = await makeOrder({ state: "FAILED" });
    const ctx = await withLogContext({ requestId: "req-1" }, async () => {
      await retryOrder(deps, o.id);
      return currentLogContext();
    });
    expect(ctx).toEqual({ requestId: "req-1", orderId: o.id, shop: SHOP });
  });
});

describe("retryOrder", () => {
  it("refuses a cancelled order and changes nothing", async () => {
    const o = await makeOrder({ state: "CANCELLED", reasonCode: "cancelled_in_shop" });
    const before = await world(o.id);
    const r = await retryOrder(deps, o.id);
    expect(r.ok).toBe(false);
    expect(r.ok === false && r.error).toMatch(/cancelled order cannot be retried/);
    expect(await world(o.id)).toEqual(before);
  });

  for (const state of ["RECEIVED", "CREATED", "PAYING"]) {
    it(`refuses an order that is ${state} (it is on its way) and changes nothing`, async () => {
      const o = await makeOrder({ state, svcOrderId: state === "RECEIVED" ? null : svcId() });
      const before = await world(o.id);
      expect(await retryOrder(deps, o.id, { shopDomain: SHOP })).toEqual({
        ok: false,
        error: `The order is ${state}: nothing to retry.`,
      });
      expect(await world(o.id)).toEqual(before);
    });
  }

  for (const state of PAID) {
    it(`of a ${state} order checks its tracking again, never pays or places it again`, async () => {
      const o = await makeOrder({
        state,
        svcOrderId: svcId(),
        flag: "fulfilment_conflict",
        reasonMessage: "kept",
        paymentBatchId: "batch-kept",
      });
      const jobs = await prisma.job.count();
      expect(await retryOrder(deps, o.id)).toEqual({ ok: true, state });
      const after = await row(o.id);
      // The conflict flag is what Retry resolves; the rest of the order is as it was.
      expect(after).toMatchObject({
        state,
        flag: null,
        reasonMessage: "kept",
        paymentBatchId: "batch-kept",
        svcOrderId: o.svcOrderId,
      });
      const j = await orderJobs(o.id);
      expect(j.map((x) => x.kind)).toEqual([JOB.track]);
      expectDue(j[0], { orderId: o.id });
      expect(await prisma.job.count()).toBe(jobs + 1);
      await expectEntry(o.id, {
        step: "retry",
        outcome: "info",
        message: "Retry by the merchant: tracking is checked again.",
      });
    });
  }

  it("of a paid order keeps a flag other than a fulfilment conflict", async () => {
    const o = await makeOrder({ state: "PAID", flag: "cancelled_after_payment" });
    expect(await retryOrder(deps, o.id)).toEqual({ ok: true, state: "PAID" });
    expect((await row(o.id)).flag).toBe("cancelled_after_payment");
  });

  it("a second Retry of a paid order later checks the tracking again (a new job)", async () => {
    const o = await makeOrder({ state: "SHIPPED" });
    await retryOrder(deps, o.id);
    await prisma.job.updateMany({
      where: { concurrencyKey: `order:${o.id}` },
      data: { state: "completed" },
    });
    nowMs += 1000;
    await retryOrder(deps, o.id);
    const j = await orderJobs(o.id);
    expect(j.map((x) => [x.kind, x.state])).toEqual([
      [JOB.track, "completed"],
      [JOB.track, "available"],
    ]);
  });

  it("of an order that failed before creation places it again: RECEIVED, a place job", async () => {
    const o = await makeOrder({
      state: "FAILED",
      reasonCode: "create_failed",
      reasonMessage: "The service refused the order.",
    });
    await expectPlacedAgain(o.id, await retryOrder(deps, o.id, { shopDomain: SHOP }), PLACING_NOTE);
    expect(await payJobs(o.svcAccountId!)).toEqual([]);
    await expectEntry(o.id, {
      step: "retry",
      outcome: "info",
      message: "Retry by the merchant: the order is placed again.",
    });

    // It fails again; a later Retry places it again (a new job, not the finished one).
    await prisma.job.updateMany({
      where: { concurrencyKey: `order:${o.id}` },
      data: { state: "completed" },
    });
    await prisma.shopOrder.update({ where: { id: o.id }, data: { state: "FAILED" } });
    nowMs += 1000;
    expect((await retryOrder(deps, o.id)).ok).toBe(true);
    expect((await orderJobs(o.id)).map((x) => [x.kind, x.state])).toEqual([
      [JOB.place, "completed"],
      [JOB.place, "available"],
    ]);
  });

  it("of an order created at the service resumes its payment, out of its failed batch", async () => {
    const batch = await makeBatch("failed");
    const o = await makeOrder({
      state: "FAILED",
      svcOrderId: svcId(),
      placedAt: new Date(nowMs - 3_600_000),
      paymentBatchId: batch.id,
      reasonCode: "payment_failed",
      reasonMessage: "The payment failed.",
    });
    expect(await retryOrder(deps, o.id)).toEqual({ ok: true, state: "CREATED" });
    expect(await row(o.id)).toMatchObject({
      state: "CREATED",
      paymentBatchId: null,
      reasonCode: null,
      reasonMessage: null,
      svcOrderId: o.svcOrderId,
    });
    // Not placed again (no second service order): a payment run for its account, due now.
    expect(await orderJobs(o.id)).toEqual([]);
    const pay = await payJobs(o.svcAccountId!);
    expect(pay).toHaveLength(1);
    expectDue(pay[0], { accountId: o.svcAccountId });
    expect(pay[0]!.idempotencyKey).toContain(`retry:${o.id}:${nowMs}`);
    await expectEntry(o.id, {
      step: "retry",
      outcome: "info",
      message: "Retry by the merchant.",
    });
  });

  it("of an order sent but still without its service id waits for the connection, unpaid", async () => {
    const o = await makeOrder({ state: "FAILED", placedAt: new Date(nowMs - 60_000) });
    expect(await retryOrder(deps, o.id)).toEqual({ ok: true, state: "CREATED" });
    expect(await row(o.id)).toMatchObject({
      state: "CREATED",
      svcOrderId: null,
      reasonCode: "waiting_connection",
      reasonMessage: "Waiting for the service order id (products to be connected at the service).",
    });
    expect(await orderJobs(o.id)).toEqual([]);
    expect(await payJobs(o.svcAccountId!)).toEqual([]);
  });

  it("of a created order without an account schedules no payment", async () => {
    const o = await makeOrder({ state: "FAILED", svcOrderId: svcId(), svcAccountId: null });
    const jobs = await prisma.job.count();
    expect(await retryOrder(deps, o.id)).toEqual({ ok: true, state: "CREATED" });
    expect(await prisma.job.count()).toBe(jobs);
  });

  it("of a held order (not yet placed) places it", async () => {
    const o = await makeOrder({ state: "HELD", reasonCode: "fraud_risk", reasonMessage: "Risky." });
    await expectPlacedAgain(o.id, await retryOrder(deps, o.id), PLACING_NOTE);
  });

  it("of an order still held for its cause says what holds it, and changes nothing", async () => {
    const shop = "still-held.myshopify.com";
    const cases: Array<[Partial<Prisma.ShopOrderUncheckedCreateInput>, string]> = [
      [{ reasonCode: "no_account" }, "Still held: no service account is connected."],
      [{ reasonCode: "paused" }, "Still held: the shop is paused in Settings."],
      // Created at the service, kept out of payment while a platform warehouse mode is saved.
      [
        { reasonCode: "warehouse_mode", state: "HELD", svcOrderId: "SO-WM" },
        "Still held: The warehouse mode chosen in Settings needs a shipping label",
      ],
    ];
    await prisma.shop.upsert({
      where: { domain: shop },
      create: { domain: shop, settings: { paused: true, shopLogisticsType: 3 } },
      update: { settings: { paused: true, shopLogisticsType: 3 } },
    });
    for (const [data, text] of cases) {
      const o = await makeOrder({ shopDomain: shop, state: "HELD", ...data });
      const r = await retryOrder(deps, o.id);
      expect(r.ok).toBe(false);
      expect(!r.ok && r.error).toContain(text);
      // Release cannot remove these causes either: it says the same, and changes nothing.
      const released = await releaseOrder(deps, o.id);
      expect(!released.ok && released.error).toContain(text);
      expect(await row(o.id)).toEqual(o);
      expect(await orderJobs(o.id)).toEqual([]);
    }
    // Two lines without a match (one of three matched meanwhile): "2 lines have no match".
    const o = await makeOrder({ shopDomain: shop, state: "HELD", reasonCode: "unconnected_lines" });
    for (const v of ["71", "72", "73"]) {
      await prisma.shopOrderLine.create({
        data: {
          orderId: o.id,
          shopifyLineItemId: `L${v}`,
          shopifyVariantId: v,
          title: "T",
          quantity: 1,
          unitPrice: "1.00",
        },
      });
    }
    await prisma.productConnection.create({
      data: { shopDomain: shop, shopifyProductId: "7", shopifyVariantId: "71", svcVid: "V71" },
    });
    const r = await retryOrder(deps, o.id);
    expect(!r.ok && r.error).toBe(
      "Still held: 2 lines have no match. Connect them on the Products page and the order goes on.",
    );
    expect(await orderJobs(o.id)).toEqual([]);
    // All matched: placed again.
    await prisma.productConnection.createMany({
      data: ["72", "73"].map((v) => ({
        shopDomain: shop,
        shopifyProductId: "7",
        shopifyVariantId: v,
        svcVid: `V${v}`,
      })),
    });
    expect(await retryOrder(deps, o.id)).toMatchObject({ ok: true, state: "RECEIVED" });
    expect(await orderJobs(o.id)).toHaveLength(1);
  });
});

const PLACING_NOTE = "It is being placed now: the timeline shows the outcome in a moment.";

describe("holdOrder", () => {
  const holdable: Partial<Prisma.ShopOrderUncheckedCreateInput>[] = [
    { state: "RECEIVED" },
    { state: "HELD", reasonCode: "fraud_risk" },
    { state: "FAILED", reasonCode: "create_failed" },
    { state: "CREATED", svcOrderId: "SO-unbatched" },
  ];
  for (const data of holdable) {
    it(`holds a ${data.state} order not in a payment batch`, async () => {
      const o = await makeOrder(data);
      const jobs = await prisma.job.count();
      expect(await holdOrder(deps, o.id, { shopDomain: SHOP })).toEqual({
        ok: true,
        state: "HELD",
      });
      const message = "Held by the merchant. Release it to go on.";
      await expectOrder(
        o.id,
        { state: "HELD", reasonCode: "merchant_hold", reasonMessage: message },
        { step: "hold", outcome: "held", errorCode: "merchant_hold", message },
      );
      // Holding schedules nothing.
      expect(await prisma.job.count()).toBe(jobs);
    });
  }

  it("keeps the merchant's note, cut at 200 characters", async () => {
    const o = await makeOrder({ state: "RECEIVED" });
    const note = `${"x".repeat(199)}YZ`;
    await holdOrder(deps, o.id, { note });
    const message = `Held by the merchant: ${"x".repeat(199)}Y. Release it to go on.`;
    expect((await row(o.id)).reasonMessage).toBe(message);
    expect((await lastEntry(o.id))?.message).toBe(message);
  });

  const refused: Partial<Prisma.ShopOrderUncheckedCreateInput>[] = [
    { state: "CREATED", svcOrderId: "SO-batched", paymentBatchId: "in-a-batch" },
    { state: "PAYING", svcOrderId: "SO-paying", paymentBatchId: "paying-batch" },
    ...PAID.map((state) => ({ state, svcOrderId: `SO-${state}`, paymentBatchId: "paid-batch" })),
    { state: "CANCELLED" },
  ];
  for (const data of refused) {
    it(`refuses a ${data.state} order${data.paymentBatchId ? " in a payment batch" : ""} and changes nothing`, async () => {
      const o = await makeOrder(data);
      const before = await world(o.id);
      expect(await holdOrder(deps, o.id, { note: "stop" })).toEqual({
        ok: false,
        error: `The order is ${data.state}: it can no longer be held.`,
      });
      expect(await world(o.id)).toEqual(before);
    });
  }

  it("refuses when a payment run takes the order into its batch meanwhile", async () => {
    const o = await makeOrder({ state: "CREATED", svcOrderId: svcId() });
    const r = await holdOrder(
      racing((id) =>
        prisma.shopOrder.update({ where: { id }, data: { paymentBatchId: "taken-meanwhile" } }),
      ),
      o.id,
    );
    expect(r).toEqual({ ok: false, error: "The order is being paid: it can no longer be held." });
    expect(await row(o.id)).toMatchObject({
      state: "CREATED",
      paymentBatchId: "taken-meanwhile",
      reasonCode: null,
    });
    expect(await timeline(o.id)).toEqual([]);
  });

  it("does not bring back an order cancelled meanwhile", async () => {
    const o = await makeOrder({ state: "FAILED" });
    const r = await holdOrder(
      racing((id) => prisma.shopOrder.update({ where: { id }, data: { state: "CANCELLED" } })),
      o.id,
    );
    expect(r.ok).toBe(false);
    expect(await row(o.id)).toMatchObject({ state: "CANCELLED", reasonCode: null });
    expect(await timeline(o.id)).toEqual([]);
  });
});

describe("releaseOrder", () => {
  for (const state of ["RECEIVED", "FAILED", "CREATED", "PAID", "CANCELLED"]) {
    it(`refuses a ${state} order (not held) and changes nothing`, async () => {
      const o = await makeOrder({ state, reasonCode: "merchant_hold" });
      const before = await world(o.id);
      expect(await releaseOrder(deps, o.id)).toEqual({
        ok: false,
        error: `The order is ${state}, not held.`,
      });
      expect(await world(o.id)).toEqual(before);
    });
  }

  const releasedEntry = { step: "release", outcome: "info", message: "Released by the merchant." };

  it("of an order held by the merchant before creation places it: RECEIVED, a place job", async () => {
    const o = await makeOrder({ state: "HELD", reasonCode: "merchant_hold", reasonMessage: "x" });
    await expectPlacedAgain(o.id, await releaseOrder(deps, o.id, { shopDomain: SHOP }));
    // The place step skips the review window and the risk check for an order with this entry.
    await expectEntry(o.id, releasedEntry);
  });

  it("of a held order created at the service resumes its payment", async () => {
    const o = await makeOrder({
      state: "HELD",
      reasonCode: "merchant_hold",
      svcOrderId: svcId(),
      placedAt: new Date(nowMs - 60_000),
    });
    expect(await releaseOrder(deps, o.id)).toEqual({ ok: true, state: "CREATED" });
    expect(await row(o.id)).toMatchObject({ state: "CREATED", reasonCode: null });
    expect(await orderJobs(o.id)).toEqual([]);
    const pay = await payJobs(o.svcAccountId!);
    expect(pay).toHaveLength(1);
    expect(pay[0]!.idempotencyKey).toContain(`release:${o.id}:${nowMs}`);
    await expectEntry(o.id, releasedEntry);
  });

  it("of a held order sent without its service id waits for the connection", async () => {
    const o = await makeOrder({
      state: "HELD",
      reasonCode: "merchant_hold",
      placedAt: new Date(nowMs - 60_000),
    });
    expect(await releaseOrder(deps, o.id)).toEqual({ ok: true, state: "CREATED" });
    expect((await row(o.id)).reasonCode).toBe("waiting_connection");
    expect(await payJobs(o.svcAccountId!)).toEqual([]);
  });

  it("of an order waiting for money checks the balance now, and the order stays held", async () => {
    const o = await makeOrder({
      state: "HELD",
      reasonCode: "short_balance",
      reasonMessage: "Top up 12.00.",
      svcOrderId: svcId(),
    });
    expect(await releaseOrder(deps, o.id)).toEqual({
      ok: true,
      state: "HELD",
      note: "The balance is checked again now.",
    });
    expect(await row(o.id)).toMatchObject({
      state: "HELD",
      reasonCode: "short_balance",
      reasonMessage: "Top up 12.00.",
    });
    const pay = await payJobs(o.svcAccountId!);
    expect(pay).toHaveLength(1);
    expectDue(pay[0], { accountId: o.svcAccountId });
    expect(pay[0]!.idempotencyKey).toContain(`release:${o.id}:${nowMs}`);
    expect(await orderJobs(o.id)).toEqual([]);
    await expectEntry(o.id, {
      step: "release",
      outcome: "info",
      message: "Released: the balance is checked again.",
    });
  });

  it("of an order waiting for money without an account schedules nothing", async () => {
    const o = await makeOrder({ state: "HELD", reasonCode: "short_balance", svcAccountId: null });
    const jobs = await prisma.job.count();
    expect((await releaseOrder(deps, o.id)).ok).toBe(true);
    expect(await prisma.job.count()).toBe(jobs);
    expect((await row(o.id)).state).toBe("HELD");
    expect((await lastEntry(o.id))?.step).toBe("release");
  });
});

describe("cancelOrder", () => {
  it("before payment: CANCELLED at the clock's time, out of the pipeline", async () => {
    const o = await makeOrder({ state: "RECEIVED" });
    const jobs = await prisma.job.count();
    expect(await cancelOrder(deps, { orderId: o.id })).toEqual({ ok: true, state: "CANCELLED" });
    expect(await row(o.id)).toMatchObject({
      state: "CANCELLED",
      cancelledAt: new Date(nowMs),
      paymentBatchId: null,
      reasonCode: null,
      reasonMessage: "Cancelled by the merchant before payment.",
      flag: null,
    });
    expect(await prisma.job.count()).toBe(jobs);
    await expectEntry(o.id, {
      step: "cancel",
      outcome: "ok",
      message: "Cancelled by the merchant before payment.",
    });
  });

  it("from the shop, found by the shop's order id (gid or number); another shop's is left", async () => {
    const o = await makeOrder({ state: "CREATED", svcOrderId: svcId() });
    const twin = await makeOrder({ shopDomain: OTHER, shopifyOrderId: o.shopifyOrderId });
    expect(
      await cancelOrder(
        deps,
        { shopDomain: SHOP, shopifyOrderId: `gid://shopify/Order/${o.shopifyOrderId}` },
        { source: "shop" },
      ),
    ).toEqual({ ok: true, state: "CANCELLED" });
    const message = `Cancelled in the shop before payment (the unpaid service order ${o.svcOrderId} is left as it is).`;
    expect(await row(o.id)).toMatchObject({
      state: "CANCELLED",
      reasonCode: "cancelled_in_shop",
      reasonMessage: message,
      svcOrderId: o.svcOrderId,
    });
    await expectEntry(o.id, {
      step: "cancel",
      outcome: "ok",
      message: "Cancelled in the shop before payment.",
    });
    expect(await row(twin.id)).toMatchObject({ state: "RECEIVED", cancelledAt: null });
    expect(await timeline(twin.id)).toEqual([]);

    const plain = await makeOrder({ state: "HELD", reasonCode: "fraud_risk" });
    expect(
      await cancelOrder(
        deps,
        { shopDomain: SHOP, shopifyOrderId: plain.shopifyOrderId },
        { source: "shop" },
      ),
    ).toEqual({ ok: true, state: "CANCELLED" });
    expect(
      await cancelOrder(deps, { shopDomain: OTHER, shopifyOrderId: plain.shopifyOrderId }),
    ).toEqual({ ok: false, error: "Order not found." });
  });

  it("again: already cancelled, nothing written", async () => {
    const o = await makeOrder({ state: "CANCELLED", cancelledAt: new Date(nowMs - 5000) });
    const before = await world(o.id);
    expect(await cancelOrder(deps, { orderId: o.id }, { source: "shop" })).toEqual({
      ok: true,
      state: "CANCELLED",
      note: "already cancelled",
    });
    expect(await world(o.id)).toEqual(before);
  });

  for (const state of PAID) {
    for (const source of ["shop", "merchant"] as const) {
      it(`of a ${state} order (${source}) flags it for the merchant and leaves it ${state}`, async () => {
        const o = await makeOrder({
          state,
          svcOrderId: svcId(),
          paymentBatchId: "paid-batch",
        });
        const jobs = await prisma.job.count();
        expect(await cancelOrder(deps, { orderId: o.id }, { source, shopDomain: SHOP })).toEqual({
          ok: true,
          state,
          note: "flagged: already paid",
        });
        const who = source === "shop" ? "Cancelled in the shop" : "Cancelled by the merchant";
        const message = `${who} after the service order was paid: it will still ship. The service has no cancel call; open a dispute or contact the service.`;
        await expectOrder(
          o.id,
          {
            state,
            flag: "cancelled_after_payment",
            reasonMessage: message,
            reasonCode: null,
            cancelledAt: new Date(nowMs),
            paymentBatchId: "paid-batch",
          },
          { step: "cancel", outcome: "error", errorCode: "cancelled_after_payment", message },
        );
        expect(await prisma.job.count()).toBe(jobs);
      });
    }
  }

  for (const batchState of ["open", "carted", "failed"]) {
    it(`takes the order out of its ${batchState} payment batch`, async () => {
      const batch = await makeBatch(batchState);
      const o = await makeOrder({
        state: "CREATED",
        svcOrderId: svcId(),
        paymentBatchId: batch.id,
      });
      expect(await cancelOrder(deps, { orderId: o.id })).toEqual({
        ok: true,
        state: "CANCELLED",
      });
      expect(await row(o.id)).toMatchObject({ state: "CANCELLED", paymentBatchId: null });
      expect((await prisma.paymentBatch.findUniqueOrThrow({ where: { id: batch.id } })).state).toBe(
        batchState,
      );
    });
  }

  it("of an order whose batch is gone cancels it", async () => {
    const o = await makeOrder({ state: "CREATED", paymentBatchId: "vanished-batch" });
    expect(await cancelOrder(deps, { orderId: o.id })).toEqual({ ok: true, state: "CANCELLED" });
    expect((await row(o.id)).paymentBatchId).toBeNull();
  });

  for (const batchState of ["confirming", "confirmed", "parented", "paying", "paid"]) {
    for (const source of ["shop", "merchant"] as const) {
      it(`while its batch is ${batchState} (${source}): flagged, left in its batch`, async () => {
        const batch = await makeBatch(batchState);
        const o = await makeOrder({
          state: "PAYING",
          svcOrderId: svcId(),
          paymentBatchId: batch.id,
        });
        expect(await cancelOrder(deps, { orderId: o.id }, { source })).toEqual({
          ok: true,
          state: "PAYING",
          note: "flagged: payment under way",
        });
        expect(await row(o.id)).toMatchObject({
          state: "PAYING",
          paymentBatchId: batch.id,
          flag: "cancel_requested",
          cancelledAt: new Date(nowMs),
          reasonCode: null,
          reasonMessage: null,
        });
        const who = source === "shop" ? "Cancelled in the shop" : "Cancelled by the merchant";
        await expectEntry(o.id, {
          step: "cancel",
          outcome: "error",
          errorCode: "cancel_requested",
          message: `${who} while its payment batch was being paid: if the payment goes through, the order is flagged for a dispute.`,
        });
      });
    }
  }
});

describe("recheckHeld", () => {
  const causes = ["unconnected_lines", "paused", "no_account", "settings_incomplete"] as const;
  it("places again exactly the shop's orders held for the causes named, and counts them", async () => {
    const shop = "recheck.myshopify.com";
    const mine = (state: string, reasonCode: string | null) =>
      makeOrder({ shopDomain: shop, state, reasonCode });
    const again = [
      await mine("HELD", "unconnected_lines"),
      await mine("HELD", "paused"),
      await mine("HELD", "no_account"),
      await mine("HELD", "settings_incomplete"),
    ];
    const left = [
      await mine("HELD", "merchant_hold"),
      await mine("HELD", "short_balance"),
      await mine("HELD", "fraud_risk"),
      await mine("HELD", "review_window"),
      await mine("FAILED", "unconnected_lines"),
      await mine("RECEIVED", null),
      await makeOrder({ state: "HELD", reasonCode: "unconnected_lines" }), // another shop
    ];
    expect(await recheckHeld(prisma, shop, [...causes], "k1")).toBe(4);
    for (const o of again) {
      const j = await orderJobs(o.id);
      expect(j.map((x) => [x.kind, x.shopDomain, x.payload])).toEqual([
        [JOB.place, shop, { orderId: o.id }],
      ]);
      // Re-checking changes nothing on the order itself: the place step decides.
      expect(await row(o.id)).toEqual(o);
    }
    for (const o of left) expect(await orderJobs(o.id)).toEqual([]);

    // The same event twice schedules once; a later event schedules again.
    expect(await recheckHeld(prisma, shop, [...causes], "k1")).toBe(4);
    for (const o of again) expect(await orderJobs(o.id)).toHaveLength(1);
    await prisma.job.updateMany({
      where: { concurrencyKey: { in: again.map((o) => `order:${o.id}`) } },
      data: { state: "completed" },
    });
    expect(await recheckHeld(prisma, shop, ["paused"], "k2")).toBe(1);
    expect(await orderJobs(again[1]!.id)).toHaveLength(2);
    expect(await orderJobs(again[0]!.id)).toHaveLength(1);
    expect(await recheckHeld(prisma, "nobody.myshopify.com", [...causes], "k3")).toBe(0);
  });

  it("a short balance is re-checked by one pay run of the account, not by placing", async () => {
    const shop = "recheck-pay.myshopify.com";
    const held = {
      shopDomain: shop,
      state: "HELD",
      reasonCode: "short_balance",
      svcAccountId: "acc-pay",
    };
    const a = await makeOrder(held);
    const b = await makeOrder(held);
    expect(await recheckHeld(prisma, shop, ["short_balance"], "top-up")).toBe(2);
    expect(await orderJobs(a.id)).toEqual([]);
    expect(await orderJobs(b.id)).toEqual([]);
    const pays = await prisma.job.findMany({
      where: { kind: JOB.pay, concurrencyKey: `pay:${a.svcAccountId}` },
    });
    expect(pays.map((j) => j.payload)).toEqual([{ accountId: a.svcAccountId }]);
  });
});
