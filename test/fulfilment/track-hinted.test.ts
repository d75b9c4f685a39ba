/**
 * The hinted fetch (trackHinted) beyond the plain case: orders not trackable or without a
 * service id are not asked about, an order's parcels are asked about with it (news in a parcel
 * only is news), a query holds up to queryBatchSize ids (and never more than 100), and another
 * shop's parcel named by an event does not reach this shop's orders.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { JOB } from "../../app/orders/schedule.server";
import { onSvcEvent, trackHinted } from "../../app/fulfilment/track/index.server";
import { type Harness, prisma, startHarness } from "./harness";
import { type PaidOrder, paidOrders, splitPaidOrder, waitingTrackJobs } from "./track-helpers";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "track-hinted.myshopify.com", balance: "5000.00" });
  h.svc.setFaults({ dropWebhook: 1 });
});
afterAll(async () => h?.close());
beforeEach(async () => {
  await prisma.job.deleteMany({ where: { state: "available" } });
});

const detailIds = () =>
  h.svc
    .calls({ op: "getOrderDetailBatch", accountId: h.simAccountId })
    .map((c) => (c.body as { orderIds: string[] }).orderIds);
const hinted = (orderIds: string[], queryBatchSize = 50) =>
  trackHinted(
    { ...h.deps, options: { ...h.deps.options, queryBatchSize } },
    { accountId: h.accountId, orderIds, hints: [], key: "t" },
  );

/** A split order whose child parcel the app knows of. */
async function splitOrder(): Promise<{ o: PaidOrder; childId: string }> {
  const { o, childId } = await splitPaidOrder(h, "Hinted");
  await prisma.shipment.create({ data: { orderId: o.id, svcOrderId: childId, lines: [] } });
  return { o, childId };
}

describe("trackHinted", () => {
  it("asks about trackable orders with a service id only", async () => {
    const [paid, created, noId] = (await paidOrders(h, 3, "Which")) as [
      PaidOrder,
      PaidOrder,
      PaidOrder,
    ];
    await prisma.shopOrder.update({ where: { id: created.id }, data: { state: "CREATED" } });
    await prisma.shopOrder.update({ where: { id: noId.id }, data: { svcOrderId: null } });
    const before = detailIds().length;
    expect(await hinted([paid.id, created.id, noId.id])).toEqual({
      orders: 2,
      queried: 1,
      trackJobs: 0,
    });
    expect(detailIds().slice(before)).toEqual([[paid.svcOrderId]]);
  });

  it("asks about an order's parcels with it; news in a parcel only is news", async () => {
    const { o, childId } = await splitOrder();
    h.svc.ship(childId, { trackNumber: "HINT-CHILD" });
    const before = detailIds().length;
    expect(await hinted([o.id])).toEqual({ orders: 1, queried: 1, trackJobs: 1 });
    expect(detailIds().slice(before)).toEqual([[o.svcOrderId, childId]]);
    const [job] = await waitingTrackJobs(o.id);
    const records = (job!.payload as { records: { orderId: string }[] }).records;
    expect(records.map((r) => r.orderId)).toEqual([o.svcOrderId, childId]);
  });

  it("fills a query up to queryBatchSize ids, and never past 100", async () => {
    const orders = await paidOrders(h, 3, "Batch");
    const before = detailIds().length;
    expect(
      await hinted(
        orders.map((o) => o.id),
        2,
      ),
    ).toMatchObject({ orders: 3, queried: 2 });
    expect(
      detailIds()
        .slice(before)
        .map((ids) => ids.length),
    ).toEqual([2, 1]);

    const { o } = await splitOrder();
    await prisma.shipment.createMany({
      data: Array.from({ length: 120 }, (_, i) => ({
        orderId: o.id,
        svcOrderId: `HMANY-${String(i).padStart(3, "0")}`,
        lines: [],
      })),
    });
    const at = detailIds().length;
    expect(await hinted([o.id], 100)).toMatchObject({ orders: 1, queried: 1 });
    const sent = detailIds().slice(at);
    expect(sent.map((ids) => ids.length)).toEqual([100]);
  });
});

describe("an event naming a parcel", () => {
  it("reaches the order of that parcel only, not the shop's other orders with parcels", async () => {
    const { o, childId } = await splitOrder();
    const { o: other } = await splitOrder();
    const r = await onSvcEvent(h.deps, {
      shopDomain: h.shopDomain,
      type: "LOGISTIC",
      params: { orderId: childId },
      eventKey: "parcel-1",
    });
    expect(r).toEqual({ orders: 1, scheduled: 1 });
    const jobs = await prisma.job.findMany({ where: { kind: JOB.trackHints, state: "available" } });
    expect(jobs.map((j) => (j.payload as { orders: string[] }).orders)).toEqual([[o.id]]);
    expect(other.id).not.toBe(o.id);
  });

  it("ORDER_CONNNECTED for a shop without an account still gives the order its id", async () => {
    const shop = "track-hinted-no-account.myshopify.com";
    const row = await prisma.shopOrder.create({
      data: { shopDomain: shop, shopifyOrderId: "1", orderNumber: "no-account-1", state: "HELD" },
    });
    const r = await onSvcEvent(h.deps, {
      shopDomain: shop,
      type: "ORDER",
      messageType: "ORDER_CONNNECTED",
      params: { orderNumber: "no-account-1", orderId: "SO-NA-1" },
      eventKey: "na-1",
    });
    expect(r).toEqual({ orders: 1, connected: "SO-NA-1" });
    const after = await prisma.shopOrder.findUniqueOrThrow({ where: { id: row.id } });
    expect(after).toMatchObject({ svcOrderId: "SO-NA-1", svcAccountId: null, state: "CREATED" });
    expect(await prisma.job.count({ where: { kind: JOB.pay, state: "available" } })).toBe(0);
  });
});
