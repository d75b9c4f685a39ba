/**
 * Auto-match by SKU (app/connections/connections.server.ts) over HTTP against both simulators:
 * a shop variant whose SKU is a catalog variant's is connected (both of one product in one
 * call), and one already connected, one without a SKU and one whose SKU the catalog does not
 * know are each counted; a second run connects nothing more.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { autoMatchBySku, type MatchProgress } from "../../app/connections/connections.server";
import { type Harness, prisma, startHarness } from "../fulfilment/harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "auto-match.myshopify.com" });
});
afterAll(async () => h?.close());

const run = async () => {
  const reports: MatchProgress["phase"][] = [];
  const out = await autoMatchBySku({
    db: prisma,
    shop: h.shopDomain,
    gateway: await h.deps.shopFor(h.shopDomain),
    client: h.client,
    report: async (p) => {
      reports.push(p.phase);
    },
  });
  return { out, reports };
};

describe("auto-match by SKU", () => {
  it("connects the variants whose SKU the catalog knows and counts the others", async () => {
    const catalog = (await (await fetch(`${h.svc.url}/__sim/catalog?limit=5`)).json()) as {
      pid: string;
      variants: { vid: string; variantSku: string }[];
    }[];
    const product = catalog.find((p) => p.variants.length >= 2)!;
    const [a, b] = product.variants;
    const matched = h.shop.addProduct(h.shopDomain, {
      title: "Matched mug",
      variants: [
        { sku: a!.variantSku, price: "10.00", options: ["A"] },
        { sku: b!.variantSku, price: "10.00", options: ["B"] },
      ],
    });
    h.shop.addProduct(h.shopDomain, {
      title: "Unknown lamp",
      variants: [
        { sku: "NOT-IN-CATALOG-1", price: "10.00", options: ["X"] },
        { sku: "", price: "10.00", options: ["Y"] },
      ],
    });
    await h.connectedProduct("Already connected");

    const first = await run();
    expect(first.out).toMatchObject({
      phase: "done",
      total: 5,
      processed: 5,
      connected: 2,
      alreadyConnected: 1,
      noSku: 1,
      noMatch: 1,
      failed: 0,
      errors: [],
    });
    expect(first.reports[0]).toBe("matching");
    const rows = await prisma.productConnection.findMany({
      where: { shopDomain: h.shopDomain, shopifyProductId: String(matched.legacyId) },
      orderBy: { sku: "asc" },
    });
    expect(rows.map((r) => [r.sku, r.svcVid, r.svcProductId])).toEqual(
      [
        [a!.variantSku, a!.vid, product.pid],
        [b!.variantSku, b!.vid, product.pid],
      ].sort((x, y) => x[0]!.localeCompare(y[0]!)),
    );

    const second = await run();
    expect(second.out).toMatchObject({
      total: 5,
      processed: 5,
      connected: 0,
      alreadyConnected: 3,
      noSku: 1,
      noMatch: 1,
      failed: 0,
    });
  });
});
