/**
 * The catalog sync (app/catalog/sync.server.ts) called directly, over HTTP against the shop
 * simulator and on the test database, each case on its own products (no job queue, no order
 * pipeline): what the shop's stock and prices become, what each row remembers, what SyncChange
 * records and what the result counts, for a first sight, a shop already in step, backups, a
 * removed variant and its return, a cost that moved (re-priced or only flagged), stock sync off,
 * untracked and unknown variants, another shop's rows, more rows than one page, and a stop.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Session } from "@shopify/shopify-api";
import { priceFor } from "../../app/catalog/pricing";
import { SYNC_PAGE, syncShop } from "../../app/catalog/sync.server";
import { getSettings, updateSettings } from "../../app/settings.server";
import { sessionStorage } from "../../app/shopify.server";
import type { SimProduct } from "../sim/shop/server";
import { type Harness, prisma, startHarness } from "../fulfilment/harness";

const OTHER = "sync-unit-other.myshopify.com";
let h: Harness;
let n = 0;

const SETTINGS = {
  stockCountries: "CN",
  stockSync: true,
  priceRule: "multiplier",
  priceValue: "2",
  priceRounding: "99",
  compareAtPct: "30",
  repriceOnCostChange: "apply",
  repriceThresholdPct: "5",
};

beforeAll(async () => {
  h = await startHarness({ shopDomain: "sync-unit.myshopify.com", settings: SETTINGS });
});
afterAll(async () => h?.close());

/** Each case sets the settings it relies on (a case may run alone). */
async function settings(patch: Record<string, unknown> = {}) {
  const r = await updateSettings(prisma, h.shopDomain, { ...SETTINGS, ...patch });
  expect(r.ok).toBe(true);
}

/** A shop product with these variants (inventory: tracked with that stock; undefined: not). */
function shopProduct(variants: { inventory?: number; price?: string }[]): SimProduct {
  n++;
  return h.shop.addProduct(h.shopDomain, {
    title: `Sync ${n}`,
    variants: variants.map((v, i) => ({
      sku: `SU-${n}-${i}`,
      price: v.price ?? "25.00",
      title: `V${i}`,
      ...(v.inventory === undefined ? {} : { inventory: v.inventory }),
    })),
  });
}

async function fact(
  vid: string,
  pid: string,
  o: { stock?: Record<string, number>; cost?: string; removed?: boolean } = {},
) {
  await prisma.catalogVariant.upsert({
    where: { vid },
    create: {
      vid,
      pid,
      productName: "P",
      stock: o.stock ?? {},
      costUsd: o.cost ?? null,
      removed: o.removed ?? false,
    },
    update: { stock: o.stock ?? {}, costUsd: o.cost ?? null, removed: o.removed ?? false },
  });
}

async function connect(
  p: SimProduct,
  i: number,
  pid: string,
  vid: string,
  extra: Record<string, unknown> = {},
) {
  return prisma.productConnection.create({
    data: {
      shopDomain: h.shopDomain,
      shopifyProductId: String(p.legacyId),
      shopifyVariantId: String(p.variants[i]!.legacyId),
      svcProductId: pid,
      svcVid: vid,
      ...extra,
    },
  });
}

const run = async (pids: string[] | null, signal?: AbortSignal) =>
  syncShop({
    db: prisma,
    shop: h.shopDomain,
    gateway: await h.deps.shopFor(h.shopDomain),
    pids,
    signal,
  });
const shopVariant = (p: SimProduct, i: number) =>
  h.shop.products(h.shopDomain).find((x) => x.legacyId === p.legacyId)!.variants[i]!;
const row = (p: SimProduct, i: number) =>
  prisma.productConnection.findUniqueOrThrow({
    where: {
      shopDomain_shopifyVariantId: {
        shopDomain: h.shopDomain,
        shopifyVariantId: String(p.variants[i]!.legacyId),
      },
    },
  });
const changes = (p: SimProduct, i: number) =>
  prisma.syncChange.findMany({
    where: { shopDomain: h.shopDomain, shopifyVariantId: String(p.variants[i]!.legacyId) },
    orderBy: { id: "asc" },
  });
/** The Shopify operations sent from now on, by name (calls THROTTLED and sent again once). */
function watch() {
  const from = h.shop.graphqlCalls().length;
  return () =>
    h.shop
      .graphqlCalls()
      .slice(from)
      .filter((c) => c.actualQueryCost !== null)
      .map((c) => c.operationName);
}
const counts = (o: Partial<Awaited<ReturnType<typeof run>>>) => ({
  variants: 0,
  stockSet: 0,
  priced: 0,
  flagged: 0,
  untracked: 0,
  unknown: 0,
  notes: [],
  ...o,
});

describe("stock", () => {
  it("first sight: the shop's stock is set to the supplier's in the countries that count, the cost becomes the baseline", async () => {
    await settings();
    const p = shopProduct([{ inventory: 3, price: "24.50" }]);
    await fact("su1-v", "su1-p", { stock: { CN: 7, US: 100 }, cost: "10.00" });
    await connect(p, 0, "su1-p", "su1-v");
    const ops = watch();

    expect(await run(["su1-p"])).toEqual(counts({ variants: 1, stockSet: 1 }));
    expect(shopVariant(p, 0).available).toBe(7);
    expect(ops()).toEqual(["ShopBasics", "VariantInventoryItems", "InventorySet"]);
    const r = await row(p, 0);
    expect(r).toMatchObject({
      stockSet: 7,
      inventoryItemId: shopVariant(p, 0).inventoryItemId,
      shopPrice: "24.50",
      flag: null,
    });
    expect(r.inventoryItemId).toMatch(/^gid:\/\/shopify\/InventoryItem\//);
    expect(r.pricedFromUsd?.toFixed(2)).toBe("10.00");
    expect(r.syncedAt).not.toBeNull();
    expect((await changes(p, 0)).map((c) => [c.kind, c.before, c.after, c.note])).toEqual([
      ["stock", null, "7", null],
    ]);

    // The supplier's stock moves: only the difference is sent, from what was set.
    await fact("su1-v", "su1-p", { stock: { CN: 4 }, cost: "10.00" });
    const again = watch();
    expect(await run(["su1-p"])).toEqual(counts({ variants: 1, stockSet: 1 }));
    expect(again()).toEqual(["ShopBasics", "InventorySet"]);
    expect(shopVariant(p, 0).available).toBe(4);
    expect((await changes(p, 0)).map((c) => [c.kind, c.before, c.after])).toEqual([
      ["stock", null, "7"],
      ["stock", "7", "4"],
    ]);
  });

  it("a shop already in step: nothing is written, what the shop has is remembered", async () => {
    await settings();
    const p = shopProduct([{ inventory: 6 }, { inventory: 2 }]);
    await fact("su2-a", "su2-p", { stock: { CN: 6 } });
    await fact("su2-b", "su2-p", { stock: { CN: 2 } });
    await connect(p, 0, "su2-p", "su2-a");
    await connect(p, 1, "su2-p", "su2-b");
    const ops = watch();
    expect(await run(["su2-p"])).toEqual(counts({ variants: 2 }));
    expect(ops()).toEqual(["ShopBasics", "VariantInventoryItems"]);
    expect(await row(p, 0)).toMatchObject({ stockSet: 6, shopPrice: "25.00" });
    expect((await row(p, 1)).stockSet).toBe(2);
    expect(await changes(p, 0)).toEqual([]);

    // Known items now: the next pass reads nothing from Shopify but its basics.
    const again = watch();
    expect(await run(["su2-p"])).toEqual(counts({ variants: 2 }));
    expect(again()).toEqual(["ShopBasics"]);
  });

  it("each batch is keyed by its content: the same batch, the same key; another, another", async () => {
    await settings();
    const p = shopProduct([{ inventory: 0 }]);
    await fact("su3-v", "su3-p", { stock: { CN: 5 } });
    await connect(p, 0, "su3-p", "su3-v");
    const keys = () =>
      h.shop
        .graphqlCalls()
        .filter((c) => c.operationName === "InventorySet" && c.actualQueryCost !== null)
        .map((c) => c.variables.key as string);
    const before = keys().length;
    await run(["su3-p"]);
    // Shopify's count goes back to 0 (a merchant's edit): the same batch is sent again.
    await prisma.productConnection.updateMany({
      where: { svcVid: "su3-v" },
      data: { stockSet: 0 },
    });
    await run(["su3-p"]);
    await fact("su3-v", "su3-p", { stock: { CN: 6 } });
    await run(["su3-p"]);
    const sent = keys().slice(before);
    expect(sent).toHaveLength(3);
    expect(sent[0]).toMatch(/^[0-9a-f]{40}$/);
    expect(sent[1]).toBe(sent[0]);
    expect(sent[2]).not.toBe(sent[0]);
    expect(shopVariant(p, 0).available).toBe(6);
  });

  it("backups' stock is added, a removed backup's is not, another shop's backups never count", async () => {
    await settings();
    const p = shopProduct([{ inventory: 0 }]);
    const variant = String(p.variants[0]!.legacyId);
    await fact("su4-first", "su4-p", { stock: { CN: 2 } });
    await fact("su4-b1", "su4-bp", { stock: { CN: 5, US: 40 } });
    await fact("su4-b2", "su4-bp", { stock: { CN: 100 }, removed: true });
    await fact("su4-theirs", "su4-bp", { stock: { CN: 1000 } });
    await connect(p, 0, "su4-p", "su4-first");
    await prisma.backupSupplier.createMany({
      data: [
        {
          shopDomain: OTHER,
          shopifyVariantId: variant,
          position: 1,
          svcProductId: "su4-bp",
          svcVid: "su4-theirs",
        },
        {
          shopDomain: h.shopDomain,
          shopifyVariantId: variant,
          position: 1,
          svcProductId: "su4-bp",
          svcVid: "su4-b1",
        },
        {
          shopDomain: h.shopDomain,
          shopifyVariantId: variant,
          position: 2,
          svcProductId: "su4-bp",
          svcVid: "su4-b2",
        },
      ],
    });
    // Another shop's connection of the same catalog product is not this shop's to sync.
    await prisma.productConnection.create({
      data: {
        shopDomain: OTHER,
        shopifyProductId: "1",
        shopifyVariantId: "1",
        svcProductId: "su4-bp",
        svcVid: "su4-theirs",
      },
    });
    // Named only by a backup's product (an event about the backup): the variant is synced.
    expect(await run(["su4-bp"])).toEqual(counts({ variants: 1, stockSet: 1 }));
    expect(shopVariant(p, 0).available).toBe(7);
    expect((await row(p, 0)).stockSet).toBe(7);
    // A product no row names: nothing.
    expect(await run(["su4-nothing"])).toEqual(counts({}));
  });

  it("stock sync off: no stock is written; a variant Shopify does not track is counted", async () => {
    await settings({ stockSync: false });
    const p = shopProduct([{ inventory: 1 }, {}]);
    await fact("su5-a", "su5-p", { stock: { CN: 9 } });
    await fact("su5-b", "su5-p", { stock: { CN: 9 } });
    await connect(p, 0, "su5-p", "su5-a");
    await connect(p, 1, "su5-p", "su5-b");
    const ops = watch();
    expect(await run(["su5-p"])).toEqual(counts({ variants: 2, untracked: 1 }));
    expect(ops()).not.toContain("InventorySet");
    expect(shopVariant(p, 0).available).toBe(1);
    expect(await row(p, 0)).toMatchObject({ stockSet: 1 });
    expect(await row(p, 1)).toMatchObject({ stockSet: null, inventoryItemId: null });

    // On again: the tracked one is set, the untracked one still counted and left alone.
    await settings({ stockSync: true });
    expect(await run(["su5-p"])).toEqual(counts({ variants: 2, stockSet: 1, untracked: 1 }));
    expect(shopVariant(p, 0).available).toBe(9);
    expect(shopVariant(p, 1)).toMatchObject({ tracked: false });
  });
});

describe("a removed variant", () => {
  it("goes to 0 and is flagged once; back in the catalog, the flag goes and the stock returns", async () => {
    await settings();
    const p = shopProduct([{ inventory: 8 }]);
    await fact("su6-v", "su6-p", { stock: { CN: 8 }, cost: "10.00", removed: true });
    await connect(p, 0, "su6-p", "su6-v", { pricedFromUsd: "5.00", shopPrice: "25.00" });

    // Removed: no re-pricing although the cost moved.
    expect(await run(["su6-p"])).toEqual(counts({ variants: 1, stockSet: 1, flagged: 1 }));
    expect(shopVariant(p, 0)).toMatchObject({ available: 0, price: "25.00" });
    const r = await row(p, 0);
    expect(r).toMatchObject({ flag: "removed", stockSet: 0 });
    expect(r.flaggedAt).not.toBeNull();
    expect(r.pricedFromUsd?.toFixed(2)).toBe("5.00");
    expect((await changes(p, 0)).map((c) => [c.kind, c.before, c.after, c.note])).toEqual([
      ["stock", null, "0", null],
      ["removed", null, null, "Catalog variant su6-v was removed"],
    ]);

    // Again: already flagged, nothing new.
    expect(await run(["su6-p"])).toEqual(counts({ variants: 1 }));
    expect(await changes(p, 0)).toHaveLength(2);

    // Back, at the cost it was priced from.
    await fact("su6-v", "su6-p", { stock: { CN: 3 }, cost: "5.00" });
    expect(await run(["su6-p"])).toEqual(counts({ variants: 1, stockSet: 1 }));
    expect(await row(p, 0)).toMatchObject({ flag: null, flaggedAt: null, stockSet: 3 });
    expect(shopVariant(p, 0).available).toBe(3);
  });

  it("a removed first supplier with a live backup is not flagged: the backup's stock counts", async () => {
    await settings();
    const p = shopProduct([{ inventory: 0 }]);
    await fact("su7-first", "su7-p", { stock: { CN: 50 }, removed: true });
    await fact("su7-b", "su7-bp", { stock: { CN: 4 } });
    await connect(p, 0, "su7-p", "su7-first");
    await prisma.backupSupplier.create({
      data: {
        shopDomain: h.shopDomain,
        shopifyVariantId: String(p.variants[0]!.legacyId),
        position: 1,
        svcProductId: "su7-bp",
        svcVid: "su7-b",
      },
    });
    expect(await run(["su7-p"])).toEqual(counts({ variants: 1, stockSet: 1 }));
    expect(shopVariant(p, 0).available).toBe(4);
    expect((await row(p, 0)).flag).toBeNull();
  });
});

describe("prices", () => {
  it("a cost moved beyond the threshold re-prices by the rule, one call per product", async () => {
    await settings();
    const rule = await getSettings(prisma, h.shopDomain);
    const p = shopProduct([{ price: "20.99" }, { price: "20.99" }]);
    const q = shopProduct([{ price: "20.99" }]);
    await fact("su8-a", "su8-p", { cost: "12.00" });
    await fact("su8-b", "su8-p", { cost: "10.20" }); // 2%: under the threshold
    await fact("su8-c", "su8-p", { cost: "9.00" });
    // Stock known and in step (no stock in the facts, 0 set): only prices move.
    const known = {
      pricedFromUsd: "10.00",
      shopPrice: "20.99",
      inventoryItemId: "gid://x/1",
      stockSet: 0,
    };
    await connect(p, 0, "su8-p", "su8-a", { ...known, flag: "cost_change" });
    await connect(p, 1, "su8-p", "su8-b", known);
    await connect(q, 0, "su8-p", "su8-c", known);
    const ops = watch();

    expect(await run(["su8-p"])).toEqual(counts({ variants: 3, priced: 2, untracked: 0 }));
    expect(ops()).toEqual(["ShopBasics", "VariantsBulkUpdate", "VariantsBulkUpdate"]);
    const a = priceFor("12.00", rule, "1");
    const c = priceFor("9.00", rule, "1");
    expect(a).toEqual({ price: "24.99", compareAtPrice: "32.99" });
    expect(shopVariant(p, 0)).toMatchObject(a);
    expect(shopVariant(p, 1).price).toBe("20.99");
    expect(shopVariant(q, 0)).toMatchObject(c);
    const ra = await row(p, 0);
    expect(ra).toMatchObject({ shopPrice: a.price, flag: null });
    expect(ra.pricedFromUsd?.toFixed(2)).toBe("12.00");
    expect(ra.syncedAt).not.toBeNull();
    expect((await row(p, 1)).pricedFromUsd?.toFixed(2)).toBe("10.00");
    expect((await changes(p, 0)).map((x) => [x.kind, x.before, x.after, x.note])).toEqual([
      ["price", "20.99", a.price, "Cost 10 → 12 USD"],
    ]);
    expect((await changes(q, 0)).map((x) => [x.kind, x.before, x.after])).toEqual([
      ["price", "20.99", c.price],
    ]);
    expect(await changes(p, 1)).toEqual([]);

    // Priced: the next pass has nothing to do.
    expect(await run(["su8-p"])).toEqual(counts({ variants: 3 }));
  });

  it("'flag only': a moved cost is flagged once with the new cost, the price kept", async () => {
    await settings({ repriceOnCostChange: "flag" });
    const p = shopProduct([{ price: "20.99" }]);
    await fact("su9-v", "su9-p", { cost: "15.00" });
    await connect(p, 0, "su9-p", "su9-v", {
      pricedFromUsd: "10.00",
      shopPrice: "20.99",
      inventoryItemId: "gid://x/2",
      stockSet: 0,
    });
    const ops = watch();
    expect(await run(["su9-p"])).toEqual(counts({ variants: 1, flagged: 1 }));
    expect(ops()).toEqual(["ShopBasics"]);
    expect(shopVariant(p, 0).price).toBe("20.99");
    const r = await row(p, 0);
    expect(r).toMatchObject({ flag: "cost_change", shopPrice: "20.99" });
    expect(r.flaggedAt).not.toBeNull();
    expect(r.pricedFromUsd?.toFixed(2)).toBe("10.00");
    expect((await changes(p, 0)).map((x) => [x.kind, x.before, x.after, x.note])).toEqual([
      ["cost_change", null, "15", "Cost moved from 10 to 15 USD"],
    ]);
    expect(await run(["su9-p"])).toEqual(counts({ variants: 1 }));
    expect(await changes(p, 0)).toHaveLength(1);

    // 'apply' now: re-priced, and the flag goes.
    await settings({ repriceOnCostChange: "apply" });
    expect(await run(["su9-p"])).toEqual(counts({ variants: 1, priced: 1 }));
    expect(await row(p, 0)).toMatchObject({ flag: null });
    expect(shopVariant(p, 0).price).not.toBe("20.99");
  });

  it("a variant without a cost keeps its price and baseline", async () => {
    await settings();
    const p = shopProduct([{ price: "20.99" }]);
    await fact("su10-v", "su10-p", {});
    await connect(p, 0, "su10-p", "su10-v", {
      inventoryItemId: "gid://x/3",
      stockSet: 0,
      shopPrice: "20.99",
    });
    expect(await run(["su10-p"])).toEqual(counts({ variants: 1 }));
    expect((await row(p, 0)).pricedFromUsd).toBeNull();
  });
});

describe("what is synced", () => {
  it("rows without catalog facts are counted unknown; all the shop's rows when no product is named, page by page", async () => {
    await settings();
    const p = shopProduct([{ inventory: 0 }]);
    await fact("su11-v", "su11-p", { stock: { CN: 2 } });
    await connect(p, 0, "su11-p", "su11-v");
    const many = SYNC_PAGE + 1;
    await prisma.productConnection.createMany({
      data: Array.from({ length: many }, (_, i) => ({
        shopDomain: h.shopDomain,
        shopifyProductId: "900",
        shopifyVariantId: `9000${i}`,
        svcProductId: "su11-unknown",
        svcVid: `su11-unknown-${i}`,
        inventoryItemId: `gid://x/9${i}`,
        stockSet: 0,
      })),
    });
    const total = await prisma.productConnection.count({ where: { shopDomain: h.shopDomain } });
    const out = await run(null);
    expect(out.variants).toBe(total);
    expect(out.unknown).toBeGreaterThanOrEqual(many);
    expect(shopVariant(p, 0).available).toBe(2);
    expect(await run(["su11-unknown"])).toEqual(counts({ variants: many, unknown: many }));
    await prisma.productConnection.deleteMany({ where: { svcProductId: "su11-unknown" } });
  });

  it("a stop ends it before the next page", async () => {
    const stop = new AbortController();
    stop.abort();
    await expect(run(null, stop.signal)).rejects.toThrow("stopped");
  });
});

describe("a removed variant back at another cost", () => {
  it("is re-priced and no longer flagged in the same pass", async () => {
    await settings();
    const p = shopProduct([{ price: "20.99" }]);
    await fact("su12-v", "su12-p", { cost: "12.00" });
    await connect(p, 0, "su12-p", "su12-v", {
      pricedFromUsd: "10.00",
      shopPrice: "20.99",
      inventoryItemId: "gid://x/4",
      stockSet: 0,
      flag: "removed",
      flaggedAt: new Date(),
    });
    expect(await run(["su12-p"])).toEqual(counts({ variants: 1, priced: 1 }));
    const r = await row(p, 0);
    expect(r.flag).toBeNull();
    expect(r.pricedFromUsd?.toFixed(2)).toBe("12.00");
    expect(shopVariant(p, 0).price).toBe("24.99");
  });
});

describe("more edges", () => {
  it("a backup nothing is known of adds no stock", async () => {
    await settings();
    const p = shopProduct([{ inventory: 0 }]);
    await fact("su13-first", "su13-p", { stock: { CN: 3 } });
    await connect(p, 0, "su13-p", "su13-first");
    await prisma.backupSupplier.create({
      data: {
        shopDomain: h.shopDomain,
        shopifyVariantId: String(p.variants[0]!.legacyId),
        position: 1,
        svcProductId: "su13-bp",
        svcVid: "su13-unknown",
      },
    });
    expect(await run(["su13-p"])).toEqual(counts({ variants: 1, stockSet: 1 }));
    expect(shopVariant(p, 0).available).toBe(3);
  });

  it("a removed variant stays flagged on the passes after", async () => {
    await settings();
    const p = shopProduct([{ inventory: 0 }]);
    await fact("su14-v", "su14-p", { stock: { CN: 5 }, removed: true });
    await connect(p, 0, "su14-p", "su14-v");
    expect(await run(["su14-p"])).toEqual(counts({ variants: 1, flagged: 1 }));
    const first = await row(p, 0);
    expect(first.flag).toBe("removed");
    expect(await run(["su14-p"])).toEqual(counts({ variants: 1 }));
    expect(await row(p, 0)).toMatchObject({ flag: "removed", flaggedAt: first.flaggedAt });
  });

  it("another shop's backup under the product does not bring this shop's variant of another product", async () => {
    await settings();
    const p = shopProduct([{ inventory: 0 }]);
    await fact("su15-v", "su15-mine", { stock: { CN: 5 } });
    await connect(p, 0, "su15-mine", "su15-v");
    await prisma.backupSupplier.create({
      data: {
        shopDomain: OTHER,
        shopifyVariantId: String(p.variants[0]!.legacyId),
        position: 1,
        svcProductId: "su15-p",
        svcVid: "su15-theirs",
      },
    });
    expect(await run(["su15-p"])).toEqual(counts({}));
    expect(shopVariant(p, 0).available).toBe(0);
  });

  it("a shop in a currency without a USD rate: said, and a moved cost is only flagged", async () => {
    const domain = "sync-unit-eur.myshopify.com";
    const { accessToken } = h.shop.addShop(domain, { currency: "EUR" });
    await sessionStorage.storeSession(
      new Session({
        id: `offline_${domain}`,
        shop: domain,
        state: "state",
        isOnline: false,
        accessToken,
        scope: "read_orders,write_merchant_managed_fulfillment_orders",
      }),
    );
    expect((await updateSettings(prisma, domain, { ...SETTINGS, fromCountryCode: "CN" })).ok).toBe(
      true,
    );
    const p = h.shop.addProduct(domain, {
      title: "Euro mug",
      variants: [{ sku: "EUR-1", price: "20.99", title: "Mug" }],
    });
    await fact("su16-v", "su16-p", { cost: "15.00" });
    const variant = String(p.variants[0]!.legacyId);
    await prisma.productConnection.create({
      data: {
        shopDomain: domain,
        shopifyProductId: String(p.legacyId),
        shopifyVariantId: variant,
        svcProductId: "su16-p",
        svcVid: "su16-v",
        pricedFromUsd: "10.00",
        shopPrice: "20.99",
        inventoryItemId: "gid://x/5",
        stockSet: 0,
      },
    });
    const out = await syncShop({
      db: prisma,
      shop: domain,
      gateway: await h.deps.shopFor(domain),
      pids: ["su16-p"],
      fxRatesUrl: "",
    });
    expect(out).toEqual(
      counts({
        variants: 1,
        flagged: 1,
        notes: ["No USD rate for EUR: prices are not changed."],
      }),
    );
    const r = await prisma.productConnection.findUniqueOrThrow({
      where: { shopDomain_shopifyVariantId: { shopDomain: domain, shopifyVariantId: variant } },
    });
    expect(r).toMatchObject({ flag: "cost_change", shopPrice: "20.99" });
    expect(h.shop.products(domain)[0]!.variants[0]!.price).toBe("20.99");
  });
});
