/**
 * The last traps in placing (issue 35), against the shop and service simulators over HTTP and a
 * real database: warehouse modes that need a label after payment are refused and hold orders
 * before they are created; mixed carts follow the unconnected-lines setting (hold, the
 * connected lines only, or every line); IOSS goes to EU destinations only; a missing province
 * is never filled with the city (held where the destination needs one, left out elsewhere).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  missingProvince,
  placeOrder,
  receiveShopOrder,
} from "../../app/fulfilment/place/index.server";
import { JOB } from "../../app/orders/schedule.server";
import {
  getSettings,
  LABEL_MODE_REFUSED,
  labelModeReason,
  type ShopSettings,
  updateSettings,
} from "../../app/settings.server";
import { EU_MEMBER_STATES, isEuMember, requiredSubdivision } from "../../app/shipping/destinations";
import { REGIONS } from "../../app/shipping/rules";
import type { ShopOrder as ShopifyOrder } from "../../app/shop/gateway.server";
import type { SimProduct } from "../sim/shop/server";
import { type Harness, prisma, startHarness } from "./harness";

const SHOP = "place-traps.myshopify.com";

const BASE: Partial<ShopSettings> = {
  trigger: "orders/paid",
  logisticName: "SvcPacket Ordinary",
  fromCountryCode: "CN",
  payBatchWindowSeconds: 0,
  paused: false,
  unconnectedLines: "hold",
  reviewWindowMinutes: 0,
  autoPay: true,
  shopLogisticsType: 2,
  storageId: "",
  iossType: 1,
  iossNumber: "",
};

let h: Harness;
let mug: SimProduct;
let cap: SimProduct;

beforeAll(async () => {
  h = await startHarness({ shopDomain: SHOP, settings: BASE });
  mug = await h.connectedProduct("Trap Mug", "9.50");
  cap = await h.connectedProduct("Trap Cap", "4.25");
});
afterAll(async () => h?.close());

beforeEach(async () => {
  await updateSettings(prisma, SHOP, BASE);
  await prisma.job.deleteMany({ where: { kind: JOB.pay } });
});

type Address = NonNullable<ShopifyOrder["shippingAddress"]>;

const address = (o: Partial<Address> = {}): Address => ({
  firstName: "Ada",
  lastName: "Lovelace",
  company: null,
  address1: "1 Main St",
  address2: null,
  city: "Springfield",
  province: "Illinois",
  provinceCode: "IL",
  zip: "62701",
  country: "United States",
  countryCode: "US",
  phone: null,
  ...o,
});

/** An order placed in the shop simulator and received from its webhook payload. */
async function received(
  lines: { product: SimProduct; quantity: number }[],
  shippingAddress?: Address,
) {
  const placed = h.shop.placeOrder(SHOP, {
    lines: lines.map((l) => ({ variantId: l.product.variants[0]!.id, quantity: l.quantity })),
    ...(shippingAddress ? { shippingAddress: shippingAddress as never } : {}),
  });
  const r = await receiveShopOrder(prisma, {
    shopDomain: SHOP,
    topic: "orders/paid",
    payload: h.shop.orderWebhookPayload(SHOP, placed.id),
    nowMs: h.svc.clock.now(),
  });
  expect(r.created).toBe(true);
  return { placed, orderId: r.orderId! };
}

const row = (id: string) =>
  prisma.shopOrder.findUniqueOrThrow({
    where: { id },
    include: {
      lines: { orderBy: { shopifyLineItemId: "asc" } },
      timeline: { orderBy: { id: "asc" } },
    },
  });

const creates = () => h.svc.calls({ op: "createOrderV3", accountId: h.simAccountId });
const lastBody = () => creates().at(-1)!.body as Record<string, unknown>;

/** Settings as an older version of the app may have stored them (no validation on the way). */
async function storeRaw(patch: Record<string, unknown>) {
  const shop = await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } });
  await prisma.shop.update({
    where: { domain: SHOP },
    data: { settings: { ...(shop.settings as object), ...patch } as object },
  });
}

// ---------------------------------------------------------------------------------------------

describe("warehouse modes that need a label after payment (1 and 3)", () => {
  it("the settings refuse them with the reason and change nothing; merchant logistics is accepted", async () => {
    for (const mode of [1, "1", 3, "3"]) {
      const r = await updateSettings(prisma, SHOP, {
        shopLogisticsType: mode,
        storageId: "STG-CN-1",
        reviewWindowMinutes: 5,
      });
      expect(r).toEqual({ ok: false, errors: { shopLogisticsType: LABEL_MODE_REFUSED } });
    }
    expect(LABEL_MODE_REFUSED).toMatch(/label/);
    expect(LABEL_MODE_REFUSED).not.toMatch(/uploadWaybillInfo|shopLogisticsType/);
    const s = await getSettings(prisma, SHOP);
    expect([s.shopLogisticsType, s.storageId, s.reviewWindowMinutes]).toEqual([2, "", 0]);
    expect(await updateSettings(prisma, SHOP, { shopLogisticsType: "2" })).toMatchObject({
      ok: true,
    });
    // A stored mode 1 does not stop the other forms from saving (they do not send the mode).
    await storeRaw({ shopLogisticsType: 1 });
    expect(await updateSettings(prisma, SHOP, { reviewWindowMinutes: 7 })).toMatchObject({
      ok: true,
      settings: { shopLogisticsType: 1, reviewWindowMinutes: 7 },
    });
  });

  it("the reason is said in plain words for modes 1 and 3 only", () => {
    expect(labelModeReason({ shopLogisticsType: 2 })).toBeNull();
    for (const mode of [1, 3]) {
      const why = labelModeReason({ shopLogisticsType: mode });
      expect(why).toMatch(/shipping label/);
      expect(why).toMatch(/Merchant logistics/);
      expect(why).not.toMatch(/uploadWaybillInfo|shopLogisticsType|\b[13]\b/);
    }
  });

  it("a shop still on mode 1 or 3 has its orders held before anything is created; merchant logistics places them", async () => {
    for (const mode of [1, 3]) {
      await storeRaw({ shopLogisticsType: mode, storageId: "STG-CN-1" });
      const { orderId } = await received([{ product: mug, quantity: 1 }]);
      const sent = creates().length;
      expect(await placeOrder(h.deps, orderId)).toEqual({
        outcome: "held",
        reason: "settings_incomplete",
      });
      expect(await placeOrder(h.deps, orderId)).toEqual({
        outcome: "held",
        reason: "settings_incomplete",
      });
      expect(creates()).toHaveLength(sent);
      const r = await row(orderId);
      expect(r).toMatchObject({
        state: "HELD",
        reasonCode: "settings_incomplete",
        reasonMessage: labelModeReason({ shopLogisticsType: mode }),
        svcOrderId: null,
      });
      expect(r.timeline.filter((t) => t.step === "hold")).toHaveLength(1);

      await updateSettings(prisma, SHOP, { shopLogisticsType: 2 });
      expect((await placeOrder(h.deps, orderId)).outcome).toBe("created");
      expect(lastBody().shopLogisticsType).toBe(2);
      expect(lastBody()).not.toHaveProperty("storageId");
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe("mixed carts: lines without a catalog connection", () => {
  it("the setting takes hold, connected or send, and refuses anything else without changing", async () => {
    for (const v of ["hold", "connected", "send"] as const) {
      expect(await updateSettings(prisma, SHOP, { unconnectedLines: v })).toMatchObject({
        ok: true,
        settings: { unconnectedLines: v },
      });
    }
    const bad = await updateSettings(prisma, SHOP, { unconnectedLines: "some", paused: true });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.errors.unconnectedLines).toBe(
      "Choose what happens to orders with lines that are not connected",
    );
    const s = await getSettings(prisma, SHOP);
    expect([s.unconnectedLines, s.paused]).toEqual(["send", false]);
  });

  it("hold: the order waits, nothing is sent", async () => {
    const own = h.unconnectedProduct("Own Stock Hat", "20.00");
    const { orderId } = await received([
      { product: mug, quantity: 1 },
      { product: own, quantity: 1 },
    ]);
    const sent = creates().length;
    expect(await placeOrder(h.deps, orderId)).toEqual({
      outcome: "held",
      reason: "unconnected_lines",
    });
    expect(creates()).toHaveLength(sent);
    expect((await row(orderId)).lines).toHaveLength(2);
  });

  it("connected: only the connected lines go, the others are left to the merchant and named", async () => {
    await updateSettings(prisma, SHOP, { unconnectedLines: "connected" });
    const own = h.unconnectedProduct("Own Stock Scarf", "30.00");
    const plain = h.shop.addProduct(SHOP, {
      title: "Own Plain Card",
      variants: [{ sku: "OWN-PLAIN-1", price: "2.00" }],
    });
    const long = h.unconnectedProduct(`Own Long${" Banner".repeat(60)}`, "3.00");
    const { placed, orderId } = await received([
      { product: mug, quantity: 2 },
      { product: own, quantity: 1 },
      { product: plain, quantity: 1 },
      { product: long, quantity: 1 },
      { product: cap, quantity: 3 },
    ]);
    const result = await placeOrder(h.deps, orderId);
    expect(result.outcome).toBe("created");
    const products = lastBody().products as Array<Record<string, unknown>>;
    const idOf = (p: SimProduct) =>
      String(placed.lineItems.find((l) => l.variantId === p.variants[0]!.id)!.legacyId);
    expect(products.map((p) => p.storeLineItemId).sort()).toEqual([idOf(mug), idOf(cap)].sort());
    expect(products.map((p) => p.quantity).sort()).toEqual([2, 3]);
    const r = await row(orderId);
    // The service has an id for it (every line sent is connected): it is paid as usual.
    expect(r).toMatchObject({ state: "CREATED", reasonCode: null });
    expect(r.svcOrderId).toBeTruthy();
    expect(r.lines.map((l) => l.shopifyLineItemId).sort()).toEqual([idOf(mug), idOf(cap)].sort());
    const note = r.timeline.find((t) => t.message?.includes("not sent to the service"));
    // In line order, the variant's title when it has one, the list cut to 300 characters.
    expect(note).toMatchObject({
      step: "create",
      outcome: "info",
      message: `3 line(s) are not sent to the service: they are not connected to a catalog product, and Settings say to send the connected lines only, so you ship these yourself: ${`Own Stock Scarf (M / Blue); Own Plain Card; ${long.title} (M / Blue)`.slice(0, 300)}.`,
    });
  });

  it("connected, with no connected line at all: held as for hold, nothing sent", async () => {
    await updateSettings(prisma, SHOP, { unconnectedLines: "connected" });
    const own = h.unconnectedProduct("Own Stock Belt", "15.00");
    const { orderId } = await received([{ product: own, quantity: 1 }]);
    const sent = creates().length;
    expect(await placeOrder(h.deps, orderId)).toEqual({
      outcome: "held",
      reason: "unconnected_lines",
    });
    expect(creates()).toHaveLength(sent);
    expect((await row(orderId)).lines).toHaveLength(1);
  });

  it("connected, with every line connected: everything goes, nothing is left out", async () => {
    await updateSettings(prisma, SHOP, { unconnectedLines: "connected" });
    const { orderId } = await received([
      { product: mug, quantity: 1 },
      { product: cap, quantity: 1 },
    ]);
    expect((await placeOrder(h.deps, orderId)).outcome).toBe("created");
    expect(lastBody().products as unknown[]).toHaveLength(2);
    const r = await row(orderId);
    expect(r.lines).toHaveLength(2);
    expect(r.timeline.some((t) => t.message?.includes("not sent to the service"))).toBe(false);
  });

  it("send: every line goes, the service keeps the order until the rest are connected", async () => {
    await updateSettings(prisma, SHOP, { unconnectedLines: "send" });
    const own = h.unconnectedProduct("Own Stock Gloves", "12.00");
    const { orderId } = await received([
      { product: mug, quantity: 1 },
      { product: own, quantity: 1 },
    ]);
    expect(await placeOrder(h.deps, orderId)).toEqual({ outcome: "created", svcOrderId: null });
    expect(lastBody().products as unknown[]).toHaveLength(2);
    const r = await row(orderId);
    expect(r).toMatchObject({ state: "CREATED", reasonCode: "waiting_connection" });
    expect(r.lines).toHaveLength(2);
  });
});

// ---------------------------------------------------------------------------------------------

describe("IOSS goes to EU destinations only", () => {
  it("one list of the 27 member states, the rules' EU region among them", () => {
    expect(EU_MEMBER_STATES).toHaveLength(27);
    expect(new Set(EU_MEMBER_STATES).size).toBe(27);
    expect(REGIONS.EU!.countries).toEqual([...EU_MEMBER_STATES]);
    for (const c of ["DE", "fr", " ie ", "AT", "SK"]) expect(isEuMember(c)).toBe(true);
    for (const c of ["GB", "CH", "NO", "US", "", null, undefined])
      expect(isEuMember(c)).toBe(false);
  });

  it("an order to Germany carries the IOSS settings; to the US and the UK, none", async () => {
    await updateSettings(prisma, SHOP, { iossType: 2, iossNumber: "IM12345678" });
    const de = address({
      city: "Berlin",
      province: null,
      provinceCode: null,
      zip: "10115",
      country: "Germany",
      countryCode: "DE",
    });
    const a = await received([{ product: mug, quantity: 1 }], de);
    expect((await placeOrder(h.deps, a.orderId)).outcome).toBe("created");
    expect(lastBody()).toMatchObject({ iossType: 2, iossNumber: "IM12345678" });

    await updateSettings(prisma, SHOP, { iossType: 3, iossNumber: "SVCIOSS" });
    for (const to of [
      address(),
      address({
        city: "Leeds",
        province: null,
        provinceCode: null,
        country: "United Kingdom",
        countryCode: "GB",
      }),
    ]) {
      const b = await received([{ product: mug, quantity: 1 }], to);
      expect((await placeOrder(h.deps, b.orderId)).outcome).toBe("created");
      expect(lastBody().iossType).toBe(1);
      expect(lastBody()).not.toHaveProperty("iossNumber");
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe("a missing province", () => {
  it("the countries that need one, with the word they use", () => {
    expect(requiredSubdivision("US")).toBe("state");
    expect(requiredSubdivision(" ca ")).toBe("province or territory");
    expect(requiredSubdivision("JP")).toBe("prefecture");
    for (const c of ["DE", "GB", "FR", "", null, undefined])
      expect(requiredSubdivision(c)).toBeNull();
  });

  it("to a country that needs one: held with a plain reason, nothing sent; placed once it is added", async () => {
    const { orderId, placed } = await received(
      [{ product: mug, quantity: 1 }],
      address({ province: null, provinceCode: " " }),
    );
    const sent = creates().length;
    expect(await placeOrder(h.deps, orderId)).toEqual({
      outcome: "held",
      reason: "invalid_address",
    });
    expect(creates()).toHaveLength(sent);
    expect((await row(orderId)).reasonMessage).toBe(
      "The shipping address has no state, and addresses in United States need one. Add it to the address in the shop or with Repair, then Retry.",
    );
    h.shop.editShippingAddress(SHOP, placed.id, { province: "Illinois", provinceCode: "IL" });
    expect((await placeOrder(h.deps, orderId)).outcome).toBe("created");
    expect(lastBody().shippingProvince).toBe("Illinois");
  });

  it("to a country without provinces: sent without one, never with the city", async () => {
    const to = address({
      city: "Leeds",
      province: null,
      provinceCode: null,
      zip: "LS1 1AA",
      country: "United Kingdom",
      countryCode: "GB",
    });
    const { orderId } = await received([{ product: mug, quantity: 1 }], to);
    expect((await placeOrder(h.deps, orderId)).outcome).toBe("created");
    expect(lastBody()).not.toHaveProperty("shippingProvince");
    expect(lastBody().shippingCity).toBe("Leeds");
  });

  it("the province code counts when the name is missing", () => {
    const order = (a: Partial<Address>) => ({ shippingAddress: address(a) }) as ShopifyOrder;
    expect(missingProvince(order({ province: null, provinceCode: "IL" }))).toBeNull();
    expect(missingProvince(order({ province: "Illinois", provinceCode: null }))).toBeNull();
    expect(missingProvince(order({ province: " ", provinceCode: null }))).toMatch(/no state/);
    expect(
      missingProvince(
        order({ province: null, provinceCode: null, countryCode: "jp", country: "Japan" }),
      ),
    ).toBe(
      "The shipping address has no prefecture, and addresses in Japan need one. Add it to the address in the shop or with Repair, then Retry.",
    );
    expect(missingProvince({ shippingAddress: null } as unknown as ShopifyOrder)).toBeNull();
  });
});
