/**
 * Connections made in the service's console (issue 16), end to end over HTTP: an order held
 * because its line has no match goes on once the import reads the console's connection; the
 * list is read page by page (100 a page); a second run changes nothing; a connection the
 * console points elsewhere is updated; one whose ids are not Shopify's numeric ids is skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startImport } from "../../app/svc-account/import-connections.server";
import { type Harness, opCalls, prisma, startHarness } from "../fulfilment/harness";

let h: Harness;
let vids: string[];
beforeAll(async () => {
  h = await startHarness({ shopDomain: "console-connections.myshopify.com", balance: "500.00" });
  const catalog = (await (await fetch(`${h.svc.url}/__sim/catalog?limit=5`)).json()) as {
    variants: { vid: string }[];
  }[];
  vids = catalog.flatMap((p) => p.variants.map((v) => v.vid));
});
afterAll(async () => h?.close());

async function runImport() {
  const id = await startImport(prisma, h.shopDomain, h.accountId);
  await h.settle();
  const job = await prisma.job.findUniqueOrThrow({ where: { id } });
  expect(job.state).toBe("completed");
  return job.result as {
    seen: number;
    created: number;
    updated: number;
    skipped: number;
    rechecked: number;
  };
}

describe("connections made in the service's console", () => {
  it("are imported, and the order held for want of a match goes on", async () => {
    const p = h.unconnectedProduct("Made in the console");
    const placed = await h.order([{ product: p, quantity: 1 }]);
    await h.settle();
    expect(await h.row(placed.legacyId)).toMatchObject({
      state: "HELD",
      reasonCode: "unconnected_lines",
    });
    const variant = String(p.variants[0]!.legacyId);
    h.svc.connectShopProduct(h.simAccountId, String(p.legacyId), variant, vids[0]!);
    // Not ours to read: ids that are not Shopify's numeric ids.
    h.svc.connectShopProduct(h.simAccountId, "gid://shopify/Product/7", "abc", vids[1]!);

    const first = await runImport();
    expect(first).toMatchObject({ created: 1, updated: 0, skipped: 1, rechecked: 1 });
    const row = await prisma.productConnection.findUniqueOrThrow({
      where: {
        shopDomain_shopifyVariantId: { shopDomain: h.shopDomain, shopifyVariantId: variant },
      },
    });
    expect(row).toMatchObject({ shopifyProductId: String(p.legacyId), svcVid: vids[0] });
    const order = await h.row(placed.legacyId);
    expect(["CREATED", "PAYING", "PAID"]).toContain(order.state);
    expect(order.lines[0]!.svcVid).toBe(vids[0]);

    // Again: nothing new, nothing rechecked.
    expect(await runImport()).toMatchObject({ created: 0, updated: 0, rechecked: 0 });

    // The console points the variant at another catalog variant: the app follows.
    h.svc.connectShopProduct(h.simAccountId, String(p.legacyId), variant, vids[2]!);
    expect(await runImport()).toMatchObject({ created: 0, updated: 1 });
    expect(
      (
        await prisma.productConnection.findUniqueOrThrow({
          where: {
            shopDomain_shopifyVariantId: { shopDomain: h.shopDomain, shopifyVariantId: variant },
          },
        })
      ).svcVid,
    ).toBe(vids[2]);
  });

  it("reads a long list page by page, 100 a page", async () => {
    const before = await prisma.productConnection.count({ where: { shopDomain: h.shopDomain } });
    for (let i = 0; i < 230; i++) {
      h.svc.connectShopProduct(
        h.simAccountId,
        String(900000 + i),
        String(800000 + i),
        vids[i % vids.length]!,
      );
    }
    const calls = opCalls(h, "connectionList");
    const r = await runImport();
    expect(r.created).toBe(230);
    expect(await prisma.productConnection.count({ where: { shopDomain: h.shopDomain } })).toBe(
      before + 230,
    );
    const total = r.seen;
    expect(opCalls(h, "connectionList") - calls).toBe(Math.ceil(total / 100));
  });
});
