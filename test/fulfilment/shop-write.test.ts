/**
 * Writing a parcel to the shop after a restart, the two decisions on their own: which of the
 * shop's fulfilments were written before (same tracking number, not cancelled), and what of the
 * parcel's lines they still lack, also when Shopify does not say a line's quantity. The whole
 * path against the simulators is in track-flow.test.ts ("a fulfilment found in the shop").
 */
import { describe, expect, it } from "vitest";
import { stillToWrite, writtenBefore } from "../../app/fulfilment/track/shop-write.server";
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
