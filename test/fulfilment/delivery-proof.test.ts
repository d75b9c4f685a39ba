/**
 * Delivery of an order split into two parcels, against the simulators: the order is fulfilled
 * (never marked fulfilled while a parcel is still to ship), delivered only once both parcels
 * are, and the proof of delivery asked for exactly the parcels delivered so far, its timeline
 * entry counting the files it brought.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { trackOrder } from "../../app/fulfilment/track/index.server";
import { type Harness, prisma, startHarness } from "./harness";
import { cancelledWhileWriting, splitPaidOrder } from "./track-helpers";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "delivery-proof.myshopify.com", balance: "5000.00" });
  h.svc.setFaults({ dropWebhook: 1 });
});
afterAll(async () => h?.close());

const proofEntries = async (orderId: string) =>
  (
    await prisma.timelineEntry.findMany({
      where: { orderId, step: "proof_of_delivery" },
      orderBy: { id: "asc" },
    })
  ).map((t) => t.message);

const archived = async (orderId: string) =>
  (await prisma.archiveTask.findMany({ where: { orderId, purpose: "proof_of_delivery" } }))
    .map((t) => t.sourceUrl)
    .sort();

describe("a split order's delivery", () => {
  it("asks for the proof of the parcels delivered so far, and counts its files", async () => {
    const { o, childId, parent } = await splitPaidOrder(h, "Proof", [1, 2]);
    const pod = (svcOrderId: string) => `${h.svc.url}/__files/pod/${svcOrderId}/1.jpg?X-Sig=sim`;

    // One parcel shipped: shipped, not fulfilled, and no fulfilment date yet.
    h.svc.ship(childId, { trackNumber: "PROOF-C" });
    expect(await trackOrder(h.deps, o.id, { hintIds: [childId] })).toMatchObject({
      fulfilled: 1,
      state: "SHIPPED",
    });
    let r = await h.row(o.legacyId);
    expect(r.fulfilledAt).toBeNull();

    h.svc.ship(parent.orderId!, { trackNumber: "PROOF-P" });
    expect(await trackOrder(h.deps, o.id)).toMatchObject({ state: "FULFILLED" });
    r = await h.row(o.legacyId);
    expect(r.fulfilledAt).not.toBeNull();

    // The child is delivered: the proof of that parcel only.
    h.svc.deliver(childId);
    expect(await trackOrder(h.deps, o.id)).toMatchObject({ delivered: 1, state: "FULFILLED" });
    expect(await proofEntries(o.id)).toEqual([
      "Proof of delivery received (1 file); the app keeps a copy for the order page.",
    ]);
    expect(await archived(o.id)).toEqual([pod(childId)]);
    // Asked for the delivered parcel only, not the one still on its way.
    const asked = h.svc.calls({ op: "getProofOfDelivery" }).map((c) => c.body);
    expect(asked.at(-1)).toEqual({ orderIds: [childId] });

    // Both delivered: the order is, and the proof of both parcels came (2 files).
    h.svc.deliver(parent.orderId!);
    expect(await trackOrder(h.deps, o.id)).toMatchObject({ delivered: 1, state: "DELIVERED" });
    expect((await proofEntries(o.id)).at(-1)).toBe(
      "Proof of delivery received (2 files); the app keeps a copy for the order page.",
    );
    expect(await archived(o.id)).toEqual([pod(childId), pod(parent.orderId!)].sort());

    // Told again later: nothing moves, the delivery keeps its time.
    const delivered = (await h.row(o.legacyId)).deliveredAt;
    h.svc.clock.advance(60_000);
    expect(await trackOrder(h.deps, o.id)).toMatchObject({ delivered: 0, state: "DELIVERED" });
    expect((await h.row(o.legacyId)).deliveredAt).toEqual(delivered);
  });
});

describe("the state a track job reports", () => {
  it("is none when someone else moved the order while the job wrote its parcels", async () => {
    const { o, childId } = await splitPaidOrder(h, "Moved", [1, 1]);
    h.svc.ship(childId, { trackNumber: "MOVED-C" });
    const deps = cancelledWhileWriting(h, o.id);
    const result = await trackOrder(deps, o.id, { hintIds: [childId] });
    expect(result).toMatchObject({ fulfilled: 1 });
    expect(result.state).toBeUndefined();
    expect((await h.row(o.legacyId)).state).toBe("CANCELLED");
  });
});
