/**
 * Repair (issue 14), end to end over HTTP: an order the service intercepted is repaired by a
 * method change (updateLogistics on the same service order, with the order's own option id) or
 * by correcting the recipient (placed again as a new service order `…-R1`; the old one never
 * paid); an order to BR needs a tax id; an address edited in Shopify after placing is flagged
 * and placed again with the shop's address in one click.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { placeAgainAsNew, repairOrder, replacementNumber } from "../../app/repair/repair.server";
import {
  addressFingerprint,
  restAddressFingerprint,
  withRecipient,
} from "../../app/repair/recipient";
import { schedulePay } from "../../app/orders/schedule.server";
import { updateSettings } from "../../app/settings.server";
import { type Harness, opCalls, prisma, startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "repair-flow.myshopify.com", balance: "800.00" });
});
afterAll(async () => h?.close());

const US = {
  firstName: "Ada",
  lastName: "Lovelace",
  address1: "1 Main St",
  city: "Springfield",
  province: "Illinois",
  provinceCode: "IL",
  zip: "62701",
  country: "United States",
  countryCode: "US",
  phone: "+15555550100",
};

/** Placed now, paid at the end of an hour-long window (so the test acts in between). */
async function createdOrder(title: string, address: Record<string, unknown> = US) {
  await updateSettings(prisma, h.shopDomain, { payBatchWindowSeconds: 3600 });
  const p = await h.connectedProduct(title, "15.00");
  const placed = h.shop.placeOrder(h.shopDomain, {
    lines: [{ variantId: p.variants[0]!.id, quantity: 1 }],
    shippingAddress: address as never,
  });
  const res = await h.shop.sendWebhook(
    h.shopDomain,
    "orders/paid",
    h.shop.orderWebhookPayload(h.shopDomain, placed.id),
  );
  expect(res.status).toBe(200);
  await h.settle();
  const row = await h.row(placed.legacyId);
  expect(row.state).toBe("CREATED");
  await updateSettings(prisma, h.shopDomain, { payBatchWindowSeconds: 0 });
  return { placed, row };
}

/** A payment run now (the hour-long window's run stays where it is). */
async function payNow() {
  await schedulePay(prisma, {
    accountId: h.accountId,
    shopDomain: h.shopDomain,
    nowMs: Date.now(),
    windowSeconds: 0,
    key: "test",
  });
  await h.settle();
}

const opts = () => ({ shopDomain: h.shopDomain });

describe("repair an intercepted order", () => {
  it("by a method change: updateLogistics on the same service order, then paid", async () => {
    const { placed, row } = await createdOrder("Suspended Lamp");
    h.svc.suspendLogistics("SvcPacket Ordinary");
    try {
      await payNow();
      let failed = await h.row(placed.legacyId);
      expect([failed.state, failed.reasonCode]).toEqual(["FAILED", "intercepted"]);
      expect(failed.reasonMessage).toContain("suspended");

      const creates = opCalls(h, "createOrderV3");
      const r = await repairOrder(h.deps, row.id, { logisticName: "Express Air" }, opts());
      expect(r).toMatchObject({ ok: true, outcome: "logistics_updated" });
      await h.settle();
      const after = await h.row(placed.legacyId);
      expect(after.state).toBe("PAID");
      expect(after.svcOrderId).toBe(row.svcOrderId);
      expect([after.logisticName, after.shippingCost]).toEqual(["Express Air", "14.99"]);
      expect(opCalls(h, "createOrderV3")).toBe(creates);
      const svcOrder = h.svc.order(row.svcOrderId!)!;
      expect([svcOrder.logisticName, svcOrder.paid]).toEqual(["Express Air", true]);
      // The id sent is this order's own option id from the optional logistics query.
      const call = h.svc.calls({ op: "updateLogistics", accountId: h.simAccountId }).at(-1)!;
      const id = (call.body as { id: number }).id;
      expect([...svcOrder.logisticsOptions!.entries()]).toContainEqual([id, "Express Air"]);
      expect(
        after.timeline.some((t) => t.step === "repair" && /updateLogistics/.test(t.message ?? "")),
      ).toBe(true);

      // A method the service will not use is refused with its reason; nothing changes.
      failed = await h.row(placed.legacyId);
      expect(await repairOrder(h.deps, row.id, { logisticName: "USPS" }, opts())).toEqual({
        ok: false,
        error:
          "The order is paid: the service order can no longer be changed. Open a dispute with the service instead.",
      });
    } finally {
      h.svc.suspendLogistics("SvcPacket Ordinary", false);
    }
  });

  it("by an address fix: placed again as <number>-R1, the old service order never paid", async () => {
    const { placed, row } = await createdOrder("PO Box Lamp", { ...US, address1: "PO Box 12" });
    await payNow();
    const failed = await h.row(placed.legacyId);
    expect([failed.state, failed.reasonCode]).toEqual(["FAILED", "intercepted"]);
    expect(failed.reasonMessage).toContain("PO Box");

    // Bad input: a clear error per field, nothing changed.
    const bad = await repairOrder(
      h.deps,
      row.id,
      { recipient: { countryCode: "USA", email: "nope" } },
      opts(),
    );
    expect(bad).toMatchObject({
      ok: false,
      errors: { countryCode: expect.any(String), email: "Email: not an address" },
    });
    expect(await h.row(placed.legacyId)).toMatchObject({
      orderNumber: row.orderNumber,
      recipient: null,
    });

    const r = await repairOrder(
      h.deps,
      row.id,
      { recipient: { address1: "12 Harbour Road" } },
      opts(),
    );
    expect(r).toMatchObject({ ok: true, outcome: "placed_again" });
    await h.settle();
    const after = await h.row(placed.legacyId);
    expect(after.state).toBe("PAID");
    expect(after.orderNumber).toBe(`${row.orderNumber}-R1`);
    expect(after.placeAttempt).toBe(1);
    expect(after.svcOrderId).not.toBe(row.svcOrderId);
    const fresh = h.svc.order(after.svcOrderId!)!;
    expect([fresh.shipping.address, fresh.paid, fresh.orderNumber]).toEqual([
      "12 Harbour Road",
      true,
      after.orderNumber,
    ]);
    const old = h.svc.order(row.svcOrderId!)!;
    expect(old.paid).toBe(false);
    const replaced = await prisma.replacedServiceOrder.findMany({ where: { orderId: row.id } });
    expect(replaced.map((x) => [x.svcOrderId, x.orderNumber])).toEqual([
      [row.svcOrderId, row.orderNumber],
    ]);

    // Later runs and the reconciler never pay the old one.
    await payNow();
    expect(h.svc.order(row.svcOrderId!)!.paid).toBe(false);
  });

  it("an order to BR without a tax id is intercepted; the tax id repairs it", async () => {
    const BR = {
      ...US,
      address1: "Rua Augusta 100",
      city: "São Paulo",
      province: "SP",
      provinceCode: "SP",
      zip: "01304-000",
      country: "Brazil",
      countryCode: "BR",
      phone: "+5511999999999",
    };
    const { placed, row } = await createdOrder("Brazil Lamp", BR);
    await payNow();
    const failed = await h.row(placed.legacyId);
    expect([failed.state, failed.reasonCode]).toEqual(["FAILED", "intercepted"]);
    expect(failed.reasonMessage).toContain("tax id");
    const r = await repairOrder(
      h.deps,
      row.id,
      { recipient: { taxId: "123.456.789-09", houseNumber: "100" } },
      opts(),
    );
    expect(r).toMatchObject({ ok: true, outcome: "placed_again" });
    await h.settle();
    const after = await h.row(placed.legacyId);
    expect(after.state).toBe("PAID");
    const fresh = h.svc.order(after.svcOrderId!)!;
    expect([fresh.shipping.taxId, fresh.shipping.houseNumber]).toEqual(["123.456.789-09", "100"]);
    expect(h.svc.order(row.svcOrderId!)!.paid).toBe(false);
  });
});

describe("an address edited in Shopify after placing", () => {
  it("flags the order; one click places it again with the shop's address", async () => {
    await updateSettings(prisma, h.shopDomain, { autoPay: false });
    try {
      const { placed, row } = await createdOrder("Moved Lamp");
      h.shop.editShippingAddress(h.shopDomain, placed.id, { address1: "99 New Street" });
      const res = await h.shop.sendWebhook(
        h.shopDomain,
        "orders/updated",
        h.shop.orderWebhookPayload(h.shopDomain, placed.id),
      );
      expect(res.status).toBe(200);
      await h.settle();
      let flagged = await h.row(placed.legacyId);
      expect([flagged.state, flagged.flag]).toEqual(["CREATED", "address_changed"]);
      expect(flagged.reasonMessage).toMatch(/changed in Shopify after the order was sent/);
      // The same edit again: flagged once.
      await h.shop.sendWebhook(
        h.shopDomain,
        "orders/updated",
        h.shop.orderWebhookPayload(h.shopDomain, placed.id),
      );
      await h.settle();
      flagged = await h.row(placed.legacyId);
      expect(flagged.timeline.filter((t) => t.errorCode === "address_changed")).toHaveLength(1);

      const r = await repairOrder(h.deps, row.id, { useShopAddress: true }, opts());
      expect(r).toMatchObject({ ok: true, outcome: "placed_again" });
      await h.settle();
      const after = await h.row(placed.legacyId);
      expect([after.state, after.flag, after.orderNumber]).toEqual([
        "CREATED",
        null,
        `${row.orderNumber}-R1`,
      ]);
      expect(h.svc.order(after.svcOrderId!)!.shipping.address).toBe("99 New Street");
    } finally {
      await updateSettings(prisma, h.shopDomain, { autoPay: true });
    }
  });

  it("an unchanged address, or an order not yet placed, is not flagged", async () => {
    const { placed } = await createdOrder("Same Lamp");
    await h.shop.sendWebhook(
      h.shopDomain,
      "orders/updated",
      h.shop.orderWebhookPayload(h.shopDomain, placed.id),
    );
    await h.settle();
    expect((await h.row(placed.legacyId)).flag).toBeNull();
  });
});

describe("pure parts", () => {
  it("suffixed numbers stay within 50 characters; fingerprints agree across the two address shapes", () => {
    expect(replacementNumber("shop-abc123-1001", 2)).toBe("shop-abc123-1001-R2");
    const long = "x".repeat(50);
    expect(replacementNumber(long, 12)).toHaveLength(50);
    expect(replacementNumber(long, 12).endsWith("-R12")).toBe(true);
    const gql = {
      firstName: "Ada",
      lastName: "Lovelace",
      address1: "1 Main St",
      address2: null,
      city: "Springfield",
      province: "Illinois",
      zip: "62701",
      countryCode: "US",
    };
    const rest = {
      first_name: "ada",
      last_name: "Lovelace ",
      address1: "1  Main St",
      address2: null,
      city: "Springfield",
      province: "Illinois",
      zip: "62701",
      country_code: "US",
    };
    expect(restAddressFingerprint(rest)).toBe(addressFingerprint(gql));
    expect(restAddressFingerprint({ ...rest, zip: "62702" })).not.toBe(addressFingerprint(gql));
  });

  it("corrections lay over the shop's address; a new country drops the old country name", () => {
    const o = {
      email: "a@b.c",
      shippingAddress: { ...US, company: "ACME", address2: null },
    } as never;
    const w = withRecipient(o, { name: "Bea Smith", countryCode: "CA", city: "Toronto" });
    expect(w.shippingAddress).toMatchObject({
      firstName: "Bea Smith",
      lastName: null,
      company: null,
      city: "Toronto",
      countryCode: "CA",
      country: "CA",
      address1: "1 Main St",
    });
    expect(withRecipient(o, {})).toBe(o);
  });

  it("placing again refuses a paid order", async () => {
    const paid = await prisma.shopOrder.create({
      data: {
        shopDomain: h.shopDomain,
        shopifyOrderId: "770001",
        orderNumber: "rp-paid",
        state: "PAID",
      },
    });
    expect(await placeAgainAsNew(h.deps, paid.id, { reason: "test" })).toMatchObject({ ok: false });
    expect(
      await repairOrder(
        h.deps,
        paid.id,
        { logisticName: "USPS" },
        { shopDomain: "x.myshopify.com" },
      ),
    ).toEqual({ ok: false, error: "Order not found." });
  });
});
