/**
 * The reconciler finds what a lost webhook would have told, for one account at a time: paid
 * orders fetched in batches of queryBatchSize ids (a parcel's id counts), a track job with the
 * fetched records (each record once) only for orders with news, tracking no webhook told of
 * counted as a gap, created orders without a service id looked up by number, stale payment
 * batches and orders waiting for the balance resumed, held orders placed again once their wait
 * is over. Other accounts' and shops' orders are never touched.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FulfilmentDeps } from "../../app/orders/deps.server";
import { reconcileAccount, reconcileAll } from "../../app/fulfilment/reconcile/index.server";
import { JOB } from "../../app/orders/schedule.server";
import { trackOrder } from "../../app/fulfilment/track/index.server";
import { updateSettings } from "../../app/settings.server";
import { type Harness, prisma, startHarness } from "./harness";
import { type PaidOrder, paidOrders, waitingTrackJobs } from "./track-helpers";

const MIN = 60_000;
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "reconcile-pass.myshopify.com", balance: "5000.00" });
  h.svc.setFaults({ dropWebhook: 1 });
});
afterAll(async () => h?.close());
beforeEach(async () => {
  await prisma.job.deleteMany({ where: { state: "available" } });
});

/** Fresh paid orders for one test; every other order of the shop is put out of the way. */
async function take(count: number): Promise<PaidOrder[]> {
  const mine = await paidOrders(h, count, "Reconcile");
  await prisma.shopOrder.updateMany({
    where: { shopDomain: h.shopDomain, id: { notIn: mine.map((o) => o.id) } },
    data: { state: "CANCELLED" },
  });
  // Distinct update times, in this order (the reconciler takes the oldest first).
  const t0 = Date.now() - 60 * MIN;
  for (const [i, o] of mine.entries()) {
    await prisma.shopOrder.update({ where: { id: o.id }, data: { updatedAt: new Date(t0 + i) } });
  }
  return mine;
}

/** The harness's dependencies with the clock `ahead` ms later, and calls to svcFor counted. */
function later(ahead: number, options: FulfilmentDeps["options"] = {}) {
  const counted = { svcFor: 0 };
  const deps: FulfilmentDeps = {
    ...h.deps,
    clock: { now: () => Date.now() + ahead },
    options: { ...h.deps.options, ...options },
    svcFor: (id) => {
      counted.svcFor++;
      return h.deps.svcFor(id);
    },
  };
  return { deps, counted };
}

const detailCalls = () =>
  h.svc
    .calls({ op: "getOrderDetailBatch", accountId: h.simAccountId })
    .map((c) => (c.body as { orderIds: string[] }).orderIds);
const recordsOfJob = async (orderId: string) => {
  const jobs = await waitingTrackJobs(orderId);
  return jobs.map(
    (j) => (j.payload as { records: { orderId: string; trackNumber?: string }[] }).records,
  );
};
const zero = {
  accounts: 1,
  queried: 0,
  trackJobs: 0,
  idsFound: 0,
  payRuns: 0,
  replaced: 0,
  gaps: 0,
};

describe("paid orders awaiting tracking", () => {
  it("are fetched in batches of queryBatchSize ids, a parcel's id counting, and only news queued", async () => {
    const [o1, o2, o3, o4, o5] = await take(5);
    await prisma.shipment.create({ data: { orderId: o2!.id, svcOrderId: "CHILD-2", lines: [] } });
    h.svc.ship(o1!.svcOrderId, { trackNumber: "PAGE-1" });
    h.svc.ship(o4!.svcOrderId, { trackNumber: "PAGE-4" });
    h.svc.ship(o5!.svcOrderId, { trackNumber: "PAGE-5" });
    const before = detailCalls().length;
    const { deps } = later(20 * MIN, { queryBatchSize: 3 });
    const slot0 = Math.floor(deps.clock.now() / 1000);
    expect(await reconcileAccount(deps, h.accountId)).toEqual({
      ...zero,
      queried: 2,
      trackJobs: 3,
      gaps: 3,
    });
    const sent = detailCalls().slice(before);
    expect(sent.map((ids) => [...ids].sort())).toEqual([
      [o1!.svcOrderId, o2!.svcOrderId, "CHILD-2"].sort(),
      [o3!.svcOrderId, o4!.svcOrderId, o5!.svcOrderId].sort(),
    ]);
    for (const [o, tn] of [
      [o1, "PAGE-1"],
      [o4, "PAGE-4"],
      [o5, "PAGE-5"],
    ] as const) {
      expect((await recordsOfJob(o!.id)).map((rs) => rs.map((r) => r.trackNumber))).toEqual([[tn]]);
      const [job] = await waitingTrackJobs(o!.id);
      const slot = Number(/:reconcile:(\d+)$/.exec(job!.idempotencyKey ?? "")?.[1]);
      expect(slot).toBeGreaterThanOrEqual(slot0);
      expect(slot).toBeLessThanOrEqual(Math.floor(deps.clock.now() / 1000));
      expect(job!.shopDomain).toBe(h.shopDomain);
    }
    expect(await waitingTrackJobs(o2!.id)).toEqual([]);
    expect(await waitingTrackJobs(o3!.id)).toEqual([]);
    const account = await prisma.svcAccount.findUniqueOrThrow({ where: { id: h.accountId } });
    expect(account.webhookGaps).toBe(3);

    // One order per call at queryBatchSize 1; an order with more ids than that still goes alone.
    const { deps: one } = later(20 * MIN + 1000, { queryBatchSize: 1 });
    const at = detailCalls().length;
    expect(await reconcileAccount(one, h.accountId, { maxOrders: 2 })).toMatchObject({
      queried: 2,
      trackJobs: 1,
    });
    expect(
      detailCalls()
        .slice(at)
        .map((ids) => [...ids].sort()),
    ).toEqual([[o1!.svcOrderId], [o2!.svcOrderId, "CHILD-2"].sort()]);
    await prisma.svcAccount.update({ where: { id: h.accountId }, data: { webhookGaps: 0 } });
  });

  it("tracking a webhook told of, or too fresh to miss, is no gap; a record goes once per job", async () => {
    const [heard, fresh, written] = await take(3);
    // A webhook told of this one (stored by the app's route; its jobs not run).
    h.svc.setFaults({});
    h.svc.ship(heard!.svcOrderId, { trackNumber: "HEARD-1" });
    await h.svc.deliverPendingWebhooks();
    h.svc.setFaults({ dropWebhook: 1 });
    await prisma.job.deleteMany({ where: { state: "available" } });
    h.svc.ship(written!.svcOrderId, { trackNumber: "W-1" });
    await trackOrder(h.deps, written!.id);
    h.svc.deliver(written!.svcOrderId);
    await prisma.shopOrder.update({ where: { id: written!.id }, data: { updatedAt: new Date(0) } });

    // Shipped just now: within the grace period, not (yet) a gap.
    const { deps: now } = later(0);
    h.svc.ship(fresh!.svcOrderId, { trackNumber: "FRESH-1" });
    expect(await reconcileAccount(now, h.accountId)).toEqual({
      ...zero,
      queried: 1,
      trackJobs: 3,
      gaps: 0,
    });
    await prisma.job.deleteMany({ where: { state: "available" } });
    const { deps } = later(20 * MIN);
    expect(await reconcileAccount(deps, h.accountId)).toEqual({
      ...zero,
      queried: 1,
      trackJobs: 3,
      gaps: 2,
    });
    // The fulfilled order's parcel has its id: its record is sent once, not once per id.
    expect(await recordsOfJob(written!.id)).toEqual([
      [expect.objectContaining({ orderId: written!.svcOrderId, orderStatus: "DELIVERED" })],
    ]);
    await prisma.svcAccount.update({ where: { id: h.accountId }, data: { webhookGaps: 0 } });
  });

  it("leaves conflicts, delivered orders, other accounts' orders, and orders beyond maxOrders", async () => {
    const [conflict, flagged, delivered, other, late] = await take(5);
    for (const o of [conflict, flagged, delivered, other, late]) {
      h.svc.ship(o!.svcOrderId, { trackNumber: `EX-${o!.legacyId}` });
    }
    await prisma.shopOrder.update({
      where: { id: conflict!.id },
      data: { flag: "fulfilment_conflict" },
    });
    await prisma.shopOrder.update({
      where: { id: flagged!.id },
      data: { flag: "cancelled_in_shop" },
    });
    await prisma.shopOrder.update({ where: { id: delivered!.id }, data: { state: "DELIVERED" } });
    const account = await prisma.svcAccount.create({
      data: {
        shopDomain: "reconcile-other.myshopify.com",
        baseUrl: h.svc.url,
        authMethod: "apiKey",
      },
    });
    await prisma.shopOrder.update({ where: { id: other!.id }, data: { svcAccountId: account.id } });
    const before = detailCalls().length;
    const { deps } = later(0);
    expect(await reconcileAccount(deps, h.accountId, { maxOrders: 1 })).toMatchObject({
      queried: 1,
      trackJobs: 1,
    });
    // (the oldest first: the others were just changed)
    expect(detailCalls().slice(before)).toEqual([[late!.svcOrderId]]);
    expect(await reconcileAccount(deps, h.accountId)).toMatchObject({ queried: 1, trackJobs: 2 });
    expect(
      detailCalls()
        .slice(before + 1)
        .map((ids) => [...ids].sort()),
    ).toEqual([[flagged!.svcOrderId, late!.svcOrderId].sort()]);
    for (const o of [conflict, delivered, other]) expect(await waitingTrackJobs(o!.id)).toEqual([]);
    await prisma.svcAccount.update({ where: { id: account.id }, data: { shopDomain: null } });
  });
});

describe("created orders without a service order id", () => {
  it("are looked up by number, in batches, and given their id and amount", async () => {
    const orders = await take(3);
    const svc = orders.map((o) => h.svc.order(o.svcOrderId)!);
    await prisma.shopOrder.updateMany({
      where: { id: { in: orders.map((o) => o.id) } },
      data: { state: "CREATED", svcOrderId: null, amount: null, paymentBatchId: null },
    });
    const unknown = await prisma.shopOrder.create({
      data: {
        shopDomain: h.shopDomain,
        shopifyOrderId: "999001",
        orderNumber: "never-sent-1",
        state: "CREATED",
        svcAccountId: h.accountId,
      },
    });
    await updateSettings(prisma, h.shopDomain, { autoPay: false });
    const before = detailCalls().length;
    const { deps } = later(0, { queryBatchSize: 2 });
    expect(await reconcileAccount(deps, h.accountId)).toMatchObject({
      queried: 2,
      idsFound: 3,
      trackJobs: 0,
    });
    expect(
      detailCalls()
        .slice(before)
        .map((ids) => ids.length),
    ).toEqual([2, 2]);
    for (const [i, o] of orders.entries()) {
      const row = await prisma.shopOrder.findUniqueOrThrow({
        where: { id: o.id },
        include: { timeline: true },
      });
      expect(row.svcOrderId).toBe(o.svcOrderId);
      expect(row.state).toBe("CREATED");
      expect(row.amount).toBe((Number(svc[i]!.orderAmount) / 100).toFixed(2));
      expect(row.amount).toMatch(/^\d+\.\d\d$/);
      expect(row.timeline.at(-1)!.message).toBe(
        `The service order id ${o.svcOrderId} is known (from a lookup by its number).`,
      );
    }
    const u = await prisma.shopOrder.findUniqueOrThrow({ where: { id: unknown.id } });
    expect(u.svcOrderId).toBeNull();
    await prisma.shopOrder.update({ where: { id: unknown.id }, data: { state: "CANCELLED" } });
    await updateSettings(prisma, h.shopDomain, { autoPay: true });
  });
});

describe("payments left behind", () => {
  it("a stale unfinished batch, or an order waiting for the balance, gets a pay run", async () => {
    const [o] = await take(1);
    await prisma.shopOrder.update({ where: { id: o!.id }, data: { state: "CANCELLED" } });
    const payJobs = () => prisma.job.findMany({ where: { kind: JOB.pay, state: "available" } });
    const fresh = later(0).deps;
    const stale = later(6 * MIN).deps;
    const pass = async (deps: FulfilmentDeps) => {
      await prisma.job.deleteMany({ where: { kind: JOB.pay } });
      return (await reconcileAccount(deps, h.accountId)).payRuns;
    };
    expect(await pass(stale)).toBe(0);

    const batch = await prisma.paymentBatch.create({
      data: { svcAccountId: h.accountId, isSandbox: false, state: "paying" },
    });
    expect(await pass(fresh)).toBe(0);
    expect(await pass(stale)).toBe(1);
    const [job] = await payJobs();
    expect(job!.payload).toEqual({ accountId: h.accountId });
    expect(job!.idempotencyKey).toContain("reconcile:");
    expect(job!.shopDomain).toBe(h.shopDomain);
    for (const state of ["open", "carted", "confirming", "confirmed", "parented"]) {
      await prisma.paymentBatch.update({ where: { id: batch.id }, data: { state } });
      expect([state, await pass(stale)]).toEqual([state, 1]);
    }
    await prisma.paymentBatch.update({ where: { id: batch.id }, data: { state: "paid" } });
    expect(await pass(stale)).toBe(0);

    // Waiting for the balance.
    await prisma.shopOrder.update({
      where: { id: o!.id },
      data: { state: "HELD", reasonCode: "short_balance" },
    });
    expect(await pass(fresh)).toBe(1);
    await prisma.shopOrder.update({ where: { id: o!.id }, data: { reasonCode: "paused" } });
    expect(await pass(fresh)).toBe(0);
    // Created, with its id, in no batch, for a while (an id the service does not show as paid:
    // the reconciler asks, and adopts only paid ones).
    const paidId = o!.svcOrderId;
    await prisma.shopOrder.update({
      where: { id: o!.id },
      data: { state: "CREATED", reasonCode: null, paymentBatchId: null, svcOrderId: "SO-NOT-PAID" },
    });
    expect(await pass(fresh)).toBe(0);
    expect(await pass(stale)).toBe(1);
    expect((await prisma.shopOrder.findUniqueOrThrow({ where: { id: o!.id } })).state).toBe(
      "CREATED",
    );
    // Its real id is paid at the service: adopted as PAID, no pay run.
    await prisma.shopOrder.update({ where: { id: o!.id }, data: { svcOrderId: paidId } });
    expect(await pass(stale)).toBe(0);
    expect((await prisma.shopOrder.findUniqueOrThrow({ where: { id: o!.id } })).state).toBe("PAID");
    await prisma.shopOrder.update({ where: { id: o!.id }, data: { state: "CREATED" } });
    await prisma.shopOrder.update({ where: { id: o!.id }, data: { paymentBatchId: batch.id } });
    expect(await pass(stale)).toBe(0);
    await prisma.shopOrder.update({ where: { id: o!.id }, data: { state: "CANCELLED" } });
  });
});

describe("held orders", () => {
  it("whose cause may have gone are placed again once they waited heldRecheckMs", async () => {
    const [o] = await take(1);
    await prisma.shopOrder.update({
      where: { id: o!.id },
      data: { state: "HELD", reasonCode: "paused" },
    });
    const placeJobs = () => prisma.job.findMany({ where: { kind: JOB.place, state: "available" } });
    expect((await reconcileAccount(later(9 * MIN).deps, h.accountId)).replaced).toBe(0);
    expect(await placeJobs()).toEqual([]);
    const deps = later(11 * MIN).deps;
    const slot0 = Math.floor(deps.clock.now() / 1000);
    expect((await reconcileAccount(deps, h.accountId)).replaced).toBe(1);
    const jobs = await placeJobs();
    expect(jobs.map((j) => [j.payload, j.concurrencyKey, j.shopDomain])).toEqual([
      [{ orderId: o!.id }, `order:${o!.id}`, h.shopDomain],
    ]);
    const [, id, slot] = /^place:(.+):reconcile:(\d+)$/.exec(jobs[0]!.idempotencyKey ?? "")!;
    expect(id).toBe(o!.id);
    expect(Number(slot)).toBeGreaterThanOrEqual(slot0);
    expect(Number(slot)).toBeLessThanOrEqual(Math.floor(deps.clock.now() / 1000));
    await prisma.job.deleteMany({ where: { kind: JOB.place } });
    await prisma.shopOrder.update({ where: { id: o!.id }, data: { reasonCode: "fraud_risk" } });
    expect((await reconcileAccount(later(11 * MIN).deps, h.accountId)).replaced).toBe(0);
    await prisma.shopOrder.update({ where: { id: o!.id }, data: { state: "CANCELLED" } });
  });
});

describe("reconcileAll", () => {
  it("passes over every connected account and adds up what each found", async () => {
    const [o] = await take(1);
    h.svc.ship(o!.svcOrderId, { trackNumber: "ALL-1" });
    const gone = await prisma.svcAccount.create({
      data: { shopDomain: null, baseUrl: h.svc.url, authMethod: "apiKey" },
    });
    const empty = await prisma.svcAccount.create({
      data: {
        shopDomain: "reconcile-empty.myshopify.com",
        baseUrl: h.svc.url,
        authMethod: "apiKey",
      },
    });
    const held = await prisma.shopOrder.create({
      data: {
        shopDomain: empty.shopDomain!,
        shopifyOrderId: "5",
        orderNumber: "reconcile-empty-5",
        state: "HELD",
        reasonCode: "no_account",
      },
    });
    // The empty account has no credentials: asking the service for it would fail the pass.
    const { deps } = later(11 * MIN);
    const connected = await prisma.svcAccount.count({ where: { shopDomain: { not: null } } });
    expect(await reconcileAll(deps)).toEqual({
      accounts: connected,
      queried: 1,
      trackJobs: 1,
      idsFound: 0,
      payRuns: 0,
      replaced: 1,
      gaps: 1,
    });
    expect(await reconcileAccount(deps, gone.id)).toEqual(zero);
    expect(await reconcileAccount(deps, "no-such-account")).toEqual(zero);
    await prisma.shopOrder.update({ where: { id: held.id }, data: { state: "CANCELLED" } });
    await prisma.svcAccount.update({ where: { id: h.accountId }, data: { webhookGaps: 0 } });
  });
});
