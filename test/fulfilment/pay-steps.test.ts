/**
 * What the payment steps share (app/fulfilment/pay/context.server.ts), against the service
 * simulator: a resumed paying batch is paid only when the service says every order is paid
 * (an order it shows created or in the cart is not), and a batch's run takes only its orders
 * still being paid (an order of the batch that failed meanwhile is left alone).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ServiceSim, startServiceSim } from "../sim/service/index";
import { batchState, calls, leftAt, payShop, prisma, reload, svcOrder } from "./pay-helpers";

let svc: ServiceSim;
beforeAll(async () => {
  svc = await startServiceSim();
});
afterAll(async () => svc?.close());
afterEach(() => svc.clearFaults());

describe("a resumed paying batch", () => {
  it.each([["CREATED"], ["IN_CART"]])(
    "whose order the service shows %s is not marked paid",
    async (status) => {
      const shop = await payShop(svc);
      const o = await svcOrder(svc, shop);
      if (status === "IN_CART") await shop.client.orders.addCart([o.svcOrderId!]);
      const [rec] = await shop.client.orders.getOrdersDetail([o.svcOrderId!]);
      expect(rec!.orderStatus).toBe(status);
      const batch = await leftAt(shop, "paying", [o.id], {
        shipmentOrderId: "SH-UNKNOWN-2",
        amount: o.amount,
      });
      expect((await shop.run()).ordersPaid).toBe(0);
      const r = await reload(o);
      expect(r.state).not.toBe("PAID");
      expect(r.state).toBe("FAILED");
      expect(await batchState(batch.id)).toBe("failed");
    },
  );
});

describe("a batch's orders", () => {
  it("an order of the batch no longer being paid is left out of its run", async () => {
    const shop = await payShop(svc);
    const paying = await svcOrder(svc, shop);
    const failed = await svcOrder(svc, shop, {
      row: { state: "FAILED", reasonCode: "payment_failed" },
    });
    const batch = await leftAt(shop, "open", [paying.id]);
    await prisma.shopOrder.update({
      where: { id: failed.id },
      data: { paymentBatchId: batch.id },
    });
    expect(await shop.run()).toMatchObject({ batchesPaid: 1, ordersPaid: 1 });
    expect((await reload(paying)).state).toBe("PAID");
    expect((await reload(failed)).state).toBe("FAILED");
    expect(calls(svc, shop, "addCart")).toBe(1);
    const [rec] = await shop.client.orders.getOrdersDetail([failed.svcOrderId!]);
    expect(rec!.orderStatus).toBe("CREATED");
  });
});
