/**
 * The reconciler's watch over created orders and held ones that wait on the service (issue 14):
 * created orders in no batch that waited a minute are asked about in batches, and one the
 * service shows paid (paid in its console) becomes PAID, on the timeline, with a track job
 * carrying its record; orders held for a short balance or an unreachable service cost one
 * balance read, which is stored, and the unreachable ones are placed again.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FulfilmentDeps } from "../../app/orders/deps.server";
import {
  CREATED_WATCH_AFTER_MS,
  reconcileAccount,
} from "../../app/fulfilment/reconcile/index.server";
import { JOB } from "../../app/orders/schedule.server";
import { type Harness, opCalls, prisma, startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    shopDomain: "reconcile-created.myshopify.com",
    balance: "500.00",
    settings: { autoPay: false },
  });
});
afterAll(async () => h?.close());
beforeEach(async () => {
  await prisma.job.deleteMany({ where: { state: "available" } });
  await prisma.shopOrder.updateMany({
    where: { shopDomain: h.shopDomain },
    data: { state: "CANCELLED" },
  });
});

const deps = (o: Partial<FulfilmentDeps["options"]> = {}): FulfilmentDeps => ({
  ...h.deps,
  clock: { now: () => Date.now() },
  options: { ...h.deps.options, ...o },
});

async function createdOrders(n: number) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const p = await h.connectedProduct(`Created ${Date.now()}-${i}`, "10.00");
    const placed = await h.order([{ product: p, quantity: 1 }]);
    await h.settle();
    const row = await h.row(placed.legacyId);
    expect(row.state).toBe("CREATED");
    out.push(row);
  }
  return out;
}

async function payInConsole(svcOrderId: string) {
  await h.client.orders.addCart([svcOrderId]);
  const c = await h.client.orders.addCartConfirm([svcOrderId]);
  await h.client.orders.saveGenerateParentOrder(c.shipmentsId!);
  await h.client.payment.payBalanceV2(c.shipmentsId!);
}

const age = (ids: string[], ms: number) =>
  prisma.shopOrder.updateMany({
    where: { id: { in: ids } },
    data: { updatedAt: new Date(Date.now() - ms) },
  });
const asked = (from: number) =>
  h.svc
    .calls({ op: "getOrderDetailBatch", accountId: h.simAccountId })
    .slice(from)
    .map((c) => (c.body as { orderIds: string[] }).orderIds);

describe("created orders", () => {
  it("that waited are asked about in batches; one paid at the service becomes PAID and is tracked", async () => {
    const [a, b, c, fresh] = await createdOrders(4);
    await payInConsole(b!.svcOrderId!);
    await payInConsole(fresh!.svcOrderId!);
    await age([a!.id, b!.id, c!.id], CREATED_WATCH_AFTER_MS + 5000);
    // Oldest first.
    await age([c!.id], CREATED_WATCH_AFTER_MS + 9000);
    const before = h.svc.calls({ op: "getOrderDetailBatch", accountId: h.simAccountId }).length;
    const r = await reconcileAccount(deps({ queryBatchSize: 2 }), h.accountId);
    expect(asked(before)).toEqual([[c!.svcOrderId, a!.svcOrderId], [b!.svcOrderId]]);
    expect(r).toMatchObject({ queried: 2, trackJobs: 1 });
    const [ra, rb, rc, rf] = await Promise.all(
      [a, b, c, fresh].map((o) => h.row(Number(o!.shopifyOrderId))),
    );
    expect([ra!.state, rb!.state, rc!.state, rf!.state]).toEqual([
      "CREATED",
      "PAID",
      "CREATED",
      "CREATED",
    ]);
    expect(rb!.paidAt).not.toBeNull();
    const entry = rb!.timeline.at(-1)!;
    expect([entry.step, entry.outcome]).toEqual(["pay", "ok"]);
    expect(entry.message).toBe(
      "Paid at the service (outside the app, e.g. in its console): nothing charged by the app; tracked from now on.",
    );
    const jobs = await prisma.job.findMany({ where: { kind: JOB.track, state: "available" } });
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.idempotencyKey).toContain(`track:${b!.id}:reconcile:`);
    const payload = jobs[0]!.payload as { orderId: string; records: { orderId: string }[] };
    expect(payload.orderId).toBe(b!.id);
    expect(payload.records.map((x) => x.orderId)).toEqual([b!.svcOrderId]);
  });

  it("in a payment batch, or not yet waited a minute, are not asked about", async () => {
    const [a, b] = await createdOrders(2);
    const batch = await prisma.paymentBatch.create({
      data: { svcAccountId: h.accountId, isSandbox: false, state: "open" },
    });
    await prisma.shopOrder.update({ where: { id: a!.id }, data: { paymentBatchId: batch.id } });
    await age([a!.id], CREATED_WATCH_AFTER_MS + 5000);
    await age([b!.id], CREATED_WATCH_AFTER_MS - 5000);
    const before = h.svc.calls({ op: "getOrderDetailBatch", accountId: h.simAccountId }).length;
    const r = await reconcileAccount(deps(), h.accountId);
    expect(asked(before).flat()).toEqual([]);
    expect(r.queried).toBe(0);
  });
});

describe("held on the service", () => {
  const held = (reasonCode: string, state = "HELD") =>
    prisma.shopOrder.create({
      data: {
        shopDomain: h.shopDomain,
        shopifyOrderId: String(Math.floor(Math.random() * 1e9)),
        orderNumber: `rc-${reasonCode}-${Date.now()}`,
        state,
        reasonCode,
        svcAccountId: h.accountId,
      },
    });
  const balanceReads = () => opCalls(h, "getBalance");

  it("an unreachable-service hold costs one balance read, stored, and is placed again", async () => {
    const down = await held("service_unavailable");
    const other = await held("paused");
    const failed = await held("service_unavailable", "FAILED");
    await prisma.svcAccount.update({ where: { id: h.accountId }, data: { knownBalanceAt: null } });
    const reads = balanceReads();
    const r = await reconcileAccount(deps(), h.accountId);
    expect(balanceReads()).toBe(reads + 1);
    const account = await prisma.svcAccount.findUniqueOrThrow({ where: { id: h.accountId } });
    expect(account.knownBalanceAt).not.toBeNull();
    expect(account.knownBalance).toBe(h.svc.getBalance(h.simAccountId));
    const places = await prisma.job.findMany({ where: { kind: JOB.place, state: "available" } });
    expect(places.map((j) => j.payload)).toEqual([{ orderId: down.id }]);
    expect(places[0]!.idempotencyKey).toContain("recheck:reconcile:");
    expect(r.replaced).toBeGreaterThanOrEqual(1);
    void other;
    void failed;
  });

  it("a short-balance hold costs one balance read and places nothing; other holds cost none", async () => {
    await held("short_balance");
    let reads = balanceReads();
    await reconcileAccount(deps(), h.accountId);
    expect(balanceReads()).toBe(reads + 1);
    expect(await prisma.job.count({ where: { kind: JOB.place, state: "available" } })).toBe(0);
    await prisma.shopOrder.updateMany({
      where: { shopDomain: h.shopDomain },
      data: { state: "CANCELLED" },
    });
    await held("paused");
    await held("service_unavailable", "FAILED");
    reads = balanceReads();
    await reconcileAccount(deps(), h.accountId);
    expect(balanceReads()).toBe(reads);
  });
});
