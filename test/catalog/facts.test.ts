/**
 * The catalog's facts (app/catalog/facts.server.ts), against the service simulator over HTTP and
 * the test database: ids read from any event body, stock per country, a product's variants
 * stored (cost, stock, names) and those it no longer lists marked removed, a removed product's
 * known and connected variants marked removed, fresh products not asked again, and which
 * countries' stock counts for a shop.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  READS_IN_FLIGHT,
  catalogIdsFromParams,
  refreshFacts,
  stockCountries,
  stockIn,
  stockOf,
  storeDetail,
} from "../../app/catalog/facts.server";
import type { ProductDetail } from "../../app/svc/index.server";
import { closeSvcPools } from "../../app/svc/transport.server";
import {
  accountFixture,
  prisma,
  startServiceSim,
  type Fixture,
  type ServiceSim,
} from "../svc/sim-helpers";

let sim: ServiceSim;
let fx: Fixture;
let products: Array<{ pid: string; vids: string[] }> = [];
beforeAll(async () => {
  sim = await startServiceSim({ catalogSize: 12 });
  fx = await accountFixture(sim, { callsPerSecond: 50, queryCallsPerSecond: 50 });
  const byPid = new Map<string, string[]>();
  for (const v of sim.state.catalog.variantByVid.values()) {
    if (v.removed) continue;
    byPid.set(v.pid, [...(byPid.get(v.pid) ?? []), v.vid]);
  }
  products = [...byPid.entries()].map(([pid, vids]) => ({ pid, vids }));
});
afterAll(async () => {
  await closeSvcPools();
  await sim.close();
});

const queries = () => sim.calls().filter((c) => c.op === "query").length;

describe("ids from an event", () => {
  it("every name for a product or variant id, nested, in arrays, numbers too", () => {
    expect(
      catalogIdsFromParams({
        pid: "P1",
        productId: " P2 ",
        svcProductId: "P3",
        vid: "V1",
        variantId: 5,
        svcVariantId: "V3",
        list: [{ pid: "P4", variants: [{ vid: "V4" }] }],
      }),
    ).toEqual({ pids: ["P1", "P2", "P3", "P4"], vids: ["V1", "5", "V3", "V4"] });
    expect(catalogIdsFromParams('{"pid":"P9","x":[{"vid":"V9"}]}')).toEqual({
      pids: ["P9"],
      vids: ["V9"],
    });
    expect(catalogIdsFromParams({ pid: "P1", again: { pid: "P1" } })).toEqual({
      pids: ["P1"],
      vids: [],
    });
  });

  it("ignores what is not an id, and what is too deep or too long", () => {
    expect(catalogIdsFromParams({ pid: "  ", vid: true, productId: {}, variantId: null })).toEqual({
      pids: [],
      vids: [],
    });
    expect(catalogIdsFromParams({ pid: "x".repeat(200) }).pids).toEqual(["x".repeat(200)]);
    expect(catalogIdsFromParams({ pid: "x".repeat(201) }).pids).toEqual([]);
    // Depth 0 is the body; ids at depth 4 are read, at 5 not.
    const nest = (depth: number): unknown =>
      depth === 0 ? { pid: "deep" } : { a: nest(depth - 1) };
    expect(catalogIdsFromParams(nest(4)).pids).toEqual(["deep"]);
    expect(catalogIdsFromParams(nest(5)).pids).toEqual([]);
    const many = Array.from({ length: 1001 }, (_, i) => ({ vid: `V${i}` }));
    expect(catalogIdsFromParams({ list: many }).vids).toHaveLength(1000);
    expect(catalogIdsFromParams(null)).toEqual({ pids: [], vids: [] });
    expect(catalogIdsFromParams("[1")).toEqual({ pids: [], vids: [] });
    expect(catalogIdsFromParams(42)).toEqual({ pids: [], vids: [] });
  });
});

describe("stock", () => {
  it("per country: codes upper-cased, summed, whole and never negative; odd entries skipped", () => {
    const v = {
      inventories: [
        { countryCode: "cn", totalInventory: 5 },
        { countryCode: "CN", totalInventory: "2.9" },
        { countryCode: "US", totalInventory: -4 },
        { countryCode: "USA", totalInventory: 9 },
        { countryCode: null, totalInventory: 9 },
        { countryCode: "DE", totalInventory: "many" },
        { countryCode: "FR" },
      ],
    } as unknown as ProductDetail["variants"][number];
    expect(stockOf(v)).toEqual({ CN: 7, US: 0, DE: 0, FR: 0 });
    expect(stockOf({} as ProductDetail["variants"][number])).toEqual({});
  });

  it("what counts for a shop: the set countries, else the ship-from country", () => {
    expect(stockIn({ CN: 3, US: 4, DE: 5 }, ["CN", "DE"])).toBe(8);
    expect(stockIn({ CN: 3.7, US: -2 }, ["CN", "US"])).toBe(3);
    expect(stockIn({ CN: "4" }, ["CN"])).toBe(4);
    expect(stockIn(null, ["CN"])).toBe(0);
    expect(stockIn("CN", ["CN"])).toBe(0);
    expect(stockCountries({ stockCountries: " cn, us ,XX1, cn,", fromCountryCode: "DE" })).toEqual([
      "CN",
      "US",
    ]);
    expect(stockCountries({ stockCountries: "", fromCountryCode: "DE" })).toEqual(["DE"]);
    expect(stockCountries({ stockCountries: "China", fromCountryCode: "DE" })).toEqual(["DE"]);
  });
});

describe("storing a product", () => {
  it("each variant with its cost, stock and names; variants no longer listed are removed", async () => {
    const now = new Date("2026-11-27T10:00:00Z");
    const detail = {
      pid: "FP1",
      productNameEn: "Lamp",
      productName: "灯",
      bigImage: "https://img.example/lamp.jpg",
      supplierName: "Acme",
      variants: [
        {
          vid: "FV1",
          variantKey: "Red",
          variantImage: "https://img.example/red.jpg",
          variantSku: "L-R",
          variantSellPrice: 4.5,
          inventories: [{ countryCode: "CN", totalInventory: 3 }],
        },
        { vid: "FV2", variantSellPrice: null },
        { vid: "" },
      ],
    } as unknown as ProductDetail;
    await prisma.catalogVariant.create({
      data: { vid: "FV-old", pid: "FP1", productName: "Lamp", checkedAt: new Date(0) },
    });
    expect(await storeDetail(prisma, detail, now)).toBe(2);
    const rows = await prisma.catalogVariant.findMany({
      where: { pid: "FP1" },
      orderBy: { vid: "asc" },
    });
    expect(rows.map((r) => [r.vid, r.removed, r.checkedAt.toISOString()])).toEqual([
      ["FV-old", true, now.toISOString()],
      ["FV1", false, now.toISOString()],
      ["FV2", false, now.toISOString()],
    ]);
    expect(rows[1]).toMatchObject({
      productName: "Lamp",
      productImage: "https://img.example/lamp.jpg",
      variantKey: "Red",
      variantImage: "https://img.example/red.jpg",
      sku: "L-R",
      supplierName: "Acme",
      stock: { CN: 3 },
    });
    expect(rows[1]!.costUsd?.toFixed(2)).toBe("4.50");
    expect(rows[2]).toMatchObject({
      productImage: "https://img.example/lamp.jpg",
      variantKey: null,
      sku: null,
      costUsd: null,
      stock: {},
    });
    // Read again with a change: updated in place, and a removed one comes back.
    const later = new Date("2026-11-27T11:00:00Z");
    await storeDetail(
      prisma,
      {
        pid: "FP1",
        productName: "灯",
        productImageSet: ["https://img.example/set.jpg"],
        variants: [{ vid: "FV1", variantSellPrice: "5" }, { vid: "FV-old" }],
      } as unknown as ProductDetail,
      later,
    );
    const again = await prisma.catalogVariant.findMany({
      where: { pid: "FP1" },
      orderBy: { vid: "asc" },
    });
    expect(again.map((r) => [r.vid, r.removed])).toEqual([
      ["FV-old", false],
      ["FV1", false],
      ["FV2", true],
    ]);
    expect(again[1]).toMatchObject({
      productName: "灯",
      productImage: "https://img.example/set.jpg",
      supplierName: null,
      variantKey: null,
      checkedAt: later,
    });
    expect(again[1]!.costUsd?.toFixed(2)).toBe("5.00");
    // A detail without a product id stores nothing; one without variants removes them all.
    expect(await storeDetail(prisma, { variants: [{ vid: "X" }] } as never, later)).toBe(0);
    expect(await prisma.catalogVariant.count({ where: { vid: "X" } })).toBe(0);
    expect(
      await storeDetail(prisma, { pid: "FP1", productName: "Lamp" } as ProductDetail, later),
    ).toBe(0);
    expect(await prisma.catalogVariant.count({ where: { pid: "FP1", removed: false } })).toBe(0);
  });
});

describe("refreshing from the service", () => {
  it("reads each product once, stores its variants, and skips those read recently", async () => {
    const [a, b] = products;
    const t = Date.parse("2026-11-27T09:00:00Z");
    const before = queries();
    const r = await refreshFacts(prisma, fx.client, [a!.pid, b!.pid, a!.pid, ""], {
      now: () => t,
    });
    const stored = await prisma.catalogVariant.findMany({
      where: { pid: { in: [a!.pid, b!.pid] }, removed: false },
    });
    expect(stored.length).toBeGreaterThan(2);
    expect(r).toEqual({ products: 2, variants: stored.length, removedProducts: 0, fresh: 0 });
    expect(queries() - before).toBe(2);
    for (const s of stored) expect(s.checkedAt).toEqual(new Date(t));

    // Within maxAgeMs: fresh, not asked; past it: asked.
    const mid = await refreshFacts(prisma, fx.client, [a!.pid], {
      now: () => t + 60_000,
      maxAgeMs: 60_000,
    });
    expect(mid).toMatchObject({ products: 0, fresh: 1 });
    const past = await refreshFacts(prisma, fx.client, [a!.pid], {
      now: () => t + 60_001,
      maxAgeMs: 60_000,
    });
    expect(past).toMatchObject({ products: 1, fresh: 0 });
    // Since an event: read at or after it is fresh.
    expect(
      await refreshFacts(prisma, fx.client, [b!.pid], { freshSince: new Date(t) }),
    ).toMatchObject({ products: 0, fresh: 1 });
    expect(
      await refreshFacts(prisma, fx.client, [b!.pid], { freshSince: new Date(t + 1) }),
    ).toMatchObject({ products: 1, fresh: 0 });
    expect(queries() - before).toBe(4);
  });

  it("a product the service removed: its known and connected variants are marked removed", async () => {
    const c = products[2]!;
    await refreshFacts(prisma, fx.client, [c.pid], { now: () => 1000 });
    await prisma.productConnection.create({
      data: {
        shopDomain: "facts.myshopify.com",
        shopifyProductId: "1",
        shopifyVariantId: "11",
        svcProductId: c.pid,
        svcVid: "only-connected",
      },
    });
    await prisma.backupSupplier.create({
      data: {
        shopDomain: "facts.myshopify.com",
        shopifyVariantId: "12",
        position: 1,
        svcProductId: c.pid,
        svcVid: "only-backup",
      },
    });
    sim.removeProduct(c.pid);
    const r = await refreshFacts(prisma, fx.client, [c.pid], { now: () => 2000 });
    expect(r).toEqual({ products: 0, variants: 0, removedProducts: 1, fresh: 0 });
    const rows = await prisma.catalogVariant.findMany({ where: { pid: c.pid } });
    expect(rows.map((x) => x.vid).sort()).toEqual(
      [...c.vids, "only-backup", "only-connected"].sort(),
    );
    for (const x of rows) expect(x).toMatchObject({ removed: true, checkedAt: new Date(2000) });
  });

  it("reads several products at once, a few in flight; a stop ends it", async () => {
    expect(READS_IN_FLIGHT).toBe(4);
    const pids = products.slice(3, 9).map((p) => p.pid);
    const r = await refreshFacts(prisma, fx.client, pids, { now: () => 5000 });
    expect(r.products).toBe(pids.length);
    const stop = new AbortController();
    stop.abort();
    await expect(
      refreshFacts(prisma, fx.client, [products[9]!.pid], { signal: stop.signal }),
    ).rejects.toThrow("stopped");
    expect(await refreshFacts(prisma, fx.client, [])).toEqual({
      products: 0,
      variants: 0,
      removedProducts: 0,
      fresh: 0,
    });
  });

  it("a failure other than a removal is thrown", async () => {
    sim.setFaults({ rate5xx: 1, ops: ["query"] });
    try {
      const client = await fx.newClient({
        retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
      });
      await expect(
        refreshFacts(prisma, client, [products[10]!.pid], { now: () => 9000 }),
      ).rejects.toThrow();
    } finally {
      sim.clearFaults();
    }
  });
});

describe("at the edges", () => {
  it("ids in nested arrays count their depth too: 4 levels are read, 5 not", () => {
    const inArrays = (depth: number): unknown =>
      depth === 0 ? { pid: "deep" } : [inArrays(depth - 1)];
    expect(catalogIdsFromParams(inArrays(4)).pids).toEqual(["deep"]);
    expect(catalogIdsFromParams(inArrays(5)).pids).toEqual([]);
  });

  it("a product without a name is stored with an empty one", async () => {
    const at = new Date("2026-11-27T12:00:00Z");
    expect(
      await storeDetail(
        prisma,
        { pid: "FP-noname", variants: [{ vid: "FV-noname" }] } as unknown as ProductDetail,
        at,
      ),
    ).toBe(1);
    expect(
      await prisma.catalogVariant.findUniqueOrThrow({ where: { vid: "FV-noname" } }),
    ).toMatchObject({ productName: "", productImage: null, supplierName: null, removed: false });
  });

  it("a removed product marks only its own variants, known or connected, whatever else is connected", async () => {
    const x = products[11]!;
    await refreshFacts(prisma, fx.client, [x.pid], { now: () => 3000 });
    // A bystander: another product's known variant, and another product's connection and backup.
    await prisma.catalogVariant.create({
      data: { vid: "bystander", pid: "other-product", productName: "Other" },
    });
    await prisma.productConnection.createMany({
      data: [
        // A connection to a variant already known: it stays as it is known, removed.
        {
          shopDomain: "facts-edges.myshopify.com",
          shopifyProductId: "2",
          shopifyVariantId: "21",
          svcProductId: x.pid,
          svcVid: x.vids[0]!,
        },
        {
          shopDomain: "facts-edges.myshopify.com",
          shopifyProductId: "2",
          shopifyVariantId: "22",
          svcProductId: x.pid,
          svcVid: "x-only-connected",
        },
        {
          shopDomain: "facts-edges.myshopify.com",
          shopifyProductId: "3",
          shopifyVariantId: "31",
          svcProductId: "other-product",
          svcVid: "other-connected",
        },
      ],
    });
    await prisma.backupSupplier.create({
      data: {
        shopDomain: "facts-edges.myshopify.com",
        shopifyVariantId: "31",
        position: 1,
        svcProductId: "other-product",
        svcVid: "other-backup",
      },
    });
    sim.removeProduct(x.pid);
    expect(await refreshFacts(prisma, fx.client, [x.pid], { now: () => 4000 })).toEqual({
      products: 0,
      variants: 0,
      removedProducts: 1,
      fresh: 0,
    });
    const mine = await prisma.catalogVariant.findMany({ where: { pid: x.pid } });
    expect(mine.map((r) => r.vid).sort()).toEqual([...x.vids, "x-only-connected"].sort());
    for (const r of mine) expect(r).toMatchObject({ removed: true, checkedAt: new Date(4000) });
    expect(mine.find((r) => r.vid === "x-only-connected")!.productName).toBe("");
    expect(mine.find((r) => r.vid === x.vids[0])!.productName).not.toBe("");
    expect(
      await prisma.catalogVariant.findUniqueOrThrow({ where: { vid: "bystander" } }),
    ).toMatchObject({ removed: false, pid: "other-product" });
    expect(
      await prisma.catalogVariant.count({
        where: { vid: { in: ["other-connected", "other-backup"] } },
      }),
    ).toBe(0);
  });
});
