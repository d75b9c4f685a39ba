/**
 * The pure half of tracking: which order ids a service event names (whatever shape its params
 * take), and whether a service record tells an order something new (what decides whether a
 * track job is queued at all).
 */
import { describe, expect, it } from "vitest";
import { hasNews } from "../../app/fulfilment/track/index.server";
import { idsFromParams } from "../../app/svc/event-readers";
import type { OrderRecord } from "../../app/svc/order-shapes";

describe("idsFromParams", () => {
  it("takes every order id, number and code, at any of the keys' spellings", () => {
    expect(
      idsFromParams({
        orderId: "SO1",
        svcOrderId: "SO2",
        orderNumber: "shop-1",
        shipmentOrderIds: ["SP1", "SP2"],
        orderCode: "C1",
        parentOrderCodes: ["C2"],
        platformOrderNumbers: ["N1"],
        orderIds: "SO3",
        OrderId: "SO4",
      }).sort(),
    ).toEqual(["C1", "C2", "N1", "SO1", "SO2", "SO3", "SO4", "SP1", "SP2", "shop-1"].sort());
  });

  it("ignores keys that only look alike, and values that are not ids", () => {
    expect(
      idsFromParams({
        trackNumber: "T1",
        customerId: "U1",
        xorderId: "X1",
        orderIdx: "X2",
        order: "X3",
        orderNum: "X4",
        orderId: true,
        orderNumber: null,
        orderCode: undefined,
      }),
    ).toEqual([]);
  });

  it("reads numbers as text, trims, drops blank and over-long values, and de-duplicates", () => {
    expect(idsFromParams({ orderId: 1234 })).toEqual(["1234"]);
    expect(idsFromParams({ orderId: "  SO9  ", svcOrderId: "SO9", orderNumber: "   " })).toEqual([
      "SO9",
    ]);
    expect(idsFromParams({ orderId: "a".repeat(200) })).toEqual(["a".repeat(200)]);
    expect(idsFromParams({ orderId: "a".repeat(201) })).toEqual([]);
  });

  it("looks three levels deep, not deeper, and skips the line and track-event lists", () => {
    expect(idsFromParams({ a: { b: { orderId: "DEEP3" } } })).toEqual(["DEEP3"]);
    expect(idsFromParams({ a: { b: { c: { orderId: "DEEP4" } } } })).toEqual([]);
    expect(idsFromParams({ list: [{ orderId: "IN-LIST" }] })).toEqual(["IN-LIST"]);
    expect(idsFromParams({ orderIds: [["NESTED"]] })).toEqual(["NESTED"]);
    expect(
      idsFromParams({
        orderId: "SO1",
        orderItems: [{ orderId: "LINE1" }],
        productList: [{ orderNumber: "LINE2" }],
        logisticsTrackEvents: [{ orderId: "EVT" }],
      }),
    ).toEqual(["SO1"]);
  });

  it("parses params sent as JSON text; malformed, empty and scalar payloads name nothing", () => {
    expect(
      idsFromParams(JSON.stringify({ orderId: "SO7", list: [{ orderNumber: "n7" }] })),
    ).toEqual(["SO7", "n7"]);
    expect(idsFromParams("{not json")).toEqual([]);
    expect(idsFromParams("")).toEqual([]);
    expect(idsFromParams(null)).toEqual([]);
    expect(idsFromParams(undefined)).toEqual([]);
    expect(idsFromParams({})).toEqual([]);
    expect(idsFromParams([])).toEqual([]);
    expect(idsFromParams(42)).toEqual([]);
    expect(idsFromParams("SO1")).toEqual([]);
  });
});

const rec = (r: Partial<OrderRecord>): OrderRecord => ({ productList: [], ...r }) as OrderRecord;
const parcel = (
  s: Partial<{
    svcOrderId: string;
    trackNumber: string | null;
    writtenTrackNumber: string | null;
    shopifyFulfillmentId: string | null;
    deliveredAt: Date | null;
  }>,
) => ({
  svcOrderId: "SO1",
  trackNumber: "T1",
  writtenTrackNumber: "T1",
  shopifyFulfillmentId: "gid://shopify/Fulfillment/1",
  deliveredAt: null,
  ...s,
});

describe("hasNews", () => {
  const order = { svcOrderId: "SO1", shipments: [] };

  it("an order's own record without tracking is no news; an unknown split child is", () => {
    expect(hasNews(order, rec({ orderId: "SO1", orderStatus: "UNSHIPPED" }))).toBe(false);
    expect(hasNews(order, rec({ orderId: "SO1", trackNumber: "   " }))).toBe(false);
    expect(hasNews(order, rec({ orderId: "SO1S" }))).toBe(true);
    expect(hasNews(order, rec({ svcOrderId: "SO1S" }))).toBe(true);
    // A child already remembered, still without tracking: nothing new.
    const withChild = { svcOrderId: "SO1", shipments: [parcel({ svcOrderId: "SO1S" })] };
    expect(hasNews(withChild, rec({ orderId: "SO1S" }))).toBe(false);
  });

  it("tracking not yet written, or a different number, is news; the same number is not", () => {
    expect(hasNews(order, rec({ orderId: "SO1", trackNumber: "T1" }))).toBe(true);
    expect(hasNews(order, rec({ svcOrderId: "SO1", trackNumber: "T1" }))).toBe(true);
    const pending = { svcOrderId: "SO1", shipments: [parcel({ shopifyFulfillmentId: null })] };
    expect(hasNews(pending, rec({ orderId: "SO1", trackNumber: "T1" }))).toBe(true);
    const written = { svcOrderId: "SO1", shipments: [parcel({})] };
    expect(hasNews(written, rec({ orderId: "SO1", trackNumber: "T2" }))).toBe(true);
    expect(hasNews(written, rec({ orderId: "SO1", trackNumber: " T1 " }))).toBe(false);
    expect(
      hasNews(written, rec({ orderId: "SO1", trackNumber: "T1", orderStatus: "SHIPPED" })),
    ).toBe(false);
    // Another parcel's record is matched by its own id.
    const two = { svcOrderId: "SO1", shipments: [parcel({}), parcel({ svcOrderId: "SO2" })] };
    expect(hasNews(two, rec({ orderId: "SO2", trackNumber: "T1" }))).toBe(false);
    expect(hasNews(two, rec({ orderId: "SO2", trackNumber: "T9" }))).toBe(true);
  });

  it("delivered is news once: not when the parcel is already delivered", () => {
    const written = { svcOrderId: "SO1", shipments: [parcel({})] };
    expect(
      hasNews(written, rec({ orderId: "SO1", trackNumber: "T1", orderStatus: "DELIVERED" })),
    ).toBe(true);
    const delivered = { svcOrderId: "SO1", shipments: [parcel({ deliveredAt: new Date() })] };
    expect(
      hasNews(delivered, rec({ orderId: "SO1", trackNumber: "T1", orderStatus: "DELIVERED" })),
    ).toBe(false);
  });
});
