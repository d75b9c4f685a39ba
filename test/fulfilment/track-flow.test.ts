/**
 * The track job against the simulators, called directly (service webhooks dropped, so only what
 * a test runs acts): a tracking number written to the shop once however often it is told, a
 * changed number updating the same fulfilment, delivery and proof of delivery, fulfilment orders
 * on hold or scheduled (the retry delay as a duration), a fulfilment found in the shop after a
 * crash, lines fulfilled by hand (a conflict, not a second fulfilment), and split parcels.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOT_READY_RETRY_MS, trackOrder } from "../../app/fulfilment/track/index.server";
import { parseLineItemGid, parseOrderGid } from "../../app/shop/ids";
import { type Harness, opCalls, prisma, startHarness } from "./harness";
import {
  cancelledWhileWriting,
  type PaidOrder,
  paidOrders,
  placeAndMarkPaid,
  recordsOf,
  splitPaidOrder,
  waitingTrackJobs,
} from "./track-helpers";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "track-flow.myshopify.com", balance: "5000.00" });
  // Only what a test calls acts: the service's webhooks go nowhere.
  h.svc.setFaults({ dropWebhook: 1 });
});
afterAll(async () => h?.close());

const row = (o: PaidOrder) =>
  prisma.shopOrder.findUniqueOrThrow({
    where: { id: o.id },
    include: { lines: true, shipments: true, timeline: { orderBy: { id: "asc" } } },
  });
const inShop = (o: PaidOrder) => h.shop.fulfillments(h.shopDomain, o.shopOrderId);
const steps = async (o: PaidOrder, step: string) =>
  (await row(o)).timeline.filter((t) => t.step === step);

describe("a tracking number reaches the shop once", () => {
  it("writes it with its URL and carrier; a repeat, fetched or given, writes nothing", async () => {
    const [o] = (await paidOrders(h, 1, "Flow 0")) as [PaidOrder];
    h.svc.ship(o.svcOrderId, { trackNumber: "ONCE-1", logisticName: "Carrier A" });
    const first = await trackOrder(h.deps, o.id);
    expect(first).toEqual({
      records: 1,
      fulfilled: 1,
      updated: 0,
      delivered: 0,
      state: "FULFILLED",
    });
    const f = inShop(o);
    expect(f).toHaveLength(1);
    expect(f[0]!.tracking[0]).toMatchObject({
      number: "ONCE-1",
      url: "https://track.svc.test/ONCE-1",
      company: "Carrier A",
    });
    expect(f[0]!.notifications).toBe(1);
    expect(f[0]!.lineItems).toEqual([
      { lineItemId: `gid://shopify/LineItem/${o.lineIds[0]}`, quantity: 2 },
    ]);
    const r = await row(o);
    expect(r.state).toBe("FULFILLED");
    expect(r.fulfilledAt).not.toBeNull();
    expect(r.deliveredAt).toBeNull();
    expect(r.lines[0]!.fulfilledQuantity).toBe(2);
    expect(r.shipments).toHaveLength(1);
    expect(r.shipments[0]).toMatchObject({
      svcOrderId: o.svcOrderId,
      trackNumber: "ONCE-1",
      trackingUrl: "https://track.svc.test/ONCE-1",
      logisticName: "Carrier A",
      writtenTrackNumber: "ONCE-1",
      shopifyFulfillmentId: f[0]!.id,
      deliveredAt: null,
    });
    expect(r.shipments[0]!.lines).toEqual([{ lineItemId: o.lineIds[0], quantity: 2 }]);
    expect((await steps(o, "shipped")).map((t) => [t.outcome, t.message])).toEqual([
      ["info", `Shipped by the service (${o.svcOrderId}): Carrier A ONCE-1.`],
    ]);
    expect((await steps(o, "fulfil")).map((t) => [t.outcome, t.message])).toEqual([
      [
        "ok",
        "Fulfilment with Carrier A ONCE-1 written to the shop, customer notified (1 line(s)).",
      ],
    ]);

    // Again: fetched fresh, and with the records a reconciler pass or a webhook carried.
    const again = await trackOrder(h.deps, o.id);
    expect(again).toEqual({
      records: 1,
      fulfilled: 0,
      updated: 0,
      delivered: 0,
      state: "FULFILLED",
    });
    const records = await recordsOf(h, [o.svcOrderId]);
    const given = await trackOrder(h.deps, o.id, { records: JSON.parse(JSON.stringify(records)) });
    expect(given).toMatchObject({ records: 1, fulfilled: 0, updated: 0 });
    expect(inShop(o)).toHaveLength(1);
    const after = await row(o);
    expect(after.lines[0]!.fulfilledQuantity).toBe(2);
    expect(after.fulfilledAt).toEqual(r.fulfilledAt);
    expect(after.timeline).toHaveLength(r.timeline.length);
  });

  it("records given with the job are used as they are; malformed ones are fetched afresh", async () => {
    const [o] = (await paidOrders(h, 1, "Flow 0")) as [PaidOrder];
    const before = opCalls(h, "getOrderDetailBatch");
    expect(await trackOrder(h.deps, o.id, { records: [] })).toEqual({
      records: 0,
      fulfilled: 0,
      updated: 0,
      delivered: 0,
    });
    expect(opCalls(h, "getOrderDetailBatch")).toBe(before);
    expect(await trackOrder(h.deps, o.id, { records: "not a list" })).toMatchObject({
      records: 1,
    });
    expect(opCalls(h, "getOrderDetailBatch")).toBe(before + 1);
  });

  it("a changed number updates the same fulfilment; a changed URL alone is only stored", async () => {
    const [o] = (await paidOrders(h, 1, "Flow 1")) as [PaidOrder];
    h.svc.ship(o.svcOrderId, { trackNumber: "CHG-1" });
    expect(await trackOrder(h.deps, o.id)).toMatchObject({ fulfilled: 1, updated: 0 });
    const id = inShop(o)[0]!.id;

    h.svc.ship(o.svcOrderId, { trackNumber: "CHG-2", trackingUrl: "https://t.example/CHG-2" });
    expect(await trackOrder(h.deps, o.id)).toEqual({
      records: 1,
      fulfilled: 0,
      updated: 1,
      delivered: 0,
      state: "FULFILLED",
    });
    const f = inShop(o);
    expect(f).toHaveLength(1);
    expect(f[0]!.id).toBe(id);
    expect(f[0]!.tracking[0]).toMatchObject({ number: "CHG-2", url: "https://t.example/CHG-2" });
    let r = await row(o);
    expect(r.shipments).toHaveLength(1);
    expect(r.shipments[0]).toMatchObject({
      trackNumber: "CHG-2",
      writtenTrackNumber: "CHG-2",
      trackingUrl: "https://t.example/CHG-2",
      shopifyFulfillmentId: id,
    });
    expect(r.lines[0]!.fulfilledQuantity).toBe(2);
    expect((await steps(o, "tracking")).map((t) => [t.outcome, t.message])).toEqual([
      ["ok", "Tracking changed from CHG-1 to CHG-2; the shop's fulfilment is updated."],
    ]);

    h.svc.ship(o.svcOrderId, { trackNumber: "CHG-2", trackingUrl: "https://t.example/new" });
    expect(await trackOrder(h.deps, o.id)).toMatchObject({ fulfilled: 0, updated: 0 });
    r = await row(o);
    expect(r.shipments[0]!.trackingUrl).toBe("https://t.example/new");
    expect(await steps(o, "tracking")).toHaveLength(1);
  });
});

describe("delivery", () => {
  it("marks the parcel and the order delivered once, with the proof of delivery", async () => {
    const [o] = (await paidOrders(h, 1, "Flow 2")) as [PaidOrder];
    h.svc.ship(o.svcOrderId, { trackNumber: "DLV-1" });
    await trackOrder(h.deps, o.id);
    const fulfilledAt = (await row(o)).fulfilledAt;
    h.svc.clock.advance(3600_000);
    h.svc.deliver(o.svcOrderId);
    const before = h.deps.clock.now();
    expect(await trackOrder(h.deps, o.id)).toEqual({
      records: 1,
      fulfilled: 0,
      updated: 0,
      delivered: 1,
      state: "DELIVERED",
    });
    const after = h.deps.clock.now();
    const r = await row(o);
    expect(r.state).toBe("DELIVERED");
    expect(r.fulfilledAt).toEqual(fulfilledAt);
    // Delivered at the pipeline's clock (an hour on), during the call.
    for (const at of [r.deliveredAt!, r.shipments[0]!.deliveredAt!]) {
      expect(at.getTime()).toBeGreaterThanOrEqual(before);
      expect(at.getTime()).toBeLessThanOrEqual(after);
    }
    expect((await steps(o, "delivered")).map((t) => [t.outcome, t.message])).toEqual([
      ["ok", "Parcel DLV-1 delivered."],
    ]);
    expect((await steps(o, "proof_of_delivery")).map((t) => [t.outcome, t.message])).toEqual([
      ["info", "Proof of delivery received (1 file); the app keeps a copy for the order page."],
    ]);

    // The link expires: its copy is queued for the app's archive (test/archive covers the copy).
    const podLink = `${h.svc.url}/__files/pod/${o.svcOrderId}/1.jpg?X-Sig=sim`;
    expect(
      (await prisma.archiveTask.findMany({ where: { orderId: o.id } })).map((t) => [
        t.shopDomain,
        t.purpose,
        t.sourceUrl,
      ]),
    ).toEqual([[h.shopDomain, "proof_of_delivery", podLink]]);

    const proofs = opCalls(h, "getProofOfDelivery");
    expect(await trackOrder(h.deps, o.id)).toMatchObject({ delivered: 0, state: "DELIVERED" });
    expect(opCalls(h, "getProofOfDelivery")).toBe(proofs);
    expect(await steps(o, "delivered")).toHaveLength(1);
  });

  it("delivered before it was fulfilled: fulfilled and delivered in one pass", async () => {
    const [o] = (await paidOrders(h, 1, "Flow 3")) as [PaidOrder];
    h.svc.ship(o.svcOrderId, { trackNumber: "DLV-2" });
    h.svc.deliver(o.svcOrderId);
    h.svc.setFaults({ dropWebhook: 1, rate5xx: 1, ops: ["getProofOfDelivery"] });
    try {
      expect(await trackOrder(h.deps, o.id)).toEqual({
        records: 1,
        fulfilled: 1,
        updated: 0,
        delivered: 1,
        state: "DELIVERED",
      });
    } finally {
      h.svc.setFaults({ dropWebhook: 1 });
    }
    const r = await row(o);
    expect(r.fulfilledAt).not.toBeNull();
    expect(r.deliveredAt).not.toBeNull();
    // The proof could not be fetched: said on the timeline, the tracking stands.
    const proof = await steps(o, "proof_of_delivery");
    expect(proof.map((t) => t.outcome)).toEqual(["error"]);
    expect(inShop(o)).toHaveLength(1);
  });

  it("without proofOfDelivery, none is asked for", async () => {
    const [o] = (await paidOrders(h, 1, "Flow 4")) as [PaidOrder];
    h.svc.ship(o.svcOrderId, { trackNumber: "DLV-3" });
    h.svc.deliver(o.svcOrderId);
    const proofs = opCalls(h, "getProofOfDelivery");
    const deps = { ...h.deps, options: { ...h.deps.options, proofOfDelivery: false } };
    expect(await trackOrder(deps, o.id)).toMatchObject({ delivered: 1, state: "DELIVERED" });
    expect(opCalls(h, "getProofOfDelivery")).toBe(proofs);
    expect(await steps(o, "proof_of_delivery")).toEqual([]);
  });
});

describe("Shopify not ready for the tracking", () => {
  it("on hold: waits NOT_READY_RETRY_MS, says so once, and writes it once released", async () => {
    const [o] = (await paidOrders(h, 1, "Flow 5")) as [PaidOrder];
    const fo = h.shop.order(h.shopDomain, o.shopOrderId).fulfillmentOrders[0]!;
    h.shop.holdFulfillmentOrder(h.shopDomain, fo.id, "AWAITING_PAYMENT");
    h.svc.ship(o.svcOrderId, { trackNumber: "HOLD-1" });
    const t0 = Date.now();
    expect(await trackOrder(h.deps, o.id)).toEqual({
      records: 1,
      fulfilled: 0,
      updated: 0,
      delivered: 0,
      state: "SHIPPED",
    });
    const t1 = Date.now();
    let r = await row(o);
    expect(r.state).toBe("SHIPPED");
    expect(r.flag).toBeNull();
    expect(r.reasonMessage).toMatch(/^Tracking waits for Shopify: HOLD-1 goes to the shop/);
    expect(r.shipments[0]).toMatchObject({ trackNumber: "HOLD-1", shopifyFulfillmentId: null });
    expect(r.lines[0]!.fulfilledQuantity).toBe(0);
    const jobs = await waitingTrackJobs(o.id);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.runAt.getTime()).toBeGreaterThanOrEqual(t0 + NOT_READY_RETRY_MS);
    expect(jobs[0]!.runAt.getTime()).toBeLessThanOrEqual(t1 + NOT_READY_RETRY_MS);
    expect(NOT_READY_RETRY_MS).toBe(15 * 60_000);
    const waits = await steps(o, "fulfil");
    expect(waits.map((t) => [t.outcome, t.errorCode])).toEqual([["info", "FULFILLMENT_NOT_READY"]]);

    // Tried again while still held: the same reason is not repeated.
    await trackOrder(h.deps, o.id);
    expect(await steps(o, "fulfil")).toHaveLength(1);
    expect(await waitingTrackJobs(o.id)).toHaveLength(1);

    h.shop.releaseFulfillmentOrderHold(h.shopDomain, fo.id);
    expect(await trackOrder(h.deps, o.id)).toMatchObject({ fulfilled: 1, state: "FULFILLED" });
    r = await row(o);
    expect(r.reasonMessage).toBeNull();
    expect(r.flag).toBeNull();
    expect(inShop(o)).toHaveLength(1);
    expect(inShop(o)[0]!.tracking[0]!.number).toBe("HOLD-1");
    await prisma.job.deleteMany({ where: { concurrencyKey: `order:${o.id}` } });
  });

  it("scheduled: tries again at the fulfilment order's date, between a minute and a day on", async () => {
    const twoHours = 2 * 3600_000;
    for (const [i, ahead, expected] of [
      [0, twoHours, twoHours],
      [1, 3 * 24 * 3600_000, 24 * 3600_000],
    ] as const) {
      const product = await h.connectedProduct(`Scheduled ${i}`, "5.00");
      // The service's clock runs with real time (plus an offset): the date is this far from
      // the real time it was set at, tA..tB.
      const tA = Date.now();
      const fulfillAt = new Date(h.deps.clock.now() + ahead).toISOString();
      const tB = Date.now();
      const [r] = await placeAndMarkPaid(h, [{ lines: [{ product, quantity: 1 }], fulfillAt }]);
      h.svc.ship(r!.svcOrderId, { trackNumber: `SCHED-${i}` });
      const t0 = Date.now();
      await trackOrder(h.deps, r!.id);
      const t1 = Date.now();
      const jobs = await waitingTrackJobs(r!.id);
      expect(jobs).toHaveLength(1);
      const runAt = jobs[0]!.runAt.getTime();
      if (expected === ahead) {
        // At the fulfilment order's date (ms rounding of the offset aside).
        expect(runAt).toBeGreaterThanOrEqual(tA + ahead - 2);
        expect(runAt).toBeLessThanOrEqual(tB + ahead + 2);
      } else {
        // A day after the attempt, at the most.
        expect(runAt).toBeGreaterThanOrEqual(t0 + expected);
        expect(runAt).toBeLessThanOrEqual(t1 + expected);
      }
      expect(h.shop.fulfillments(h.shopDomain, r!.shopOrderId)).toEqual([]);
    }
  });
});

describe("after a crash or a hand in the shop", () => {
  it("a fulfilment with the same number already in the shop is adopted, not written again", async () => {
    const [o] = (await paidOrders(h, 1, "Flow 6")) as [PaidOrder];
    const gw = await h.deps.shopFor(h.shopDomain);
    const [made] = await gw.createFulfillment({
      orderGid: parseOrderGid(o.shopOrderId),
      lineItems: [{ lineItemGid: parseLineItemGid(o.lineIds[0]!), quantity: 2 }],
      tracking: { number: "CRASH-1" },
      notifyCustomer: false,
    });
    h.svc.ship(o.svcOrderId, { trackNumber: "CRASH-1" });
    expect(await trackOrder(h.deps, o.id)).toMatchObject({ fulfilled: 1, state: "FULFILLED" });
    expect(inShop(o).map((f) => f.id)).toEqual([made!.id]);
    const r = await row(o);
    expect(r.shipments[0]!.shopifyFulfillmentId).toBe(made!.id);
    expect(r.lines[0]!.fulfilledQuantity).toBe(2);
    expect((await steps(o, "fulfil")).at(-1)!.message).toContain(
      "found in the shop (written before a restart)",
    );
  });

  it("half written before a crash: only the missing quantity is written", async () => {
    const [o] = (await paidOrders(h, 1, "Flow 7")) as [PaidOrder];
    const gw = await h.deps.shopFor(h.shopDomain);
    const [made] = await gw.createFulfillment({
      orderGid: parseOrderGid(o.shopOrderId),
      lineItems: [{ lineItemGid: parseLineItemGid(o.lineIds[0]!), quantity: 1 }],
      tracking: { number: "CRASH-2" },
      notifyCustomer: false,
    });
    h.svc.ship(o.svcOrderId, { trackNumber: "CRASH-2" });
    expect(await trackOrder(h.deps, o.id)).toMatchObject({ fulfilled: 1, state: "FULFILLED" });
    const f = inShop(o);
    expect(f).toHaveLength(2);
    expect(f.map((x) => x.lineItems[0]!.quantity)).toEqual([1, 1]);
    const r = await row(o);
    expect(r.shipments[0]!.shopifyFulfillmentId!.split(",")).toEqual([
      made!.id,
      f.find((x) => x.id !== made!.id)!.id,
    ]);
    expect((await steps(o, "fulfil")).at(-1)!.message).toContain("completed in the shop");
  });

  it("lines fulfilled by hand with another number: a conflict flagged, never a second fulfilment", async () => {
    const [o] = (await paidOrders(h, 1, "Flow 8")) as [PaidOrder];
    const gw = await h.deps.shopFor(h.shopDomain);
    await gw.createFulfillment({
      orderGid: parseOrderGid(o.shopOrderId),
      lineItems: [{ lineItemGid: parseLineItemGid(o.lineIds[0]!), quantity: 2 }],
      tracking: { number: "BY-HAND" },
      notifyCustomer: false,
    });
    h.svc.ship(o.svcOrderId, { trackNumber: "SVC-9" });
    expect(await trackOrder(h.deps, o.id)).toMatchObject({ fulfilled: 0, updated: 0 });
    let r = await row(o);
    expect(r.flag).toBe("fulfilment_conflict");
    expect(r.reasonMessage).toContain("The shop refused the fulfilment of SVC-9");
    expect((await steps(o, "fulfil")).map((t) => t.outcome)).toEqual(["error"]);
    expect(r.shipments[0]!.shopifyFulfillmentId).toBeNull();

    // Later passes leave it to the merchant.
    const calls = h.shop.graphqlCalls().length;
    h.svc.ship(o.svcOrderId, { trackNumber: "SVC-10" });
    await trackOrder(h.deps, o.id);
    expect(h.shop.graphqlCalls().length).toBe(calls);
    r = await row(o);
    expect(r.shipments[0]!.trackNumber).toBe("SVC-10");
    expect(inShop(o)).toHaveLength(1);
    expect(await steps(o, "fulfil")).toHaveLength(1);
  });
});

describe("orders the track job leaves alone", () => {
  it("an order not paid, unknown, or without an account: nothing asked, nothing written", async () => {
    const [o] = (await paidOrders(h, 1, "Flow 0")) as [PaidOrder];
    const before = opCalls(h, "getOrderDetailBatch");
    const zero = { records: 0, fulfilled: 0, updated: 0, delivered: 0 };
    expect(await trackOrder(h.deps, "no-such-order")).toEqual(zero);
    for (const data of [{ state: "CREATED" }, { state: "PAYING" }, { svcAccountId: null }]) {
      const saved = await prisma.shopOrder.findUniqueOrThrow({ where: { id: o.id } });
      await prisma.shopOrder.update({ where: { id: o.id }, data });
      try {
        expect(await trackOrder(h.deps, o.id)).toEqual(zero);
      } finally {
        await prisma.shopOrder.update({
          where: { id: o.id },
          data: { state: saved.state, svcAccountId: saved.svcAccountId },
        });
      }
    }
    expect(opCalls(h, "getOrderDetailBatch")).toBe(before);
  });
});

describe("split parcels", () => {
  it("a child without tracking is remembered; each parcel fulfils its own lines", async () => {
    const { o, childId, parent } = await splitPaidOrder(h, "Split", [1, 3]);
    const [lineA, lineB] = o.lineIds;

    // Neither ships yet: the child is remembered (with its lines) so it is asked for later.
    expect(await trackOrder(h.deps, o.id, { hintIds: [childId] })).toMatchObject({
      records: 2,
      fulfilled: 0,
    });
    let r = await h.row(o.legacyId);
    expect(r.shipments.map((s) => [s.svcOrderId, s.trackNumber, s.lines])).toEqual([
      [childId, null, [{ lineItemId: lineB, quantity: 3 }]],
    ]);
    expect(r.state).toBe("PAID");

    h.svc.ship(childId, { trackNumber: "SPLIT-R" });
    expect(await trackOrder(h.deps, o.id)).toMatchObject({ fulfilled: 1, state: "SHIPPED" });
    let f = h.shop.fulfillments(h.shopDomain, o.shopOrderId);
    expect(f.map((x) => [x.tracking[0]!.number, x.lineItems])).toEqual([
      ["SPLIT-R", [{ lineItemId: `gid://shopify/LineItem/${lineB}`, quantity: 3 }]],
    ]);
    r = await h.row(o.legacyId);
    expect(r.lines.find((l) => l.shopifyLineItemId === lineA)!.fulfilledQuantity).toBe(0);
    expect(r.lines.find((l) => l.shopifyLineItemId === lineB)!.fulfilledQuantity).toBe(3);

    h.svc.ship(parent.orderId!, { trackNumber: "SPLIT-L" });
    expect(await trackOrder(h.deps, o.id)).toMatchObject({ fulfilled: 1, state: "FULFILLED" });
    f = h.shop.fulfillments(h.shopDomain, o.shopOrderId);
    expect(f).toHaveLength(2);
    expect(f.find((x) => x.tracking[0]!.number === "SPLIT-L")!.lineItems).toEqual([
      { lineItemId: `gid://shopify/LineItem/${lineA}`, quantity: 1 },
    ]);

    // One parcel delivered: the order is not delivered until both are.
    h.svc.deliver(childId);
    expect(await trackOrder(h.deps, o.id)).toMatchObject({ delivered: 1, state: "FULFILLED" });
    h.svc.deliver(parent.orderId!);
    expect(await trackOrder(h.deps, o.id)).toMatchObject({ delivered: 1, state: "DELIVERED" });
  });
});

describe("the order's state settled from what the job wrote", () => {
  it("moves only from the state the job read: a change made meanwhile stays", async () => {
    const [o] = (await paidOrders(h, 1, "Flow settle")) as [PaidOrder];
    h.svc.ship(o.svcOrderId, { trackNumber: "SETTLE-1", logisticName: "Carrier S" });
    // While the fulfilment is written, someone else moves the order (a cancel, say).
    const deps = cancelledWhileWriting(h, o.id);
    const result = await trackOrder(deps, o.id);
    expect(result).toMatchObject({ records: 1, fulfilled: 1 });
    const r = await row(o);
    expect(r.state).toBe("CANCELLED");
    expect(r.lines[0]!.fulfilledQuantity).toBe(2);
    expect(r.shipments[0]).toMatchObject({ writtenTrackNumber: "SETTLE-1" });
    expect(inShop(o)).toHaveLength(1);
  });
});
