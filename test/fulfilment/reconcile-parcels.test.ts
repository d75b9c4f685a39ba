/**
 * The reconciler and orders of several parcels: a split order's job carries every parcel's
 * record (each once), news in one parcel only is news, a parcel without tracking is no webhook
 * gap, and an order with more parcels than one query takes is asked about in one call of at
 * most 100 ids. Then what the service's records may look like (an id or a number in only one
 * of its fields), a lookup racing the event that brings the id, and what is never looked at.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FulfilmentDeps } from "../../app/orders/deps.server";
import { reconcileAccount } from "../../app/fulfilment/reconcile/index.server";
import { JOB } from "../../app/orders/schedule.server";
import type { OrderRecord } from "../../app/svc/order-shapes";
import { type Harness, prisma, startHarness } from "./harness";
import { type PaidOrder, paidOrders, splitPaidOrder, waitingTrackJobs } from "./track-helpers";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "reconcile-parcels.myshopify.com", balance: "5000.00" });
  h.svc.setFaults({ dropWebhook: 1 });
});
afterAll(async () => h?.close());
beforeEach(async () => {
  await prisma.job.deleteMany({ where: { state: "available" } });
  // Each test looks at its own orders only.
  await prisma.shopOrder.updateMany({
    where: { shopDomain: h.shopDomain },
    data: { state: "CANCELLED" },
  });
});

/**
 * The harness's dependencies with the clock `ahead` ms on, and a client whose order records
 * pass through `edit` first (as another version of the service may shape them); `onQuery` runs
 * while the query is under way (what happens meanwhile elsewhere).
 */
function shaped(
  edit: (r: OrderRecord) => OrderRecord,
  o: { ahead?: number; onQuery?: () => Promise<void> } = {},
): FulfilmentDeps {
  return {
    ...h.deps,
    clock: { now: () => Date.now() + (o.ahead ?? 0) },
    svcFor: async (id) => {
      const client = await h.deps.svcFor(id);
      const orders = Object.create(client.orders) as typeof client.orders;
      orders.getOrderDetailBatch = async (ids) => {
        const records = await client.orders.getOrderDetailBatch(ids);
        await o.onQuery?.();
        return records.map(edit);
      };
      return { ...client, orders } as typeof client;
    },
  };
}

/** A paid order of two lines whose service order the service split in two. */
const splitOrder = () => splitPaidOrder(h, "Parcel");

describe("an order of several parcels", () => {
  it("gets one job with every parcel's record, each once", async () => {
    const { o, childId } = await splitOrder();
    await prisma.shipment.create({ data: { orderId: o.id, svcOrderId: childId, lines: [] } });
    // Only the child ships: news in one parcel is the order's news.
    h.svc.ship(childId, { trackNumber: "TWO-B" });
    // Shipped just now (the parent not at all): no gap yet.
    expect(await reconcileAccount(h.deps, h.accountId)).toMatchObject({
      queried: 1,
      trackJobs: 1,
      gaps: 0,
    });
    const [job] = await waitingTrackJobs(o.id);
    const records = (job!.payload as { records: { orderId: string; trackNumber?: string }[] })
      .records;
    expect(records.map((r) => [r.orderId, r.trackNumber || null])).toEqual([
      [o.svcOrderId, null],
      [childId, "TWO-B"],
    ]);
    await prisma.shopOrder.update({ where: { id: o.id }, data: { state: "CANCELLED" } });
  });

  it("with more parcels than one query takes: one call of 100 ids", async () => {
    const { o } = await splitOrder();
    await prisma.shipment.createMany({
      data: Array.from({ length: 120 }, (_, i) => ({
        orderId: o.id,
        svcOrderId: `MANY-${String(i).padStart(3, "0")}`,
        lines: [],
      })),
    });
    h.svc.ship(o.svcOrderId, { trackNumber: "MANY-T" });
    const before = h.svc.calls({ op: "getOrderDetailBatch" }).length;
    expect(await reconcileAccount(h.deps, h.accountId)).toMatchObject({ queried: 1, trackJobs: 1 });
    const calls = h.svc.calls({ op: "getOrderDetailBatch" }).slice(before);
    expect(calls.map((c) => c.httpStatus)).toEqual([200]);
    const ids = (calls[0]!.body as { orderIds: string[] }).orderIds;
    expect(ids).toHaveLength(100);
    expect(ids[0]).toBe(o.svcOrderId);
    await prisma.shopOrder.update({ where: { id: o.id }, data: { state: "CANCELLED" } });
  });
});

const park = (ids: string[]) =>
  prisma.shopOrder.updateMany({ where: { id: { in: ids } }, data: { state: "CANCELLED" } });
const detailIds = () =>
  h.svc
    .calls({ op: "getOrderDetailBatch", accountId: h.simAccountId })
    .map((c) => (c.body as { orderIds: string[] }).orderIds);

describe("records shaped otherwise, and what is never looked at", () => {
  it("tracking under orderId only or svcOrderId only is found", async () => {
    const orders = await paidOrders(h, 2, "Shaped");
    const [a, b] = orders as [PaidOrder, PaidOrder];
    h.svc.ship(a.svcOrderId, { trackNumber: "ONLY-ORDERID" });
    h.svc.ship(b.svcOrderId, { trackNumber: "ONLY-SVCORDERID" });
    const deps = shaped((r) =>
      r.orderId === a.svcOrderId ? { ...r, svcOrderId: undefined } : { ...r, orderId: undefined },
    );
    expect(await reconcileAccount(deps, h.accountId)).toMatchObject({ queried: 1, trackJobs: 2 });
    for (const o of orders) expect(await waitingTrackJobs(o.id)).toHaveLength(1);
    await park(orders.map((o) => o.id));
  });

  it("a shipped order (one parcel written) is still watched; one paid without an id is not", async () => {
    const [o] = (await paidOrders(h, 1, "Watched")) as [PaidOrder];
    await prisma.shopOrder.update({ where: { id: o.id }, data: { state: "SHIPPED" } });
    // The own parcel is counted once, not twice, towards the query's ids.
    await prisma.shipment.create({ data: { orderId: o.id, svcOrderId: o.svcOrderId, lines: [] } });
    const [o2] = (await paidOrders(h, 1, "Watched 2")) as [PaidOrder];
    const noId = await prisma.shopOrder.create({
      data: {
        shopDomain: h.shopDomain,
        shopifyOrderId: "777001",
        orderNumber: "reconcile-parcels-no-id",
        state: "PAID",
        svcAccountId: h.accountId,
      },
    });
    h.svc.ship(o.svcOrderId, { trackNumber: "SHIPPED-STILL" });
    const before = detailIds().length;
    const deps = { ...h.deps, options: { ...h.deps.options, queryBatchSize: 2 } };
    expect(await reconcileAccount(deps, h.accountId)).toMatchObject({ queried: 1, trackJobs: 1 });
    expect(
      detailIds()
        .slice(before)
        .map((ids) => [...ids].sort()),
    ).toEqual([[o.svcOrderId, o2!.svcOrderId].sort()]);
    expect(await waitingTrackJobs(o.id)).toHaveLength(1);
    await park([o.id, o2!.id, noId.id]);
  });
});

describe("looking up created orders by number", () => {
  /** Created orders without their id yet (the service has them), oldest first. */
  async function unidentified(count: number): Promise<PaidOrder[]> {
    const orders = await paidOrders(h, count, "Lookup");
    for (const [i, o] of orders.entries()) {
      await prisma.shopOrder.update({
        where: { id: o.id },
        data: {
          state: "CREATED",
          svcOrderId: null,
          amount: null,
          updatedAt: new Date(Date.now() - 3600_000 + i * 1000),
        },
      });
    }
    return orders;
  }
  const idOf = async (o: PaidOrder) =>
    (await prisma.shopOrder.findUniqueOrThrow({ where: { id: o.id } })).svcOrderId;

  it("finds the number in any of its fields and the id in either, oldest orders first", async () => {
    const orders = await unidentified(4);
    const [byNumber, byLine, bySvcId, noId] = orders as [
      PaidOrder,
      PaidOrder,
      PaidOrder,
      PaidOrder,
    ];
    const deps = {
      ...shaped((r) => {
        if (r.orderId === byNumber.svcOrderId)
          return { ...r, orderNum: undefined, orderNumber: byNumber.orderNumber };
        if (r.orderId === byLine.svcOrderId)
          return {
            ...r,
            orderNum: undefined,
            orderNumber: undefined,
            productList: [{ orderNumber: byLine.orderNumber }],
          } as OrderRecord;
        if (r.orderId === bySvcId.svcOrderId) return { ...r, orderId: undefined };
        return { ...r, orderId: undefined, svcOrderId: undefined };
      }),
      options: { ...h.deps.options, queryBatchSize: 2 },
    };
    const before = detailIds().length;
    expect(await reconcileAccount(deps, h.accountId)).toMatchObject({ queried: 2, idsFound: 3 });
    expect(detailIds().slice(before)).toEqual([
      [byNumber.orderNumber, byLine.orderNumber],
      [bySvcId.orderNumber, noId.orderNumber],
    ]);
    expect(await idOf(byNumber)).toBe(byNumber.svcOrderId);
    expect(await idOf(byLine)).toBe(byLine.svcOrderId);
    expect(await idOf(bySvcId)).toBe(bySvcId.svcOrderId);
    expect(await idOf(noId)).toBeNull();
    await park(orders.map((o) => o.id));
  });

  it("an id that arrived meanwhile (the event) is kept and not counted again", async () => {
    const [o] = (await unidentified(1)) as [PaidOrder];
    const deps = shaped((r) => r, {
      onQuery: async () => {
        await prisma.shopOrder.update({ where: { id: o.id }, data: { svcOrderId: "FROM-EVENT" } });
      },
    });
    expect(await reconcileAccount(deps, h.accountId)).toMatchObject({ idsFound: 0 });
    expect(await idOf(o)).toBe("FROM-EVENT");
    await park([o.id]);
  });

  it("a created order without its id is not a pay run's business", async () => {
    const [o] = (await unidentified(1)) as [PaidOrder];
    await prisma.shopOrder.update({ where: { id: o.id }, data: { orderNumber: "unknown-there" } });
    await prisma.shopOrder.update({
      where: { id: o.id },
      data: { updatedAt: new Date(Date.now() - 3600_000) },
    });
    expect(await reconcileAccount(h.deps, h.accountId)).toMatchObject({ idsFound: 0, payRuns: 0 });
    expect(await prisma.job.count({ where: { kind: JOB.pay, state: "available" } })).toBe(0);
    await park([o.id]);
  });
});
