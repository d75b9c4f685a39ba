/**
 * Writing a parcel to the shop after a restart, the two decisions on their own: which of the
 * shop's fulfilments were written before (same tracking number, not cancelled), and what of the
 * parcel's lines they still lack, also when Shopify does not say a line's quantity. The whole
 * path against the simulators is in track-flow.test.ts ("a fulfilment found in the shop").
 */
import { describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import {
  stillToWrite,
  writeFulfilment,
  writtenBefore,
} from "../../app/fulfilment/track/shop-write.server";
import type { FulfilmentDeps } from "../../app/orders/deps.server";
import type { ShopifyFulfillmentGid, ShopifyLineItemGid } from "../../app/shop/ids";

const fid = (n: number) => `gid://shopify/Fulfillment/${n}` as ShopifyFulfillmentGid;
const lid = (n: number) => `gid://shopify/LineItem/${n}` as ShopifyLineItemGid;
const fulfilment = (n: number, status: string, ...numbers: string[]) => ({
  id: fid(n),
  status,
  createdAt: "2026-11-28T10:00:00Z",
  tracking: numbers.map((number) => ({ number, url: null, company: null })),
});

describe("the shop's fulfilments written before", () => {
  it("are those with the parcel's tracking number among theirs, cancelled ones left out", () => {
    const found = writtenBefore(
      [
        fulfilment(1, "SUCCESS", "OTHER"),
        fulfilment(2, "CANCELLED", "T-1"),
        fulfilment(3, "SUCCESS", "EARLIER", "T-1"),
        fulfilment(4, "OPEN", "T-1"),
      ],
      "T-1",
    );
    expect(found.map((f) => f.id)).toEqual([fid(3), fid(4)]);
    expect(writtenBefore([fulfilment(5, "SUCCESS", "T-1")], "T-2")).toEqual([]);
  });
});

describe("what a parcel still lacks in the shop", () => {
  const gateway = (
    lines: Record<string, { lineItemId: ShopifyLineItemGid; quantity: number | null }[] | null>,
  ) => ({
    getFulfillmentLines: async (id: ShopifyFulfillmentGid) => lines[id] ?? null,
  });

  it("subtracts what each fulfilment holds, by line", async () => {
    const g = gateway({
      [fid(1)]: [{ lineItemId: lid(10), quantity: 2 }],
      [fid(2)]: [
        { lineItemId: lid(10), quantity: 1 },
        { lineItemId: lid(11), quantity: 1 },
      ],
    });
    const lines = [
      { lineItemId: "10", quantity: 5 },
      { lineItemId: "11", quantity: 1 },
      { lineItemId: "12", quantity: 4 },
    ];
    expect(
      await stillToWrite(g, [fulfilment(1, "SUCCESS", "T"), fulfilment(2, "SUCCESS", "T")], lines),
    ).toEqual([
      { lineItemId: "10", quantity: 2 },
      { lineItemId: "12", quantity: 4 },
    ]);
  });

  it("counts a line whose quantity Shopify does not say as written whole, and only that line", async () => {
    const g = gateway({ [fid(1)]: [{ lineItemId: lid(10), quantity: null }] });
    const lines = [
      { lineItemId: "10", quantity: 5 },
      { lineItemId: "11", quantity: 1 },
    ];
    expect(await stillToWrite(g, [fulfilment(1, "SUCCESS", "T")], lines)).toEqual([
      { lineItemId: "11", quantity: 1 },
    ]);
    // Written whole means that line's own quantity, not another line's.
    const second = gateway({ [fid(1)]: [{ lineItemId: lid(11), quantity: null }] });
    const small = [
      { lineItemId: "10", quantity: 1 },
      { lineItemId: "11", quantity: 5 },
    ];
    expect(await stillToWrite(second, [fulfilment(1, "SUCCESS", "T")], small)).toEqual([
      { lineItemId: "10", quantity: 1 },
    ]);
    // A line of the fulfilment that is not the parcel's, its quantity unsaid: nothing of it.
    const other = gateway({ [fid(1)]: [{ lineItemId: lid(99), quantity: null }] });
    expect(await stillToWrite(other, [fulfilment(1, "SUCCESS", "T")], lines)).toEqual(lines);
  });

  it("a fulfilment Shopify no longer finds lacks nothing it held", async () => {
    const lines = [{ lineItemId: "10", quantity: 2 }];
    expect(await stillToWrite(gateway({}), [fulfilment(1, "SUCCESS", "T")], lines)).toEqual(lines);
  });
});

describe("a parcel whose row is gone while its fulfilment was written", () => {
  it("fails the write with the parcel named, recording nothing of it", async () => {
    const order = await prisma.shopOrder.create({
      data: {
        shopDomain: "gone-parcel.myshopify.com",
        shopifyOrderId: "8801",
        orderNumber: `gone-parcel-${Date.now()}`,
        state: "PAID",
        lines: {
          create: [{ shopifyLineItemId: "77", quantity: 1, title: "Lamp", unitPrice: "9.00" }],
        },
      },
    });
    const shipment = await prisma.shipment.create({
      data: { orderId: order.id, svcOrderId: "SO-gone", trackNumber: "GONE-1" },
    });
    // The shop takes the fulfilment; meanwhile the parcel's row is deleted (a shop redacted).
    const gateway = {
      getFulfillmentState: async () => ({ fulfillments: [], fulfillmentOrders: [] }),
      createFulfillment: async () => {
        await prisma.shipment.delete({ where: { id: shipment.id } });
        return [{ id: fid(9) }];
      },
    } as unknown as Parameters<typeof writeFulfilment>[1];
    const deps = { prisma, clock: { now: () => Date.now() } } as unknown as FulfilmentDeps;
    await expect(
      writeFulfilment(deps, gateway, order, shipment, {
        tracking: { number: "GONE-1", url: null, company: null },
        lines: [{ lineItemId: "77", quantity: 1 }],
        notifyCustomer: false,
      }),
    ).rejects.toThrow(`shipment ${shipment.id} is gone`);
    const line = await prisma.shopOrderLine.findFirstOrThrow({ where: { orderId: order.id } });
    expect(line.fulfilledQuantity).toBe(0);
    expect(await prisma.timelineEntry.count({ where: { orderId: order.id } })).toBe(0);
  });
});
