/**
 * Repairing an order (app/repair/repair.server.ts), step by step against the service simulator
 * over HTTP and a real database: what refuses a repair (paid, cancelled, being paid), what counts
 * as a change, corrections before the order reached the service (placed with them), a method
 * change at the service (updateLogistics, or a new service order past the cart), and placing
 * again as `…-R<n>` (the old service order recorded as replaced). Orders are rows made here; the
 * service orders are created at the simulator with the real client.
 */
import type { Prisma } from "@prisma/client";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { orderNumberFor } from "../../app/orders/model";
import { JOB } from "../../app/orders/schedule.server";
import { placeAgainAsNew, repairOrder, replacementNumber } from "../../app/repair/repair.server";
import { type Harness, prisma, startHarness } from "../fulfilment/harness";

const SHOP = "repair-order.myshopify.com";
const opts = { shopDomain: SHOP };

let h: Harness;
let vid: string;
let seq = 0;

beforeAll(async () => {
  h = await startHarness({ shopDomain: SHOP });
  vid = [...h.svc.state.catalog.variantByVid.values()].find((v) => !v.removed)!.vid;
});
afterAll(async () => h?.close());
beforeEach(() => h.svc.clearFaults());

/** An order row of this shop (RECEIVED, not at the service unless `data` says so). */
async function orderRow(data: Partial<Prisma.ShopOrderUncheckedCreateInput> = {}) {
  const shopifyOrderId = String(880000 + ++seq);
  return prisma.shopOrder.create({
    data: {
      shopDomain: SHOP,
      shopifyOrderId,
      orderNumber: orderNumberFor(SHOP, shopifyOrderId),
      logisticName: "SvcPacket Ordinary",
      ...data,
    },
  });
}

/** An order row created at the service (CREATED there and here), to `to`. */
async function createdRow(to = "US", data: Partial<Prisma.ShopOrderUncheckedCreateInput> = {}) {
  const shopifyOrderId = String(880000 + ++seq);
  const orderNumber = orderNumberFor(SHOP, shopifyOrderId);
  const created = await h.client.orders.createOrderV3({
    orderNumber,
    orderFlow: 2,
    shippingCustomerName: "Ada Lovelace",
    shippingAddress: "1 Main St",
    shippingCity: "Springfield",
    shippingProvince: "Illinois",
    shippingCountryCode: to,
    shippingCountry: to,
    shippingZip: "62701",
    logisticName: "SvcPacket Ordinary",
    fromCountryCode: "CN",
    products: [{ vid, quantity: 1 }],
  });
  const svcOrderId = created.orderId!;
  const row = await prisma.shopOrder.create({
    data: {
      shopDomain: SHOP,
      shopifyOrderId,
      orderNumber,
      state: "CREATED",
      svcAccountId: h.accountId,
      svcOrderId,
      placedAt: new Date(),
      logisticName: "SvcPacket Ordinary",
      shippingCost: "4.99",
      ...data,
    },
  });
  return { row, svcOrderId };
}

const row = (id: string) => prisma.shopOrder.findUniqueOrThrow({ where: { id } });
const timeline = async (id: string) =>
  (await prisma.timelineEntry.findMany({ where: { orderId: id }, orderBy: { id: "asc" } })).map(
    (t) => [t.step, t.outcome, t.message],
  );
const placeJobs = async (id: string) =>
  (await prisma.job.findMany({ where: { kind: JOB.place }, orderBy: { id: "asc" } }))
    .filter((j) => (j.payload as { orderId?: string }).orderId === id)
    .map((j) => [j.idempotencyKey, j.concurrencyKey, j.shopDomain]);

describe("what refuses a repair", () => {
  it("an unknown order, or another shop's, is not found", async () => {
    expect(await repairOrder(h.deps, "no-such-order", { logisticName: "USPS" }, opts)).toEqual({
      ok: false,
      error: "Order not found.",
    });
    const o = await orderRow();
    expect(
      await repairOrder(
        h.deps,
        o.id,
        { logisticName: "USPS" },
        { shopDomain: "other.myshopify.com" },
      ),
    ).toEqual({ ok: false, error: "Order not found." });
    expect((await row(o.id)).logisticName).toBe("SvcPacket Ordinary");
  });

  it("a paid, cancelled or paying order says why; nothing changes", async () => {
    const paid =
      "The order is paid: the service order can no longer be changed. Open a dispute with the service instead.";
    const paying = "The order is being paid: wait for the payment to finish.";
    for (const [state, error] of [
      ["PAID", paid],
      ["SHIPPED", paid],
      ["FULFILLED", paid],
      ["DELIVERED", paid],
      ["CANCELLED", "The order is cancelled."],
      ["PAYING", paying],
    ]) {
      const o = await orderRow({ state });
      expect(await repairOrder(h.deps, o.id, { logisticName: "USPS" }, opts)).toEqual({
        ok: false,
        error,
      });
      expect(await row(o.id)).toMatchObject({ state, logisticName: "SvcPacket Ordinary" });
    }
  });

  it("an order in a payment batch past the cart waits; an open, carted or failed batch lets it go", async () => {
    for (const state of ["confirmed", "parented", "paying", "paid"]) {
      const batch = await prisma.paymentBatch.create({
        data: { svcAccountId: h.accountId, isSandbox: false, state },
      });
      const o = await orderRow({ state: "CREATED", paymentBatchId: batch.id });
      expect(await repairOrder(h.deps, o.id, { logisticName: "USPS" }, opts)).toEqual({
        ok: false,
        error: "The order is being paid: wait for the payment to finish.",
      });
    }
    for (const state of ["open", "carted", "failed"]) {
      const batch = await prisma.paymentBatch.create({
        data: { svcAccountId: h.accountId, isSandbox: false, state },
      });
      const o = await orderRow({ state: "FAILED", paymentBatchId: batch.id });
      expect(await repairOrder(h.deps, o.id, { logisticName: "USPS" }, opts)).toMatchObject({
        ok: true,
        outcome: "placing",
      });
    }
    // A batch that is gone holds nothing.
    const o = await orderRow({ state: "FAILED", paymentBatchId: "gone" });
    expect(await repairOrder(h.deps, o.id, { logisticName: "USPS" }, opts)).toMatchObject({
      ok: true,
    });
  });

  it("nothing changed: the same recipient, the same or a blank method, the shop's address again", async () => {
    const nothing = {
      ok: false,
      error: "Nothing changed: edit the recipient or choose another method.",
    };
    const o = await orderRow({ state: "FAILED", recipient: { city: "Paris", taxId: "T1" } });
    expect(await repairOrder(h.deps, o.id, {}, opts)).toEqual(nothing);
    expect(
      await repairOrder(h.deps, o.id, { recipient: { city: " Paris ", taxId: "T1" } }, opts),
    ).toEqual(nothing);
    expect(await repairOrder(h.deps, o.id, { logisticName: " SvcPacket Ordinary " }, opts)).toEqual(
      nothing,
    );
    expect(await repairOrder(h.deps, o.id, { logisticName: "   " }, opts)).toEqual(nothing);
    const plain = await orderRow({ state: "FAILED", recipient: { taxId: "T1" } });
    expect(await repairOrder(h.deps, plain.id, { useShopAddress: true }, opts)).toEqual(nothing);
    // A flag alone is no change without the shop's address asked for.
    const flagged = await orderRow({ state: "CREATED", flag: "address_changed" });
    expect(await repairOrder(h.deps, flagged.id, { recipient: {} }, opts)).toEqual(nothing);
    expect(await row(o.id)).toMatchObject({ state: "FAILED", placeAttempt: 0 });
    expect(await timeline(o.id)).toEqual([]);
  });

  it("a bad recipient: the first message of each field, nothing saved", async () => {
    const o = await orderRow({ state: "FAILED", reasonCode: "intercepted" });
    const r = await repairOrder(
      h.deps,
      o.id,
      { recipient: { countryCode: "USA", email: `${"x".repeat(60)}`, city: "y".repeat(51) } },
      opts,
    );
    expect(r).toEqual({
      ok: false,
      error: "Correct the fields shown.",
      errors: {
        countryCode: "Country: a two-letter code (BR, DE…)",
        email: "Email: not an address",
        city: "City: at most 50 characters",
      },
    });
    expect(await row(o.id)).toMatchObject({
      state: "FAILED",
      reasonCode: "intercepted",
      recipient: null,
    });
  });
});

describe("before the service has the order", () => {
  it("the corrections and the method are saved and the order is placed with them", async () => {
    const o = await orderRow({
      state: "FAILED",
      reasonCode: "invalid_address",
      reasonMessage: "No street",
      recipient: { zip: "1000" },
    });
    const r = await repairOrder(
      h.deps,
      o.id,
      { recipient: { name: "Bea Smith", city: "Brussels" }, logisticName: " Express Air " },
      opts,
    );
    expect(r).toEqual({
      ok: true,
      outcome: "placing",
      message: "Saved: the order is placed with the corrections now.",
    });
    expect(await row(o.id)).toMatchObject({
      state: "RECEIVED",
      reasonCode: null,
      reasonMessage: null,
      recipient: { name: "Bea Smith", city: "Brussels" },
      logisticName: "Express Air",
      placeAttempt: 0,
      orderNumber: o.orderNumber,
    });
    expect(await timeline(o.id)).toEqual([
      [
        "repair",
        "info",
        "Repaired by the merchant: recipient (name, city, zip); method → Express Air. It is placed with the corrections now.",
      ],
    ]);
    const jobs = await placeJobs(o.id);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]![0]).toMatch(new RegExp(`^place:${o.id}:repair:\\d+$`));
    expect(jobs[0]!.slice(1)).toEqual([`order:${o.id}`, SHOP]);
  });

  it("a recipient alone keeps the method; a method alone keeps the recipient", async () => {
    const a = await orderRow({ state: "HELD" });
    expect(
      await repairOrder(h.deps, a.id, { recipient: { phone: "+1 555 0100" } }, opts),
    ).toMatchObject({ ok: true, outcome: "placing" });
    expect(await row(a.id)).toMatchObject({
      recipient: { phone: "+1 555 0100" },
      logisticName: "SvcPacket Ordinary",
    });
    expect((await timeline(a.id))[0]![2]).toBe(
      "Repaired by the merchant: recipient (phone). It is placed with the corrections now.",
    );
    const b = await orderRow({ state: "HELD", recipient: { city: "Lyon" } });
    expect(await repairOrder(h.deps, b.id, { logisticName: "USPS" }, opts)).toMatchObject({
      ok: true,
    });
    expect(await row(b.id)).toMatchObject({ recipient: { city: "Lyon" }, logisticName: "USPS" });
    expect((await timeline(b.id))[0]![2]).toBe(
      "Repaired by the merchant: method → USPS. It is placed with the corrections now.",
    );
  });

  it("back to the shop's address: the corrections go, the customs ids stay", async () => {
    const o = await orderRow({
      state: "FAILED",
      recipient: {
        name: "Bea",
        address1: "2 Side St",
        taxId: "123",
        houseNumber: "7",
        consigneeID: "P123456789012",
      },
    });
    expect(await repairOrder(h.deps, o.id, { useShopAddress: true }, opts)).toMatchObject({
      ok: true,
      outcome: "placing",
    });
    expect((await row(o.id)).recipient).toEqual({
      taxId: "123",
      houseNumber: "7",
      consigneeID: "P123456789012",
    });
    expect((await timeline(o.id))[0]![2]).toBe(
      "Repaired by the merchant: recipient (name, address1). It is placed with the corrections now.",
    );
  });
});

describe("a method change at the service", () => {
  it("is made on the same service order with updateLogistics, and goes to the next payment", async () => {
    await prisma.job.deleteMany({ where: { kind: JOB.pay } });
    const { row: o, svcOrderId } = await createdRow("US", {
      state: "FAILED",
      reasonCode: "intercepted",
      reasonMessage: "suspended",
      paymentBatchId: (
        await prisma.paymentBatch.create({
          data: { svcAccountId: h.accountId, isSandbox: false, state: "failed" },
        })
      ).id,
    });
    const creates = h.svc.calls({ op: "createOrderV3", accountId: h.simAccountId }).length;
    const r = await repairOrder(h.deps, o.id, { logisticName: "express air" }, opts);
    expect(r).toEqual({
      ok: true,
      outcome: "logistics_updated",
      message: "Shipping changed to Express Air at the service.",
    });
    expect(await row(o.id)).toMatchObject({
      svcOrderId,
      orderNumber: o.orderNumber,
      logisticName: "Express Air",
      shippingCost: "14.99",
      state: "CREATED",
      paymentBatchId: null,
      reasonCode: null,
      reasonMessage: null,
      placeAttempt: 0,
    });
    expect(h.svc.order(svcOrderId)!.logisticName).toBe("Express Air");
    expect(h.svc.calls({ op: "createOrderV3", accountId: h.simAccountId })).toHaveLength(creates);
    expect(await timeline(o.id)).toEqual([
      [
        "repair",
        "ok",
        "Repaired by the merchant: shipping method changed at the service to Express Air (14.99 USD) (updateLogistics); it goes to the next payment.",
      ],
    ]);
    const pay = await prisma.job.findMany({ where: { kind: JOB.pay, state: "available" } });
    expect(pay.map((j) => [j.payload, j.shopDomain])).toEqual([[{ accountId: h.accountId }, SHOP]]);
    expect(pay[0]!.runAt.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    expect(await placeJobs(o.id)).toEqual([]);
  });

  it("a method not offered for the order is refused with the ones offered", async () => {
    const { row: o } = await createdRow("DE");
    expect(await repairOrder(h.deps, o.id, { logisticName: "USPS" }, opts)).toEqual({
      ok: false,
      error:
        "USPS is not offered for this order. Offered: SvcPacket Ordinary, SvcPacket Sensitive, Express Air.",
    });
    expect(await row(o.id)).toMatchObject({ logisticName: "SvcPacket Ordinary", state: "CREATED" });
    expect(await timeline(o.id)).toEqual([]);
  });

  it("a method the service will not use says the service's reason; nothing changes", async () => {
    const { row: o } = await createdRow("US");
    h.svc.suspendLogistics("Express Air");
    try {
      expect(await repairOrder(h.deps, o.id, { logisticName: "Express Air" }, opts)).toEqual({
        ok: false,
        error:
          "The service will not ship this order with Express Air: logistics Express Air is suspended by the carrier.",
      });
    } finally {
      h.svc.suspendLogistics("Express Air", false);
    }
    expect(await row(o.id)).toMatchObject({
      logisticName: "SvcPacket Ordinary",
      shippingCost: "4.99",
      placeAttempt: 0,
    });
    expect(await timeline(o.id)).toEqual([]);
  });

  it("a refusal of the service, or a service that does not answer, is said and changes nothing", async () => {
    const unknown = await orderRow({
      state: "CREATED",
      svcAccountId: h.accountId,
      svcOrderId: "SO-NOT-THERE",
    });
    const refused = await repairOrder(h.deps, unknown.id, { logisticName: "USPS" }, opts);
    expect(refused).toEqual({
      ok: false,
      error: expect.stringMatching(/^The service refused the change: .*order does not exist/),
    });
    expect(await row(unknown.id)).toMatchObject({ svcOrderId: "SO-NOT-THERE", placeAttempt: 0 });

    const { row: o } = await createdRow("US");
    h.svc.setFaults({ rate5xx: 1, ops: ["optionalLogistics"] });
    const down = await repairOrder(h.deps, o.id, { logisticName: "USPS" }, opts);
    h.svc.clearFaults();
    expect(down).toEqual({
      ok: false,
      error: expect.stringMatching(/^The service could not be reached: .+\. Try again\.$/),
    });
    expect(await row(o.id)).toMatchObject({ logisticName: "SvcPacket Ordinary", placeAttempt: 0 });
    expect(await timeline(o.id)).toEqual([]);
  });

  it("past the cart at the service: placed again as a new service order with the method pinned", async () => {
    const { row: o, svcOrderId } = await createdRow("US");
    await h.client.orders.addCart([svcOrderId]);
    await h.client.orders.addCartConfirm([svcOrderId]);
    const r = await repairOrder(h.deps, o.id, { logisticName: "USPS" }, opts);
    const number = `${o.orderNumber}-R1`;
    expect(r).toEqual({
      ok: true,
      outcome: "placed_again",
      message: `Placed again as a new service order (${number}).`,
    });
    expect(await row(o.id)).toMatchObject({
      orderNumber: number,
      placeAttempt: 1,
      svcOrderId: null,
      placedAt: null,
      state: "RECEIVED",
      logisticName: "USPS",
      shippingCost: null,
    });
    expect(await timeline(o.id)).toEqual([
      [
        "repair",
        "info",
        `Repaired by the merchant (method → USPS): placed again as a new service order ${number}; the old one ${svcOrderId} is left unpaid and replaced.`,
      ],
    ]);
    expect(await placeJobs(o.id)).toEqual([
      [`place:${o.id}:again:${number}`, `order:${o.id}`, SHOP],
    ]);
  });

  it("a new recipient at the service places again; the method then is the rules' again unless one is chosen", async () => {
    const { row: a } = await createdRow("US");
    expect(
      await repairOrder(h.deps, a.id, { recipient: { address1: "12 Harbour Road" } }, opts),
    ).toMatchObject({ ok: true, outcome: "placed_again" });
    expect(await row(a.id)).toMatchObject({
      recipient: { address1: "12 Harbour Road" },
      logisticName: null,
      placeAttempt: 1,
    });
    const { row: b } = await createdRow("US");
    expect(
      await repairOrder(
        h.deps,
        b.id,
        { recipient: { city: "Chicago" }, logisticName: "Express Air" },
        opts,
      ),
    ).toMatchObject({ ok: true, outcome: "placed_again" });
    expect(await row(b.id)).toMatchObject({
      recipient: { city: "Chicago" },
      logisticName: "Express Air",
    });
    expect((await timeline(b.id))[0]![2]).toMatch(
      /^Repaired by the merchant \(recipient \(city\); method → Express Air\): placed again/,
    );
  });

  it("an order placed without a service order or account of its own is placed again, not changed", async () => {
    const noId = await orderRow({
      state: "CREATED",
      placedAt: new Date(),
      svcAccountId: h.accountId,
    });
    expect(await repairOrder(h.deps, noId.id, { logisticName: "USPS" }, opts)).toMatchObject({
      ok: true,
      outcome: "placed_again",
    });
    expect((await timeline(noId.id))[0]![2]).toContain(
      `the old one ${noId.orderNumber} is left unpaid`,
    );
    const { row: noAccount } = await createdRow("US", { svcAccountId: null });
    expect(await repairOrder(h.deps, noAccount.id, { logisticName: "USPS" }, opts)).toMatchObject({
      ok: true,
      outcome: "placed_again",
    });
  });

  it("an address edited in Shopify: the shop's address places it again, the flag cleared", async () => {
    const { row: o, svcOrderId } = await createdRow("US", {
      flag: "address_changed",
      recipient: { taxId: "T9" },
    });
    const r = await repairOrder(h.deps, o.id, { useShopAddress: true }, opts);
    expect(r).toMatchObject({ ok: true, outcome: "placed_again" });
    expect(await row(o.id)).toMatchObject({ flag: null, recipient: { taxId: "T9" } });
    const replaced = await prisma.replacedServiceOrder.findMany({ where: { orderId: o.id } });
    expect(replaced.map((x) => [x.svcOrderId, x.orderNumber, x.reason])).toEqual([
      [svcOrderId, o.orderNumber, "the address as now in Shopify"],
    ]);
    // With the flag, a method alone still goes to the same service order.
    const { row: m } = await createdRow("US", { flag: "address_changed" });
    expect(await repairOrder(h.deps, m.id, { logisticName: "USPS" }, opts)).toMatchObject({
      ok: true,
      outcome: "logistics_updated",
    });
  });
});

describe("placeAgainAsNew", () => {
  it("records the replaced service order and clears the old one's ids; attempts count up", async () => {
    const { row: o, svcOrderId } = await createdRow("US", {
      state: "FAILED",
      placeAttempt: 2,
      shipmentOrderId: "SH-1",
      payId: "P-1",
      amount: "12.00",
      payRequestedAt: new Date(),
      reasonCode: "intercepted",
      reasonMessage: "x",
      flag: "address_changed",
      recipient: { city: "Lyon" },
    });
    const long = "why ".repeat(200);
    const r = await placeAgainAsNew(h.deps, o.id, { reason: long });
    const base = orderNumberFor(SHOP, o.shopifyOrderId);
    expect(r).toEqual({
      ok: true,
      outcome: "placed_again",
      message: `Placed again as a new service order (${base}-R3).`,
    });
    expect(await row(o.id)).toMatchObject({
      placeAttempt: 3,
      orderNumber: `${base}-R3`,
      svcOrderId: null,
      shipmentOrderId: null,
      payId: null,
      amount: null,
      paymentBatchId: null,
      placedAt: null,
      payRequestedAt: null,
      state: "RECEIVED",
      reasonCode: null,
      reasonMessage: null,
      flag: null,
      recipient: { city: "Lyon" },
      logisticName: null,
      shippingCost: null,
    });
    const replaced = await prisma.replacedServiceOrder.findMany({ where: { orderId: o.id } });
    expect(replaced).toHaveLength(1);
    expect(replaced[0]).toMatchObject({ svcOrderId, orderNumber: o.orderNumber });
    expect(replaced[0]!.reason).toBe(long.slice(0, 500));
  });

  it("refuses a paid or paying order", async () => {
    for (const state of ["PAID", "PAYING", "DELIVERED"]) {
      const o = await orderRow({ state, svcOrderId: "SO-1" });
      expect(await placeAgainAsNew(h.deps, o.id, { reason: "test" })).toEqual({
        ok: false,
        error: "The order is paid or being paid: it can no longer be placed again.",
      });
      expect(await row(o.id)).toMatchObject({ state, svcOrderId: "SO-1", placeAttempt: 0 });
      expect(await prisma.replacedServiceOrder.count({ where: { orderId: o.id } })).toBe(0);
      expect(await timeline(o.id)).toEqual([]);
      expect(await placeJobs(o.id)).toEqual([]);
    }
  });

  it("suffixed numbers stay within the contract's 50 characters", () => {
    expect(replacementNumber("shop-abc123-1001", 2)).toBe("shop-abc123-1001-R2");
    const long = "x".repeat(50);
    expect(replacementNumber(long, 12)).toBe(`${"x".repeat(46)}-R12`);
    expect(replacementNumber("y".repeat(48), 1)).toBe(`${"y".repeat(47)}-R1`);
  });
});
