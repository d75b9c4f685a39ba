/**
 * Causes that clear themselves (issue 14), end to end over HTTP: an order held for want of an
 * account, of a match, of money or by the settings goes on at once when the merchant removes the
 * cause (connects, matches, tops up, saves), with no clock jump past any re-check period.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { balanceOf } from "../../app/svc-account/account.server";
import { connectVariants } from "../../app/orders/product-links.server";
import { settingsAction } from "../../app/settings-forms/page.server";
import { updateSettings } from "../../app/settings.server";
import { connectApiKey } from "../../app/svc-account/connect.server";
import { svcClient } from "../../app/svc/client.server";
import { type Harness, prisma, startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "recheck-flow.myshopify.com", balance: "500.00" });
});
afterAll(async () => h?.close());

const held = async (legacyId: number, reason: string) => {
  const row = await h.row(legacyId);
  expect([row.state, row.reasonCode]).toEqual(["HELD", reason]);
  return row;
};

describe("a held order goes on as soon as its cause is removed", () => {
  it("connecting the account (API key)", async () => {
    const p = await h.connectedProduct("Connect Lamp", "20.00");
    // The shop has no account yet (the harness's is set aside).
    await prisma.svcAccount.update({ where: { id: h.accountId }, data: { shopDomain: null } });
    try {
      const placed = await h.order([{ product: p, quantity: 1 }]);
      await h.settle();
      await held(placed.legacyId, "no_account");

      // A second account at the service, connected from Settings with its key.
      const other = h.svc.createAccount({ balance: "200.00", callsPerSecond: 50 });
      const vid = (await prisma.productConnection.findFirstOrThrow({
        where: { shopDomain: h.shopDomain, shopifyProductId: String(p.legacyId) },
      }))!.svcVid;
      h.svc.connectShopProduct(
        other.accountId,
        String(p.legacyId),
        String(p.variants[0]!.legacyId),
        vid,
      );
      const account = await connectApiKey(prisma, {
        shop: h.shopDomain,
        baseUrl: h.svc.url,
        apiKey: other.apiKey,
        tryKey: (key) =>
          svcClient({ baseUrl: h.svc.url, timeoutMs: 5000 }).auth.getAccessToken(key),
      });
      await h.settle();
      const row = await h.row(placed.legacyId);
      expect(row.state).toBe("PAID");
      expect(row.svcAccountId).toBe(account.id);
      expect(h.svc.order(row.svcOrderId!)!.accountId).toBe(other.accountId);
      await prisma.svcAccount.delete({ where: { id: account.id } });
    } finally {
      await prisma.svcAccount.update({
        where: { id: h.accountId },
        data: { shopDomain: h.shopDomain },
      });
    }
  });

  it("matching its unmatched line", async () => {
    const p = h.unconnectedProduct("Match Mug", "12.00");
    const placed = await h.order([{ product: p, quantity: 2 }]);
    await h.settle();
    await held(placed.legacyId, "unconnected_lines");

    const variant = [...h.svc.state.catalog.variantByVid.values()].find((v) => !v.removed)!;
    await connectVariants(prisma, h.client, h.shopDomain, variant.pid, [
      {
        shopifyProductId: String(p.legacyId),
        shopifyVariantId: String(p.variants[0]!.legacyId),
        sku: p.variants[0]!.sku,
        svcVid: variant.vid,
      },
    ]);
    await h.settle();
    const row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");
    expect(row.lines[0]!.svcVid).toBe(variant.vid);
  });

  it("a top-up seen by the app (the merchant's account page)", async () => {
    h.svc.setBalance(h.simAccountId, "1.00");
    // The app knows the balance is short (a fresh reading).
    await balanceOf(prisma, h.shopDomain);
    const p = await h.connectedProduct("Top-up Kettle", "30.00");
    const placed = await h.order([{ product: p, quantity: 1 }]);
    await h.settle();
    const before = await held(placed.legacyId, "short_balance");
    expect(h.svc.order(before.svcOrderId!)!.paid).toBe(false);

    h.svc.setBalance(h.simAccountId, "500.00");
    // Nothing seen yet: still held.
    await h.settle();
    await held(placed.legacyId, "short_balance");
    expect((await balanceOf(prisma, h.shopDomain)).amount).toBe("500.00");
    await h.settle();
    const row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");
    expect(h.svc.order(row.svcOrderId!)!.paid).toBe(true);
  });

  it("settings saved (the shop resumed)", async () => {
    await updateSettings(prisma, h.shopDomain, { paused: true });
    const p = await h.connectedProduct("Paused Pan", "15.00");
    const placed = await h.order([{ product: p, quantity: 1 }]);
    await h.settle();
    await held(placed.legacyId, "paused");

    const form = new FormData();
    form.set("intent", "save-settings");
    const s = (await prisma.shop.findUniqueOrThrow({ where: { domain: h.shopDomain } }))
      .settings as Record<string, unknown>;
    for (const [k, v] of Object.entries(s)) {
      if (typeof v !== "object") form.set(k, String(v));
    }
    form.set("paused", "false");
    const r = await settingsAction(prisma, h.shopDomain, form, { sandbox: false });
    expect(r).toMatchObject({ ok: true });
    expect(r.ok && r.message).toContain("1 held order is checked again now");
    await h.settle();
    expect((await h.row(placed.legacyId)).state).toBe("PAID");
  });
});
