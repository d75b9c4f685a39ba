/**
 * The sandbox path (nothing charged, the app's own sandbox updateTrackNumber drives the loop, so
 * sandbox orders end FULFILLED; a changed number updates the same fulfilment), unconnected lines (held, then connected and placed; or sent and
 * adopted from ORDER_CONNNECTED), and a fraud hold released by the merchant.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { releaseOrder } from "../../app/fulfilment/actions.server";
import { JOB } from "../../app/orders/schedule.server";
import { enqueue } from "../../app/jobs/enqueue.server";
import { updateSettings } from "../../app/settings.server";
import { type Harness, opCalls, prisma, startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    shopDomain: "sandbox-holds.myshopify.com",
    balance: "300.00",
    settings: { sandbox: true },
  });
});
afterAll(async () => h?.close());

describe("sandbox", () => {
  it("pays nothing; the app sets a test tracking number (sandbox updateTrackNumber) that reaches the shop; a new number updates it", async () => {
    const p = await h.connectedProduct("Sandbox Lamp", "30.00");
    const placed = await h.order([{ product: p, quantity: 1 }]);
    await h.settle();
    const row = await h.row(placed.legacyId);
    expect(row.isSandbox).toBe(true);
    expect(h.svc.order(row.svcOrderId!)!.isSandbox).toBe(true);
    expect(h.svc.getBalance(h.simAccountId)).toBe("300.00");
    // Paid, then tracked through the app's own sandbox/updateTrackNumber, once.
    expect(row.state).toBe("FULFILLED");
    const own = `SBX-${row.orderNumber}`;
    expect(h.svc.order(row.svcOrderId!)!.trackNumber).toBe(own);
    expect(h.svc.calls({ op: "updateTrackNumber", accountId: h.simAccountId })).toHaveLength(1);
    let f = h.shop.fulfillments(h.shopDomain, placed.shopOrderId);
    expect(f.map((x) => x.tracking[0]!.number)).toEqual([own]);
    expect(row.timeline.some((t) => t.step === "sandbox" && t.outcome === "ok")).toBe(true);

    await h.client.logistics.updateSandboxTrackNumber(row.svcOrderId!, "SBX-0001");
    await h.settle();
    f = h.shop.fulfillments(h.shopDomain, placed.shopOrderId);
    expect(f).toHaveLength(1);
    expect(f[0]!.tracking[0]!.number).toBe("SBX-0001");
    expect((await h.row(placed.legacyId)).state).toBe("FULFILLED");

    await h.client.logistics.updateSandboxTrackNumber(row.svcOrderId!, "SBX-0002");
    await h.settle();
    f = h.shop.fulfillments(h.shopDomain, placed.shopOrderId);
    expect(f).toHaveLength(1);
    expect(f[0]!.tracking[0]!.number).toBe("SBX-0002");
    const after = await h.row(placed.legacyId);
    expect(after.shipments[0]!.writtenTrackNumber).toBe("SBX-0002");
    expect(after.timeline.some((t) => t.step === "tracking" && t.outcome === "ok")).toBe(true);
  });
});

describe("unconnected lines", () => {
  it("hold: the order waits with a reason, then goes on once the line is connected", async () => {
    const connected = await h.connectedProduct("Known Mug", "9.00");
    const stranger = h.unconnectedProduct("Unknown Poster", "12.00");
    const creates = opCalls(h, "createOrderV3");
    const placed = await h.order([
      { product: connected, quantity: 1 },
      { product: stranger, quantity: 2 },
    ]);
    await h.settle();
    let row = await h.row(placed.legacyId);
    expect(row.state).toBe("HELD");
    expect(row.reasonCode).toBe("unconnected_lines");
    expect(row.reasonMessage).toContain("Unknown Poster");
    expect(opCalls(h, "createOrderV3")).toBe(creates);

    await h.connect(stranger);
    // The reconciler re-checks held orders once they have waited a while.
    h.svc.clock.advance(11 * 60_000);
    await enqueue(prisma, { kind: JOB.reconcile, idempotencyKey: "reconcile-after-connect" });
    await h.settle();
    row = await h.row(placed.legacyId);
    expect(row.state).toBe("FULFILLED");
    expect(opCalls(h, "createOrderV3")).toBe(creates + 1);
    expect(h.svc.order(row.svcOrderId!)!.lines).toHaveLength(2);
  });

  it("send: the service keeps it invalid, ORDER_CONNNECTED brings its id, then it is paid", async () => {
    await updateSettings(prisma, h.shopDomain, { unconnectedLines: "send" });
    const stranger = h.unconnectedProduct("Unmapped Vase", "40.00");
    const placed = await h.order([{ product: stranger, quantity: 1 }]);
    await h.settle();
    let row = await h.row(placed.legacyId);
    expect(row.state).toBe("CREATED");
    expect(row.svcOrderId).toBeNull();
    expect(row.reasonCode).toBe("waiting_connection");

    await h.connect(stranger); // connectShopProduct fires ORDER_CONNNECTED at the service
    await h.settle();
    row = await h.row(placed.legacyId);
    expect(row.svcOrderId).toMatch(/^SO/);
    expect(row.state).toBe("FULFILLED");
    expect(row.timeline.some((t) => t.step === "connected")).toBe(true);
    await updateSettings(prisma, h.shopDomain, { unconnectedLines: "hold" });
  });
});

describe("fraud risk", () => {
  it("holds a risky order until the merchant releases it", async () => {
    const p = await h.connectedProduct("Risky Watch", "80.00");
    const placed = await h.order([{ product: p, quantity: 1 }], { risk: "HIGH" });
    await h.settle();
    let row = await h.row(placed.legacyId);
    expect(row.state).toBe("HELD");
    expect(row.reasonCode).toBe("fraud_risk");
    expect(row.svcOrderId).toBeNull();

    const r = await releaseOrder(h.deps, row.id);
    expect(r.ok).toBe(true);
    await h.settle();
    row = await h.row(placed.legacyId);
    expect(row.state).toBe("FULFILLED");
  });
});
