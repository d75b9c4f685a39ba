/**
 * What goes wrong: a createOrderV3 that times out (the order exists; no duplicate is made), a
 * lost LOGISTIC webhook (the reconciler finds the tracking), and a split shipment (each parcel
 * fulfils only its own lines).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reconcileAccount } from "../../app/fulfilment/reconcile/index.server";
import { JOB } from "../../app/orders/schedule.server";
import { enqueue } from "../../app/jobs/enqueue.server";
import type { SimOrder } from "../sim/service/index";
import { type Harness, opCalls, prisma, startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "resilience.myshopify.com", clientTimeoutMs: 700 });
});
afterAll(async () => h?.close());

let reconciles = 0;
async function reconcile() {
  await enqueue(prisma, { kind: JOB.reconcile, idempotencyKey: `reconcile-test-${reconciles++}` });
  await h.settle();
}

describe("resilience", () => {
  it("a timed-out createOrderV3 is found by its number: one order at the service, then paid", async () => {
    const p = await h.connectedProduct("Slow Kettle", "22.00");
    h.svc.setFaults({ rateTimeout: 1, ops: ["createOrderV3"], timeoutMs: 1500 });
    const placed = await h.order([{ product: p, quantity: 1 }]);
    await h.settle();
    h.svc.clearFaults();
    await h.settle();
    const row = await h.row(placed.legacyId);
    const atService = h.svc.orders({}).filter((o) => o.orderNumber === row.orderNumber);
    expect(atService).toHaveLength(1);
    expect(row.svcOrderId).toBe(atService[0]!.orderId);
    expect(row.state).toBe("PAID");
    expect(row.timeline.find((t) => t.step === "create" && t.outcome === "ok")?.message).toContain(
      "found by its number",
    );
    expect(opCalls(h, "createOrderV3")).toBeGreaterThanOrEqual(1);
  });

  it("a lost LOGISTIC webhook: the reconciler finds the tracking and fulfils", async () => {
    const p = await h.connectedProduct("Quiet Fan", "35.00");
    const placed = await h.order([{ product: p, quantity: 1 }]);
    await h.settle();
    const row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");

    h.svc.setFaults({ dropWebhook: 1 });
    h.svc.ship(row.svcOrderId!, { trackNumber: "LOST-123" });
    await h.settle();
    h.svc.clearFaults();
    expect(h.shop.fulfillments(h.shopDomain, placed.shopOrderId)).toHaveLength(0);
    expect((await h.row(placed.legacyId)).state).toBe("PAID");

    const queries = opCalls(h, "getOrderDetailBatch");
    await reconcile();
    const f = h.shop.fulfillments(h.shopDomain, placed.shopOrderId);
    expect(f).toHaveLength(1);
    expect(f[0]!.tracking[0]!.number).toBe("LOST-123");
    expect((await h.row(placed.legacyId)).state).toBe("FULFILLED");
    // One batched query found it (the track job reused the fetched record).
    expect(opCalls(h, "getOrderDetailBatch") - queries).toBe(1);

    // A second pass changes nothing.
    await reconcile();
    expect(h.shop.fulfillments(h.shopDomain, placed.shopOrderId)).toHaveLength(1);
  });

  it("reconciler passes that meet a waiting track job refresh it instead of queueing another", async () => {
    const p = await h.connectedProduct("Backlog Lamp", "18.00");
    const placed = await h.order([{ product: p, quantity: 1 }]);
    await h.settle();
    const row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");

    h.svc.setFaults({ dropWebhook: 1 });
    h.svc.ship(row.svcOrderId!, { trackNumber: "BACKLOG-1" });
    await h.svc.deliverPendingWebhooks();

    // Three passes before any worker gets to the order (a busy queue): one job waits for it.
    const waiting = () =>
      prisma.job.findMany({
        where: { kind: JOB.track, state: "available", concurrencyKey: `order:${row.id}` },
      });
    // (each pass a second later than the last: a pass names its jobs by the second)
    const pass = (n: number) =>
      reconcileAccount(
        { ...h.deps, clock: { ...h.deps.clock, now: () => h.deps.clock.now() + n * 1000 } },
        h.accountId,
      );
    await pass(1);
    h.svc.ship(row.svcOrderId!, { trackNumber: "BACKLOG-2" });
    await h.svc.deliverPendingWebhooks();
    h.svc.clearFaults();
    await pass(2);
    await pass(3);
    const jobs = await waiting();
    expect(jobs).toHaveLength(1);
    // It carries the latest records.
    expect(JSON.stringify(jobs[0]!.payload)).toContain("BACKLOG-2");

    await h.settle();
    const f = h.shop.fulfillments(h.shopDomain, placed.shopOrderId);
    expect(f).toHaveLength(1);
    expect(f[0]!.tracking[0]!.number).toBe("BACKLOG-2");
  });

  it("a split shipment fulfils only the lines of each parcel", async () => {
    const a = await h.connectedProduct("Split Chair", "50.00");
    const b = await h.connectedProduct("Split Table", "70.00");
    const placed = await h.order([
      { product: a, quantity: 1 },
      { product: b, quantity: 2 },
    ]);
    await h.settle();
    const row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");
    const [lineA, lineB] = placed.lineIds;

    // The service splits its order: the table goes into a child order of its own.
    const parent = h.svc.order(row.svcOrderId!)!;
    const childId = `${parent.internalId}S`;
    const child: SimOrder = {
      ...structuredClone(parent),
      internalId: childId,
      orderId: childId,
      svcOrderCode: `SC${childId.slice(2)}`,
      lines: parent.lines.filter((l) => l.storeLineItemId === lineB),
      trackNumber: undefined,
    };
    parent.lines = parent.lines.filter((l) => l.storeLineItemId === lineA);
    h.svc.state.orders.set(childId, child);

    h.svc.ship(childId, { trackNumber: "SPLIT-B" });
    await h.settle();
    let f = h.shop.fulfillments(h.shopDomain, placed.shopOrderId);
    expect(f).toHaveLength(1);
    expect(f[0]!.tracking[0]!.number).toBe("SPLIT-B");
    expect(f[0]!.lineItems).toEqual([
      { lineItemId: `gid://shopify/LineItem/${lineB}`, quantity: 2 },
    ]);
    let after = await h.row(placed.legacyId);
    expect(after.state).toBe("SHIPPED");

    h.svc.ship(parent.orderId!, { trackNumber: "SPLIT-A" });
    await h.settle();
    f = h.shop.fulfillments(h.shopDomain, placed.shopOrderId);
    expect(f).toHaveLength(2);
    const forA = f.find((x) => x.tracking[0]!.number === "SPLIT-A")!;
    expect(forA.lineItems).toEqual([
      { lineItemId: `gid://shopify/LineItem/${lineA}`, quantity: 1 },
    ]);
    after = await h.row(placed.legacyId);
    expect(after.state).toBe("FULFILLED");
    expect(after.shipments.map((s) => s.svcOrderId).sort()).toEqual(
      [parent.orderId, childId].sort(),
    );
  });
});
