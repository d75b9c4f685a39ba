/**
 * What a create at the service leaves on the order (app/fulfilment/place/attempt.server.ts), read
 * from each reply the contract allows: a created order with its id, amount and parent shipment;
 * one kept without an id, noted with the service's reasons; one found by its number after an
 * unknown outcome, by whichever id field the record carries.
 */
import { describe, expect, it } from "vitest";
import { fromCreation, fromExisting } from "../../app/fulfilment/place/attempt.server";
import type { OrderCreation, OrderRecord } from "../../app/svc/order-shapes";

const creation = (o: Partial<OrderCreation>) => o as OrderCreation;
const record = (o: Partial<OrderRecord>) => o as OrderRecord;

describe("a created order", () => {
  it("keeps the service's id, amount and parent shipment, with no note", () => {
    expect(
      fromCreation(
        creation({
          orderId: "SO-1" as OrderCreation["orderId"],
          orderAmount: "12.30" as OrderCreation["orderAmount"],
          shipmentOrderId: "SH-9",
          interceptOrderReasons: [{ code: 1, message: "ignored when the order has its id" }],
        }),
      ),
    ).toEqual({ svcOrderId: "SO-1", amount: "12.30", shipmentOrderId: "SH-9", note: "" });
  });

  it("without an id: the service's reasons, empty ones left out, as the note", () => {
    expect(
      fromCreation(
        creation({
          interceptOrderReasons: [
            { code: 1, message: "shop products not connected: 7001" },
            { code: 2, message: "" },
            { code: 3, message: "address incomplete" },
          ],
        }),
      ),
    ).toEqual({
      svcOrderId: null,
      amount: null,
      shipmentOrderId: null,
      note: "shop products not connected: 7001; address incomplete",
    });
    expect(fromCreation(creation({})).note).toBe("");
  });
});

describe("an order found by its number", () => {
  it.each([
    ["orderId", { orderId: "SO-2" }],
    ["svcOrderId", { svcOrderId: "SO-2" }],
  ])("takes its id from %s, and says how it was found", (_, ids) => {
    expect(
      fromExisting(record({ ...ids, orderAmount: "5.00" as OrderRecord["orderAmount"] })),
    ).toEqual({
      svcOrderId: "SO-2",
      amount: "5.00",
      shipmentOrderId: null,
      note: "found by its number after an unknown outcome",
    });
    expect(fromExisting(record({})).svcOrderId).toBeNull();
  });
});
