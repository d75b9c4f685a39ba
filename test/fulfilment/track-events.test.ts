/**
 * Service events → track work: which orders an event reaches (its own shop's only, even when
 * another account's orders carry the same service ids), which ORDER events are worth a fetch,
 * a PAYING order's pay run, ORDER_CONNNECTED giving a store-flow order its id, and the hinted
 * fetch (trackHinted) batching orders and queueing a track job only for news. A duplicated event
 * or one racing the reconciler still writes the tracking once.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { reconcileAccount } from "../../app/fulfilment/reconcile/index.server";
import { JOB } from "../../app/orders/schedule.server";
import { onSvcEvent, trackHinted } from "../../app/fulfilment/track/index.server";
import { svcEventIdle } from "../../app/svc/event-readers";
import { updateSettings } from "../../app/settings.server";
import { type Harness, opCalls, prisma, startHarness } from "./harness";
import { type PaidOrder, paidOrders, waitingTrackJobs } from "./track-helpers";

const OTHER = "track-events-other.myshopify.com";
let h: Harness;
let orders: PaidOrder[];
let otherAccountId: string;
let otherOrderId: string;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "track-events.myshopify.com", balance: "5000.00" });
  h.svc.setFaults({ dropWebhook: 1 });
  // Which orders an event reaches is a matter of the database alone: paid rows, no service.
  orders = [];
  for (const i of [0, 1, 2]) {
    const row = await prisma.shopOrder.create({
      data: {
        shopDomain: h.shopDomain,
        shopifyOrderId: String(900 + i),
        orderNumber: `track-events-${i}`,
        svcOrderId: `SO-EV-${i}`,
        svcAccountId: h.accountId,
        state: "PAID",
      },
    });
    orders.push({ ...row, svcOrderId: row.svcOrderId!, shopOrderId: "", legacyId: 0, lineIds: [] });
  }
  // Another shop, at another service account, whose order has the same service order id.
  const other = await prisma.svcAccount.create({
    data: { shopDomain: OTHER, baseUrl: "http://127.0.0.1:9", authMethod: "apiKey" },
  });
  otherAccountId = other.id;
  const o = await prisma.shopOrder.create({
    data: {
      shopDomain: OTHER,
      shopifyOrderId: "1",
      orderNumber: "other-shop-1",
      svcOrderId: orders[0]!.svcOrderId,
      svcAccountId: other.id,
      state: "PAID",
    },
  });
  otherOrderId = o.id;
});
afterAll(async () => h?.close());
beforeEach(async () => {
  await prisma.job.deleteMany({
    where: { kind: { in: [JOB.trackHints, JOB.track, JOB.pay] }, state: "available" },
  });
});

const hintJobs = () =>
  prisma.job.findMany({
    where: { kind: JOB.trackHints, state: "available" },
    orderBy: { id: "asc" },
  });
let n = 0;
const event = (shopDomain: string, type: string, params: unknown, messageType = "UPDATE") =>
  onSvcEvent(h.deps, { shopDomain, type, messageType, params, eventKey: `evt-${n++}` });

describe("which orders an event reaches", () => {
  it("its own shop's order, once per account, with the other ids it names as hints", async () => {
    const o = orders[0]!;
    const params = { orderId: o.svcOrderId, shipmentOrderId: "CHILD-1", trackNumber: "T" };
    expect(await event(h.shopDomain, "LOGISTIC", params)).toEqual({ orders: 1, scheduled: 1 });
    let jobs = await hintJobs();
    expect(jobs.map((j) => j.payload)).toEqual([
      { accountId: h.accountId, orders: [o.id], hints: [`${o.id}:CHILD-1`] },
    ]);
    expect(jobs[0]!.shopDomain).toBe(h.shopDomain);

    // The other shop's event with the same id reaches only the other shop's order.
    expect(await event(OTHER, "LOGISTIC", { orderId: o.svcOrderId })).toEqual({
      orders: 1,
      scheduled: 1,
    });
    jobs = await hintJobs();
    expect(jobs.map((j) => j.payload)).toEqual([
      { accountId: h.accountId, orders: [o.id], hints: [`${o.id}:CHILD-1`] },
      { accountId: otherAccountId, orders: [otherOrderId], hints: [] },
    ]);
  });

  it("an event naming many parcels gives at most 20 hints per order, and one fetch takes 20", async () => {
    const o = orders[0]!;
    const many = Array.from({ length: 25 }, (_, i) => `MANY-${String(i).padStart(2, "0")}`);
    expect(
      await event(h.shopDomain, "LOGISTIC", { orderId: o.svcOrderId, shipmentOrderIds: many }),
    ).toEqual({
      orders: 1,
      scheduled: 1,
    });
    const [job] = await hintJobs();
    const p = job!.payload as { hints: string[] };
    expect(p.hints).toHaveLength(20);
    expect(new Set(p.hints)).toEqual(new Set(many.slice(0, 20).map((id) => `${o.id}:${id}`)));

    // trackHinted takes 20 of an order's hints into its fetch.
    const before = h.svc.calls({ op: "getOrderDetailBatch" }).length;
    await trackHinted(h.deps, {
      accountId: h.accountId,
      orderIds: [o.id],
      hints: many.map((id) => `${o.id}:${id}`),
      key: "many",
    });
    const [call] = h.svc.calls({ op: "getOrderDetailBatch" }).slice(before);
    expect(new Set((call!.body as { orderIds: string[] }).orderIds)).toEqual(
      new Set([o.svcOrderId, ...many.slice(0, 20)]),
    );
  });

  it("finds orders by order number and by a parcel's service id; unknown ids reach nothing", async () => {
    const [a, b] = orders;
    await prisma.shipment.create({
      data: { orderId: b!.id, svcOrderId: "PARCEL-OF-B", lines: [] },
    });
    expect(
      await event(h.shopDomain, "LOGISTIC", {
        orderNumber: a!.orderNumber,
        orderId: "PARCEL-OF-B",
      }),
    ).toEqual({ orders: 2, scheduled: 2 });
    const [job] = await hintJobs();
    expect(new Set((job!.payload as { orders: string[] }).orders)).toEqual(new Set([a!.id, b!.id]));
    await prisma.shipment.deleteMany({ where: { svcOrderId: "PARCEL-OF-B" } });

    await prisma.job.deleteMany({ where: { kind: JOB.trackHints } });
    expect(await event(h.shopDomain, "LOGISTIC", { orderId: "NOBODY" })).toEqual({
      orders: 0,
      scheduled: 0,
    });
    expect(await event(h.shopDomain, "LOGISTIC", { trackNumber: "T" })).toEqual({
      orders: 0,
      note: "no order id in the event",
    });
    // Another shop's parcel with that id is not this shop's.
    await prisma.shipment.create({
      data: { orderId: otherOrderId, svcOrderId: "PARCEL-OF-OTHER", lines: [] },
    });
    expect(await event(h.shopDomain, "LOGISTIC", { orderId: "PARCEL-OF-OTHER" })).toEqual({
      orders: 0,
      scheduled: 0,
    });
    expect(await hintJobs()).toEqual([]);
  });

  it("ORDER events: only those that mention a parcel are worth a fetch", async () => {
    const o = orders[1]!;
    const cases: [Record<string, unknown>, boolean][] = [
      [{ orderStatus: "UNSHIPPED" }, false],
      [{ orderStatus: "PAID", trackNumber: "  " }, false],
      [{ orderStatus: "shipped" }, true],
      [{ orderStatus: "DELIVERED" }, true],
      [{ orderStatus: "UNSHIPPED", trackNumber: "T1" }, true],
      [{ orderStatus: "UNSHIPPED", trackingNumber: "T1" }, true],
      [{ orderStatus: 5 }, true],
      [{}, true],
    ];
    for (const [extra, fetches] of cases) {
      await prisma.job.deleteMany({ where: { kind: JOB.trackHints } });
      const r = await event(h.shopDomain, "ORDER", { orderId: o.svcOrderId, ...extra });
      expect([extra, r]).toEqual([
        extra,
        fetches ? { orders: 1, scheduled: 1 } : { orders: 0, note: "no tracking in the event" },
      ]);
      expect(await hintJobs()).toHaveLength(fetches ? 1 : 0);
      // The intake, which makes no job for an idle event, agrees with the handler.
      const params = { orderId: o.svcOrderId, ...extra };
      expect(svcEventIdle({ type: "ORDER", messageType: "UPDATE", params })).toBe(
        fetches ? null : "no tracking in the event",
      );
    }
    // A LOGISTIC event always is.
    expect(
      await event(h.shopDomain, "LOGISTIC", { orderId: o.svcOrderId, orderStatus: "UNSHIPPED" }),
    ).toEqual({ orders: 1, scheduled: 1 });
    const quiet = { orderId: o.svcOrderId, orderStatus: "UNSHIPPED" };
    expect(svcEventIdle({ type: "LOGISTIC", messageType: "UPDATE", params: quiet })).toBeNull();
    expect(svcEventIdle({ type: "ORDERSPLIT", params: quiet })).toBeNull();
    // ORDER_CONNNECTED gives a store-flow order its id: never idle.
    expect(
      svcEventIdle({ type: "ORDER", messageType: "ORDER_CONNNECTED", params: quiet }),
    ).toBeNull();
    expect(svcEventIdle({ type: "ORDER", messageType: "UPDATE", params: quiet })).toBe(
      "no tracking in the event",
    );
    for (const type of ["ORDER", "LOGISTIC", "ORDERSPLIT"]) {
      expect(svcEventIdle({ type, params: { trackNumber: "T" } })).toBe("no order id in the event");
    }
  });

  it("an order being paid gets a pay run; one not yet paid gets nothing", async () => {
    const o = orders[2]!;
    for (const [state, account, pays] of [
      ["PAYING", true, true],
      ["PAYING", false, false],
      ["CREATED", true, false],
      ["PAID", false, false],
    ] as const) {
      await prisma.job.deleteMany({ where: { kind: { in: [JOB.pay, JOB.trackHints] } } });
      await prisma.shopOrder.update({
        where: { id: o.id },
        data: { state, svcAccountId: account ? h.accountId : null },
      });
      const key = n;
      expect(await event(h.shopDomain, "ORDER", { orderId: o.svcOrderId })).toEqual({
        orders: 1,
        scheduled: 0,
      });
      const pay = await prisma.job.findMany({ where: { kind: JOB.pay, state: "available" } });
      expect([state, account, pay.length]).toEqual([state, account, pays ? 1 : 0]);
      if (pays) {
        expect(pay[0]!.payload).toEqual({ accountId: h.accountId });
        expect(pay[0]!.idempotencyKey).toContain(`evt:evt-${key}`);
        expect(pay[0]!.shopDomain).toBe(h.shopDomain);
        expect(pay[0]!.runAt.getTime()).toBeLessThanOrEqual(Date.now());
      }
      expect(await hintJobs()).toEqual([]);
    }
    await prisma.shopOrder.update({
      where: { id: o.id },
      data: { state: "PAID", svcAccountId: h.accountId },
    });
  });
});

describe("ORDER_CONNNECTED", () => {
  const storeFlowOrder = (orderNumber: string, state: string, svcAccountId: string | null) =>
    prisma.shopOrder.create({
      data: {
        shopDomain: h.shopDomain,
        shopifyOrderId: orderNumber,
        orderNumber,
        state,
        svcAccountId,
        reasonCode: "waiting_connection",
        reasonMessage: "waiting",
      },
    });

  it("gives a waiting store-flow order its service id and starts its payment", async () => {
    await updateSettings(prisma, h.shopDomain, { autoPay: true, payBatchWindowSeconds: 0 });
    for (const [state, account] of [
      ["CREATED", h.accountId],
      ["HELD", null],
      ["FAILED", h.accountId],
    ] as const) {
      await prisma.job.deleteMany({ where: { kind: JOB.pay } });
      const number = `conn-${state}`;
      const row = await storeFlowOrder(number, state, account);
      const r = await event(
        h.shopDomain,
        "ORDER",
        { orderNumber: number, orderId: `SO-${state}` },
        "ORDER_CONNNECTED",
      );
      expect(r).toEqual({ orders: 1, connected: `SO-${state}` });
      const after = await prisma.shopOrder.findUniqueOrThrow({
        where: { id: row.id },
        include: { timeline: true },
      });
      expect(after).toMatchObject({
        svcOrderId: `SO-${state}`,
        state: "CREATED",
        reasonCode: null,
        reasonMessage: null,
        svcAccountId: h.accountId,
        amount: null,
      });
      expect(after.timeline.map((t) => [t.step, t.outcome, t.message])).toEqual([
        [
          "connected",
          "ok",
          `The service order id SO-${state} is known (from the service's ORDER_CONNNECTED event).`,
        ],
      ]);
      const pay = await prisma.job.findMany({ where: { kind: JOB.pay, state: "available" } });
      expect(pay.map((j) => j.payload)).toEqual([{ accountId: h.accountId }]);
      expect(pay[0]!.shopDomain).toBe(h.shopDomain);
    }
  });

  it("without autoPay no payment starts; an order with an id, paid, or unnamed is not adopted", async () => {
    await updateSettings(prisma, h.shopDomain, { autoPay: false });
    await prisma.job.deleteMany({ where: { kind: JOB.pay } });
    const row = await storeFlowOrder("conn-manual", "CREATED", h.accountId);
    expect(
      await event(
        h.shopDomain,
        "ORDER",
        { orderNumber: "conn-manual", orderId: "SO-M" },
        "ORDER_CONNNECTED",
      ),
    ).toEqual({ orders: 1, connected: "SO-M" });
    expect(await prisma.job.count({ where: { kind: JOB.pay } })).toBe(0);
    await updateSettings(prisma, h.shopDomain, { autoPay: true });

    // Already has an id: the event is only a hint like any other.
    const again = await event(
      h.shopDomain,
      "ORDER",
      { orderNumber: "conn-manual", orderId: "SO-OTHER", orderStatus: "UNSHIPPED" },
      "ORDER_CONNNECTED",
    );
    expect(again).toEqual({ orders: 0, note: "no tracking in the event" });
    expect((await prisma.shopOrder.findUniqueOrThrow({ where: { id: row.id } })).svcOrderId).toBe(
      "SO-M",
    );
    const paid = await storeFlowOrder("conn-paid", "PAID", h.accountId);
    const onlyNumber = await storeFlowOrder("conn-alone", "CREATED", h.accountId);
    for (const params of [
      { orderNumber: "conn-paid", orderId: "SO-P", orderStatus: "UNSHIPPED" },
      { orderNumber: "conn-alone", orderStatus: "UNSHIPPED" },
    ]) {
      expect(await event(h.shopDomain, "ORDER", params, "ORDER_CONNNECTED")).toEqual({
        orders: 0,
        note: "no tracking in the event",
      });
    }
    for (const id of [paid.id, onlyNumber.id]) {
      expect((await prisma.shopOrder.findUniqueOrThrow({ where: { id } })).svcOrderId).toBeNull();
    }
    // Another shop's event does not adopt this shop's order.
    const mine = await storeFlowOrder("conn-mine", "CREATED", h.accountId);
    await event(OTHER, "ORDER", { orderNumber: "conn-mine", orderId: "SO-X" }, "ORDER_CONNNECTED");
    expect(
      (await prisma.shopOrder.findUniqueOrThrow({ where: { id: mine.id } })).svcOrderId,
    ).toBeNull();
    // Nor does another message type.
    await event(h.shopDomain, "ORDER", { orderNumber: "conn-mine", orderId: "SO-Y" }, "UPDATE");
    expect(
      (await prisma.shopOrder.findUniqueOrThrow({ where: { id: mine.id } })).svcOrderId,
    ).toBeNull();
    await event(
      h.shopDomain,
      "LOGISTIC",
      { orderNumber: "conn-mine", orderId: "SO-Z" },
      "ORDER_CONNNECTED",
    );
    expect(
      (await prisma.shopOrder.findUniqueOrThrow({ where: { id: mine.id } })).svcOrderId,
    ).toBeNull();
  });
});

describe("trackHinted", () => {
  it("fetches the hinted orders of one account in batches, and queues track jobs only for news", async () => {
    const [a, b, c] = (await paidOrders(h, 3, "Hinted")) as [PaidOrder, PaidOrder, PaidOrder];
    h.svc.ship(a.svcOrderId, { trackNumber: "HINT-A" });
    h.svc.ship(b.svcOrderId, { trackNumber: "HINT-B" });
    const calls = () => h.svc.calls({ op: "getOrderDetailBatch", accountId: h.simAccountId });
    const before = calls().length;
    const input = {
      accountId: h.accountId,
      orderIds: [a.id, b.id, c.id, otherOrderId, "nobody"],
      hints: [`${a.id}:HINT-CHILD`, `:${b.id}`, "no-colon"],
      key: "k1",
    };
    expect(await trackHinted(h.deps, input)).toEqual({ orders: 3, queried: 1, trackJobs: 2 });
    const sent = calls().slice(before);
    expect(sent).toHaveLength(1);
    expect(new Set((sent[0]!.body as { orderIds: string[] }).orderIds)).toEqual(
      new Set([a.svcOrderId, b.svcOrderId, c.svcOrderId, "HINT-CHILD"]),
    );
    for (const [o, number] of [
      [a, "HINT-A"],
      [b, "HINT-B"],
    ] as const) {
      const jobs = await waitingTrackJobs(o.id);
      expect(jobs).toHaveLength(1);
      const p = jobs[0]!.payload as { orderId: string; records: { trackNumber: string }[] };
      expect(p.orderId).toBe(o.id);
      expect(p.records.map((r) => r.trackNumber)).toEqual([number]);
      expect(jobs[0]!.idempotencyKey).toContain("hints:k1");
    }
    expect(await waitingTrackJobs(c.id)).toEqual([]);
    expect(await waitingTrackJobs(otherOrderId)).toEqual([]);

    // One order per call when the batch holds one id.
    await prisma.job.deleteMany({ where: { kind: JOB.track } });
    const deps = { ...h.deps, options: { ...h.deps.options, queryBatchSize: 1 } };
    expect(
      await trackHinted(deps, {
        accountId: h.accountId,
        orderIds: [a.id, b.id, c.id],
        hints: [],
        key: "k2",
      }),
    ).toEqual({ orders: 3, queried: 3, trackJobs: 2 });
    expect(
      calls()
        .slice(before + 1)
        .map((c) => (c.body as { orderIds: string[] }).orderIds),
    ).toEqual([a, b, c].sort((x, y) => (x.id < y.id ? -1 : 1)).map((o) => [o.svcOrderId]));
    // Nothing to fetch: no call, no client.
    expect(
      await trackHinted(h.deps, {
        accountId: h.accountId,
        orderIds: ["nobody"],
        hints: [],
        key: "k3",
      }),
    ).toEqual({ orders: 0, queried: 0, trackJobs: 0 });
    expect(calls().length).toBe(before + 4);
  });
});

describe("a duplicated event, and one racing the reconciler", () => {
  it("writes the tracking once", async () => {
    const [o] = (await paidOrders(h, 1, "Duplicated")) as [PaidOrder];
    h.svc.ship(o.svcOrderId, { trackNumber: "DUP-1" });
    const params = { orderId: o.svcOrderId, trackNumber: "DUP-1" };
    await event(h.shopDomain, "LOGISTIC", params);
    await event(h.shopDomain, "LOGISTIC", params);
    await event(h.shopDomain, "ORDER", { ...params, orderStatus: "SHIPPED" });
    expect(await hintJobs()).toHaveLength(1);
    await reconcileAccount(h.deps, h.accountId);
    await h.worker.drain();
    await event(h.shopDomain, "LOGISTIC", params);
    await reconcileAccount(h.deps, h.accountId);
    await h.worker.drain();
    const f = h.shop.fulfillments(h.shopDomain, o.shopOrderId);
    expect(f).toHaveLength(1);
    expect(f[0]!.tracking[0]!.number).toBe("DUP-1");
    const row = await prisma.shopOrder.findUniqueOrThrow({
      where: { id: o.id },
      include: { shipments: true, lines: true },
    });
    expect(row.state).toBe("FULFILLED");
    expect(row.shipments).toHaveLength(1);
    expect(row.lines[0]!.fulfilledQuantity).toBe(2);
    expect(opCalls(h, "getOrderDetailBatch")).toBeGreaterThan(0);
  });
});
