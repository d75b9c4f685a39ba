/**
 * The track job applying the records it was given (as a webhook's hints or a reconciler pass
 * carry them): which records are the order's, which shop lines and quantities a record carries,
 * the carrier's name, the customer notified or not, the reason shown while tracking waits
 * (cleared only when it was that reason), a retry that found the order still on hold, and the
 * log lines of the work naming the shop and the order.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { currentLogContext, withLogContext } from "../../app/log-context.server";
import { onSvcEvent, trackOrder } from "../../app/fulfilment/track/index.server";
import { updateSettings } from "../../app/settings.server";
import { type Harness, opCalls, prisma, startHarness } from "./harness";
import { type PaidOrder, paidOrders, placeAndMarkPaid, waitingTrackJobs } from "./track-helpers";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "track-records.myshopify.com", balance: "5000.00" });
  h.svc.setFaults({ dropWebhook: 1 });
});
afterAll(async () => h?.close());

const one = async (title: string) => (await paidOrders(h, 1, title))[0]!;
const row = (o: PaidOrder) =>
  prisma.shopOrder.findUniqueOrThrow({
    where: { id: o.id },
    include: { lines: true, shipments: true, timeline: { orderBy: { id: "asc" } } },
  });
const inShop = (o: PaidOrder) => h.shop.fulfillments(h.shopDomain, o.shopOrderId);

describe("which records are the order's", () => {
  it("by its service ids, its number (any of three fields); others are left out", async () => {
    const o = await one("Match");
    const other = { orderId: "SO-NOT-MINE", trackNumber: "NOPE", productList: [] };
    expect(await trackOrder(h.deps, o.id, { records: [other] })).toMatchObject({ records: 0 });
    expect(
      await trackOrder(h.deps, o.id, {
        records: [
          other,
          { svcOrderId: o.svcOrderId, productList: [] },
          { orderNum: o.orderNumber, productList: [] },
          { orderNumber: o.orderNumber, productList: [] },
          { productList: [{ orderNumber: o.orderNumber }] },
        ],
      }),
    ).toMatchObject({ records: 4, fulfilled: 0 });
    // Matched by number but without a service id: nothing to record it under.
    expect(
      await trackOrder(h.deps, o.id, {
        records: [{ orderNumber: o.orderNumber, trackNumber: "NO-ID", productList: [] }],
      }),
    ).toMatchObject({ records: 1, fulfilled: 0 });
    expect(inShop(o)).toEqual([]);
    expect((await row(o)).shipments).toEqual([]);
  });

  it("one service order without its lines listed carries all the order's lines", async () => {
    const a = await h.connectedProduct("Whole A", "5.00");
    const b = await h.connectedProduct("Whole B", "5.00");
    const [o] = await placeAndMarkPaid(h, [
      {
        lines: [
          { product: a, quantity: 1 },
          { product: b, quantity: 2 },
        ],
      },
    ]);
    const rec = {
      orderId: o!.svcOrderId,
      trackNumber: "WHOLE-1",
      productList: [{ storeLineItemId: "not-a-line-of-it", quantity: 5 }],
    };
    expect(await trackOrder(h.deps, o!.id, { records: [rec] })).toMatchObject({
      fulfilled: 1,
      state: "FULFILLED",
    });
    expect(
      inShop(o!)[0]!
        .lineItems.map((l) => l.quantity)
        .sort(),
    ).toEqual([1, 2]);
  });

  it("a parcel's lines without quantities carry the whole line; two parcels never take all", async () => {
    const a = await h.connectedProduct("Parcel A", "5.00");
    const b = await h.connectedProduct("Parcel B", "5.00");
    const [o] = await placeAndMarkPaid(h, [
      {
        lines: [
          { product: a, quantity: 1 },
          { product: b, quantity: 3 },
        ],
      },
    ]);
    const [lineA, lineB] = o!.lineIds;
    const records = [
      { orderId: o!.svcOrderId, trackNumber: "P-A", productList: [{ storeLineItemId: lineA }] },
      // A second parcel whose lines are not listed: it fulfils nothing by guess.
      { orderId: "SO-CHILD-X", orderNumber: o!.orderNumber, trackNumber: "P-X", productList: [] },
    ];
    expect(await trackOrder(h.deps, o!.id, { records })).toMatchObject({
      records: 2,
      state: "SHIPPED",
    });
    const f = inShop(o!);
    expect(f.map((x) => [x.tracking[0]!.number, x.lineItems])).toEqual([
      ["P-A", [{ lineItemId: `gid://shopify/LineItem/${lineA}`, quantity: 1 }]],
    ]);
    const r = await row(o!);
    expect(r.lines.find((l) => l.shopifyLineItemId === lineB)!.fulfilledQuantity).toBe(0);
    expect(r.shipments.find((s) => s.svcOrderId === "SO-CHILD-X")!.lines).toEqual([]);
  });
});

describe("what goes with the tracking", () => {
  it("the carrier is the tracking provider, else the logistic name; the customer as set", async () => {
    await updateSettings(prisma, h.shopDomain, { notifyCustomer: false });
    try {
      const cases = [
        [{ trackingProvider: "Provider P", logisticName: "Line L" }, "Provider P"],
        [{ trackingProvider: "", logisticName: "Line L" }, "Line L"],
        [{}, null],
      ] as const;
      for (const [i, [fields, company]] of cases.entries()) {
        const o = await one(`Carrier ${i}`);
        const rec = { orderId: o.svcOrderId, trackNumber: `CAR-${i}`, productList: [], ...fields };
        expect(await trackOrder(h.deps, o.id, { records: [rec] })).toMatchObject({ fulfilled: 1 });
        const f = inShop(o)[0]!;
        expect(f.tracking[0]!.company ?? null).toBe(company);
        expect(f.tracking[0]!.url ?? null).toBeNull();
        expect(f.notifications).toBe(0);
        const r = await row(o);
        expect(r.shipments[0]).toMatchObject({ logisticName: company, trackingUrl: null });
        const messages = r.timeline.map((t) => t.message);
        expect(messages).toContain(
          `Shipped by the service (${o.svcOrderId}): ${company ?? "carrier"} CAR-${i}.`,
        );
        expect(messages).toContain(
          `Fulfilment with ${company ?? "tracking"} CAR-${i} written to the shop (1 line(s)).`,
        );
      }
    } finally {
      await updateSettings(prisma, h.shopDomain, { notifyCustomer: true });
    }
  });

  it("a reason of another kind stays when the tracking is written", async () => {
    const o = await one("Other Reason");
    await prisma.shopOrder.update({
      where: { id: o.id },
      data: { reasonMessage: "Cancelled in the shop after payment." },
    });
    const rec = { orderId: o.svcOrderId, trackNumber: "KEEP-1", productList: [] };
    expect(await trackOrder(h.deps, o.id, { records: [rec] })).toMatchObject({ fulfilled: 1 });
    expect((await row(o)).reasonMessage).toBe("Cancelled in the shop after payment.");
  });

  it("delivered with no proof to show: nothing about proof on the timeline", async () => {
    const o = await one("No Proof");
    // The service says delivered in the records, its proof list is still empty.
    const rec = {
      orderId: o.svcOrderId,
      trackNumber: "NP-1",
      orderStatus: "DELIVERED",
      productList: [],
    };
    const proofs = opCalls(h, "getProofOfDelivery");
    expect(await trackOrder(h.deps, o.id, { records: [rec] })).toMatchObject({
      delivered: 1,
      state: "DELIVERED",
    });
    expect(opCalls(h, "getProofOfDelivery")).toBe(proofs + 1);
    expect((await row(o)).timeline.filter((t) => t.step === "proof_of_delivery")).toEqual([]);
  });
});

describe("waiting for Shopify", () => {
  it("a retry that finds it still on hold schedules the next; a near date waits a minute", async () => {
    const o = await one("Still Held");
    const fo = h.shop.order(h.shopDomain, o.shopOrderId).fulfillmentOrders[0]!;
    h.shop.holdFulfillmentOrder(h.shopDomain, fo.id, "OTHER");
    const rec = { orderId: o.svcOrderId, trackNumber: "HELD-2", productList: [] };
    await trackOrder(h.deps, o.id, { records: [rec] });
    const [first] = await waitingTrackJobs(o.id);
    // That retry runs (and finds it still held) some minutes later.
    await prisma.job.update({ where: { id: first!.id }, data: { state: "completed" } });
    h.svc.clock.advance(16 * 60_000);
    await trackOrder(h.deps, o.id, { records: [rec] });
    const next = await waitingTrackJobs(o.id);
    expect(next).toHaveLength(1);
    expect(next[0]!.id).not.toBe(first!.id);

    // A fulfilment order opening within the minute: tried again in a minute, not at once.
    const product = await h.connectedProduct("Soon", "5.00");
    const fulfillAt = new Date(h.deps.clock.now() + 55_000).toISOString();
    const [soon] = await placeAndMarkPaid(h, [{ lines: [{ product, quantity: 1 }], fulfillAt }]);
    const t0 = Date.now();
    await trackOrder(h.deps, soon!.id, {
      records: [{ orderId: soon!.svcOrderId, trackNumber: "SOON-1", productList: [] }],
    });
    const t1 = Date.now();
    const [job] = await waitingTrackJobs(soon!.id);
    expect(job!.runAt.getTime()).toBeGreaterThanOrEqual(t0 + 60_000);
    expect(job!.runAt.getTime()).toBeLessThanOrEqual(t1 + 60_000);
  });
});

describe("log lines", () => {
  it("of an event name the shop; of a track job, the shop and the order", async () => {
    const o = await one("Logged");
    const ctx = await withLogContext({ jobId: "1" }, async () => {
      await onSvcEvent(h.deps, {
        shopDomain: h.shopDomain,
        type: "LOGISTIC",
        params: { orderId: "SO-NOBODY" },
        eventKey: "log-1",
      });
      return currentLogContext();
    });
    expect(ctx).toEqual({ jobId: "1", shop: h.shopDomain });
    const ctx2 = await withLogContext({ jobId: "2" }, async () => {
      await trackOrder(h.deps, o.id, { records: [] });
      return currentLogContext();
    });
    expect(ctx2).toEqual({ jobId: "2", shop: h.shopDomain, orderId: o.id });
  });
});
