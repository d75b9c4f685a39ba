/**
 * The order page's Repair card (app/repair/page.server.ts) against the shop and service
 * simulators over HTTP and a real database: the address as it will be sent (the shop's, with the
 * merchant's corrections over it), the customs ids the destination needs, the methods quoted for
 * the order's route or the real reason there is none, the service orders it replaced; and the
 * card's two actions (the fields the merchant edited, the shop's address again).
 */
import type { Prisma } from "@prisma/client";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { orderNumberFor } from "../../app/orders/model";
import { repairAction, repairCardData } from "../../app/repair/page.server";
import { updateSettings } from "../../app/settings.server";
import type { SimProduct } from "../sim/shop/server";
import { type Harness, prisma, startHarness } from "../fulfilment/harness";

const SHOP = "repair-page.myshopify.com";

const US = {
  firstName: "Ada",
  lastName: "Lovelace",
  address1: "1 Main St",
  address2: "Apt 4",
  city: "Springfield",
  province: "Illinois",
  provinceCode: "IL",
  zip: "62701",
  country: "United States",
  countryCode: "US",
  phone: "+15555550100",
};

let h: Harness;
let lamp: SimProduct;
let vid: string;
let seq = 0;

beforeAll(async () => {
  h = await startHarness({ shopDomain: SHOP });
  lamp = await h.connectedProduct("Card Lamp", "12.00");
  vid = (await prisma.productConnection.findFirstOrThrow({ where: { shopDomain: SHOP } })).svcVid;
});
afterAll(async () => h?.close());
beforeEach(() => h.svc.clearFaults());

type Lines = "matched" | "mixed" | "unmatched" | "none";

/** An order placed in the shop (to `address`) and its row here, with `lines`. */
async function cardRow(
  o: {
    address?: Record<string, string | null> | null;
    email?: string | null;
    lines?: Lines;
    data?: Partial<Prisma.ShopOrderUncheckedCreateInput>;
    shopDomain?: string;
    shopifyOrderId?: string;
  } = {},
) {
  const shopDomain = o.shopDomain ?? SHOP;
  let shopifyOrderId = o.shopifyOrderId;
  if (!shopifyOrderId) {
    const placed = h.shop.placeOrder(SHOP, {
      lines: [{ variantId: lamp.variants[0]!.id, quantity: 2 }],
      // Shopify gives null for a field the address lacks.
      shippingAddress: (o.address === undefined ? US : o.address) as never,
      email: o.email === undefined ? "ada@example.com" : o.email,
    });
    shopifyOrderId = String(placed.legacyId);
  }
  const line = (n: number, svcVid: string | null) => ({
    shopifyLineItemId: String(n),
    title: "Card Lamp",
    quantity: 2,
    unitPrice: "12.00",
    svcVid,
  });
  const lines = {
    matched: [line(1, vid)],
    mixed: [line(1, vid), line(2, null)],
    unmatched: [line(1, null)],
    none: [],
  }[o.lines ?? "matched"];
  return prisma.shopOrder.create({
    data: {
      shopDomain,
      shopifyOrderId,
      orderNumber: `${orderNumberFor(shopDomain, shopifyOrderId)}-${++seq}`,
      state: "FAILED",
      logisticName: "SvcPacket Ordinary",
      ...o.data,
      lines: { create: lines },
    },
  });
}

const freightCalls = () => h.svc.calls({ op: "freightCalculate", accountId: h.simAccountId });

describe("repairCardData", () => {
  it("nothing for an unknown order or another shop's", async () => {
    expect(await repairCardData(prisma, SHOP, "no-such-order")).toBeNull();
    const o = await cardRow();
    expect(await repairCardData(prisma, "other.myshopify.com", o.id)).toBeNull();
  });

  it("a paid, cancelled or paying order is not repairable; the replaced service orders are listed, oldest first", async () => {
    for (const state of ["PAID", "SHIPPED", "FULFILLED", "DELIVERED", "CANCELLED", "PAYING"]) {
      const o = await cardRow({ data: { state } });
      const first = new Date("2026-11-01T10:00:00.000Z");
      const second = new Date("2026-11-02T10:00:00.000Z");
      await prisma.replacedServiceOrder.create({
        data: {
          orderId: o.id,
          svcOrderId: null,
          orderNumber: "n-R1",
          reason: "b",
          createdAt: second,
        },
      });
      await prisma.replacedServiceOrder.create({
        data: {
          orderId: o.id,
          svcOrderId: "SO-1",
          orderNumber: "n",
          reason: "a",
          createdAt: first,
        },
      });
      expect(await repairCardData(prisma, SHOP, o.id)).toEqual({
        repairable: false,
        replaced: [
          { svcOrderId: "SO-1", orderNumber: "n", reason: "a", at: first.toISOString() },
          { svcOrderId: null, orderNumber: "n-R1", reason: "b", at: second.toISOString() },
        ],
      });
    }
  });

  it("the whole card: the shop's address with the corrections over it, the methods quoted for the route", async () => {
    const o = await cardRow({
      data: {
        recipient: { city: "Chicago", taxId: "T-1" },
        logisticName: "USPS",
        svcOrderId: "SO-CARD",
        flag: "address_changed",
      },
    });
    const card = await repairCardData(prisma, SHOP, o.id);
    expect(card).toEqual({
      repairable: true,
      replaced: [],
      address: {
        name: "Ada Lovelace",
        address1: "1 Main St",
        address2: "Apt 4",
        city: "Chicago",
        province: "Illinois",
        zip: "62701",
        countryCode: "US",
        phone: "+15555550100",
        email: "ada@example.com",
        taxId: "T-1",
      },
      addressError: null,
      customs: {},
      country: "US",
      methods: {
        options: [
          { logisticName: "USPS", priceUsd: "4.79", minDays: 2, maxDays: 5 },
          { logisticName: "SvcPacket Ordinary", priceUsd: "5.99", minDays: 7, maxDays: 12 },
          { logisticName: "SvcPacket Sensitive", priceUsd: "7.19", minDays: 8, maxDays: 15 },
          { logisticName: "Express Air", priceUsd: "17.99", minDays: 3, maxDays: 5 },
        ],
        error: null,
      },
      current: "USPS",
      atService: true,
      addressChanged: true,
    });
    const call = freightCalls().at(-1)!;
    expect(call.body).toMatchObject({
      startCountryCode: "CN",
      endCountryCode: "US",
      products: [{ vid, quantity: 2 }],
    });
  });

  it("fields the shop's address lacks are empty; the customs ids of the destination are named", async () => {
    const o = await cardRow({
      address: {
        firstName: "Joao",
        lastName: null,
        company: null,
        address1: null,
        address2: null,
        city: null,
        province: null,
        provinceCode: null,
        zip: null,
        country: null,
        countryCode: "BR",
        phone: null,
      },
      email: null,
      data: { placedAt: null },
    });
    const card = await repairCardData(prisma, SHOP, o.id);
    expect(card).toMatchObject({
      address: {
        name: "Joao",
        address1: "",
        address2: "",
        city: "",
        province: "",
        zip: "",
        countryCode: "BR",
        phone: "",
        email: "",
      },
      customs: { taxId: "CPF or CNPJ", houseNumber: "house number" },
      country: "BR",
      current: "SvcPacket Ordinary",
      atService: false,
      addressChanged: false,
    });
    const placed = await cardRow({ data: { placedAt: new Date(), flag: "cancelled_after_paid" } });
    expect(await repairCardData(prisma, SHOP, placed.id)).toMatchObject({
      atService: true,
      addressChanged: false,
    });
  });

  it("an order the shop no longer has: the corrections alone", async () => {
    const o = await cardRow({
      shopifyOrderId: "99999999",
      data: { recipient: { city: "Lyon", countryCode: "FR", name: "Bea" } },
    });
    expect(await repairCardData(prisma, SHOP, o.id)).toMatchObject({
      address: { city: "Lyon", countryCode: "FR", name: "Bea" },
      addressError: null,
      country: "FR",
      methods: { error: null },
    });
  });

  it("an order without a shipping address: the corrections alone, no error", async () => {
    const o = await cardRow({ address: null, data: { recipient: { taxId: "T-2" } } });
    expect(await repairCardData(prisma, SHOP, o.id)).toMatchObject({
      address: { taxId: "T-2" },
      addressError: null,
      country: "",
    });
  });

  it("a shop that cannot be read: the corrections can still be entered; no account, no quote", async () => {
    const shop = "repair-page-unread.myshopify.com";
    const o = await cardRow({
      shopDomain: shop,
      shopifyOrderId: "123",
      data: { recipient: { countryCode: "DE", zip: "10115" } },
    });
    // Strict: no field of the address is there but the corrections.
    expect(await repairCardData(prisma, shop, o.id)).toStrictEqual({
      repairable: true,
      replaced: [],
      address: { countryCode: "DE", zip: "10115" },
      addressError: "The shop's address could not be read now; corrections can still be entered.",
      customs: {},
      country: "DE",
      methods: { options: [], error: "No quote: connect a service account in Settings first." },
      current: "SvcPacket Ordinary",
      atService: false,
      addressChanged: false,
    });
  });

  it("the real reason there is no quote", async () => {
    const methods = async (o: Parameters<typeof cardRow>[0]) =>
      (await repairCardData(prisma, SHOP, (await cardRow(o)).id))!.methods!;
    expect(await methods({ lines: "none" })).toEqual({
      options: [],
      error: "No quote yet: the order's products are looked up when it is placed.",
    });
    expect(await methods({ lines: "unmatched" })).toEqual({
      options: [],
      error: "No quote: no product of this order is matched to the catalog (see Products).",
    });
    expect(await methods({ address: { ...US, country: null, countryCode: null } })).toEqual({
      options: [],
      error: "No quote: enter the two-letter country code (like US or DE).",
    });
    // The order's own account, even when the shop's is another.
    expect((await methods({ data: { svcAccountId: "gone-account" } })).error).toMatch(
      /^No quote: /,
    );
    h.svc.setFaults({ rate5xx: 1, ops: ["freightCalculate"] });
    const down = await methods({ address: { ...US, countryCode: "CA", province: "Ontario" } });
    h.svc.clearFaults();
    expect(down.options).toEqual([]);
    expect(down.error).toMatch(/^No quote: .+\(SvcServerError\)$/);
  });

  it("the route starts where the destination's shipping rule ships from; only matched lines are quoted", async () => {
    await updateSettings(prisma, SHOP, {
      shippingRules: [{ to: "GB", from: "DE", strategy: "cheapest" }],
    });
    try {
      const gb = await cardRow({
        address: { ...US, countryCode: "GB", province: "" },
        lines: "mixed",
      });
      const card = await repairCardData(prisma, SHOP, gb.id);
      expect(card!.methods!.error).toBeNull();
      expect(freightCalls().at(-1)!.body).toMatchObject({
        startCountryCode: "DE",
        endCountryCode: "GB",
        products: [{ vid, quantity: 2 }],
      });
      const jp = await cardRow({ address: { ...US, countryCode: "JP", province: "Tokyo" } });
      await repairCardData(prisma, SHOP, jp.id);
      expect(freightCalls().at(-1)!.body).toMatchObject({
        startCountryCode: "CN",
        endCountryCode: "JP",
      });
    } finally {
      await updateSettings(prisma, SHOP, { shippingRules: [] });
    }
  });
});

describe("repairAction", () => {
  const form = (fields: Record<string, string>) => {
    const f = new FormData();
    for (const [k, v] of Object.entries(fields)) f.set(k, v);
    return f;
  };

  it("saves the fields the merchant edited over the stored corrections, trimmed", async () => {
    const o = await cardRow({ data: { recipient: { taxId: "T-1" } } });
    const r = await repairAction(
      prisma,
      SHOP,
      o.id,
      form({
        intent: "repair",
        name: "Bea Smith",
        orig_name: "Ada Lovelace",
        city: "Springfield ",
        orig_city: " Springfield",
        zip: " 62702 ",
        orig_zip: "62701",
        phone: "",
        address2: " ",
        logisticName: " ",
      }),
    );
    expect(r).toEqual({
      ok: true,
      intent: "repair",
      message: "Saved: the order is placed with the corrections now.",
    });
    const row = await prisma.shopOrder.findUniqueOrThrow({ where: { id: o.id } });
    expect(row.recipient).toEqual({ taxId: "T-1", name: "Bea Smith", zip: "62702" });
    expect([row.state, row.logisticName]).toEqual(["RECEIVED", "SvcPacket Ordinary"]);
  });

  it("a new method alone", async () => {
    const o = await cardRow();
    const r = await repairAction(
      prisma,
      SHOP,
      o.id,
      form({
        intent: "repair",
        city: "Springfield",
        orig_city: "Springfield",
        logisticName: " USPS ",
      }),
    );
    expect(r).toMatchObject({ ok: true, intent: "repair" });
    const row = await prisma.shopOrder.findUniqueOrThrow({ where: { id: o.id } });
    expect([row.recipient, row.logisticName]).toEqual([{}, "USPS"]);
  });

  it("the shop's address again keeps only the customs ids", async () => {
    const o = await cardRow({ data: { recipient: { city: "Lyon", taxId: "T-1" } } });
    const r = await repairAction(
      prisma,
      SHOP,
      o.id,
      form({ intent: "repair-shop-address", city: "Paris", orig_city: "Lyon" }),
    );
    expect(r).toEqual({
      ok: true,
      intent: "repair-shop-address",
      message: "Saved: the order is placed with the corrections now.",
    });
    const row = await prisma.shopOrder.findUniqueOrThrow({ where: { id: o.id } });
    expect(row.recipient).toEqual({ taxId: "T-1" });
  });

  it("a refusal is the form's error, with the field errors", async () => {
    const o = await cardRow();
    expect(
      await repairAction(prisma, SHOP, o.id, form({ intent: "repair", email: "nope" })),
    ).toEqual({
      ok: false,
      intent: "repair",
      errors: { form: "Correct the fields shown.", email: "Email: not an address" },
    });
    expect(
      await repairAction(prisma, SHOP, o.id, form({ intent: "repair", city: "x", orig_city: "x" })),
    ).toEqual({
      ok: false,
      intent: "repair",
      errors: { form: "Nothing changed: edit the recipient or choose another method." },
    });
    expect(
      await repairAction(prisma, SHOP, "no-such-order", form({ intent: "repair", city: "Rome" })),
    ).toEqual({ ok: false, intent: "repair", errors: { form: "Order not found." } });
  });
});
