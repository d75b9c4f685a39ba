/**
 * A shop variant's suppliers (app/catalog/suppliers.server.ts), directly against the test
 * database and the service simulator over HTTP, without the order pipeline around them:
 * - chooseSuppliers: a line stays with its first supplier (position 0) unless the facts show it
 *   short; then the first backup in position order (not in the order they were saved) with the
 *   stock takes it; another shop's backups for the same Shopify variant id never count;
 * - routeLines: the service's connection is pointed at the line's catalog variant only when it
 *   changes (to a backup, or back to the first), only for this order's lines and this shop's
 *   connections; a line whose variant is no known supplier of it, or whose product is unknown,
 *   is left as it is; the count of connections moved is returned.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chooseSuppliers, routeLines } from "../../app/catalog/suppliers.server";
import { closeSvcPools } from "../../app/svc/transport.server";
import {
  accountFixture,
  prisma,
  startServiceSim,
  type Fixture,
  type ServiceSim,
} from "../svc/sim-helpers";

const SHOP = "suppliers-unit.myshopify.com";
const OTHER = "suppliers-other.myshopify.com";

async function facts(vid: string, stock: Record<string, number>, removed = false) {
  await prisma.catalogVariant.upsert({
    where: { vid },
    create: { vid, pid: `p-${vid}`, productName: "P", stock, removed },
    update: { stock, removed },
  });
}

async function backup(shop: string, variant: string, position: number, vid: string, pid = "bp") {
  await prisma.backupSupplier.create({
    data: { shopDomain: shop, shopifyVariantId: variant, position, svcProductId: pid, svcVid: vid },
  });
}

describe("choosing a line's supplier", () => {
  it("with no backups, or a first supplier with the stock, each line stays with its first", async () => {
    expect(await chooseSuppliers(prisma, SHOP, [], ["CN"])).toEqual(new Map());
    await facts("c1-first", { CN: 5 });
    await facts("c1-backup", { CN: 50 });
    await backup(SHOP, "c1-var-b", 1, "c1-backup");
    const picks = await chooseSuppliers(
      prisma,
      SHOP,
      [
        { variantId: "c1-var-a", primaryVid: "c1-none", quantity: 1 },
        { variantId: "c1-var-b", primaryVid: "c1-first", quantity: 5 },
      ],
      ["CN"],
    );
    expect(picks).toEqual(
      new Map([
        ["c1-var-a", { vid: "c1-none", position: 0 }],
        ["c1-var-b", { vid: "c1-first", position: 0 }],
      ]),
    );
  });

  it("another shop's backup for the same Shopify variant id is not this shop's", async () => {
    await facts("c2-first", { CN: 0 });
    await facts("c2-theirs", { CN: 100 });
    await backup(OTHER, "c2-var", 1, "c2-theirs");
    const picks = await chooseSuppliers(
      prisma,
      SHOP,
      [{ variantId: "c2-var", primaryVid: "c2-first", quantity: 1 }],
      ["CN"],
    );
    expect(picks.get("c2-var")).toEqual({ vid: "c2-first", position: 0 });

    // The same backup saved for this shop takes the line.
    await backup(SHOP, "c2-var", 1, "c2-theirs");
    const mine = await chooseSuppliers(
      prisma,
      SHOP,
      [{ variantId: "c2-var", primaryVid: "c2-first", quantity: 1 }],
      ["CN"],
    );
    expect(mine.get("c2-var")).toEqual({
      vid: "c2-theirs",
      position: 1,
      passedOver: { vid: "c2-first", reason: "0 in stock in CN, 1 needed" },
    });
  });

  it("the backups are tried in position order, not in the order they were saved", async () => {
    await facts("c3-first", { CN: 1, US: 9 });
    await facts("c3-second", { CN: 10 });
    await facts("c3-third", { CN: 10 });
    // Position 3 saved first, then 2, then 1 (which nothing is known of: never chosen).
    await backup(SHOP, "c3-var", 3, "c3-third");
    await backup(SHOP, "c3-var", 2, "c3-second");
    await backup(SHOP, "c3-var", 1, "c3-unknown");
    const picks = await chooseSuppliers(
      prisma,
      SHOP,
      [{ variantId: "c3-var", primaryVid: "c3-first", quantity: 2 }],
      ["CN"],
    );
    expect(picks.get("c3-var")).toEqual({
      vid: "c3-second",
      position: 2,
      passedOver: { vid: "c3-first", reason: "1 in stock in CN, 2 needed" },
    });
  });
});

describe("routing an order's lines at the service", () => {
  let sim: ServiceSim;
  let fx: Fixture;
  // Two catalog products with two variants each: [pid, vid, vid].
  let a: { pid: string; vids: string[] };
  let b: { pid: string; vids: string[] };
  let order = 0;

  beforeAll(async () => {
    sim = await startServiceSim({ catalogSize: 12 });
    fx = await accountFixture(sim, { callsPerSecond: 50, queryCallsPerSecond: 50 });
    const byPid = new Map<string, string[]>();
    for (const v of sim.state.catalog.variantByVid.values()) {
      if (v.removed || sim.state.catalog.byPid.get(v.pid)?.removed) continue;
      byPid.set(v.pid, [...(byPid.get(v.pid) ?? []), v.vid]);
    }
    const two = [...byPid.entries()].filter(([, vids]) => vids.length >= 2);
    a = { pid: two[0]![0], vids: two[0]![1] };
    b = { pid: two[1]![0], vids: two[1]![1] };
  });
  afterAll(async () => {
    await closeSvcPools();
    await sim?.close();
  });

  /** A shop order with these lines (variant id and the catalog variant it goes to). */
  async function orderWith(
    shop: string,
    lines: { variant: string | null; vid: string | null }[],
  ): Promise<string> {
    order++;
    const row = await prisma.shopOrder.create({
      data: {
        shopDomain: shop,
        shopifyOrderId: `route-${order}`,
        orderNumber: `route-${shop}-${order}`,
        lines: {
          create: lines.map((l, i) => ({
            shopifyLineItemId: String(i + 1),
            shopifyVariantId: l.variant,
            title: "Line",
            quantity: 1,
            unitPrice: "1.00",
            svcVid: l.vid,
          })),
        },
      },
    });
    return row.id;
  }

  async function connection(
    shop: string,
    variant: string,
    first: { pid: string | null; vid: string },
    routedVid: string | null = null,
  ) {
    return prisma.productConnection.create({
      data: {
        shopDomain: shop,
        shopifyProductId: `prod-${variant}`,
        shopifyVariantId: variant,
        svcProductId: first.pid,
        svcVid: first.vid,
        routedVid,
      },
    });
  }

  const creates = () => sim.calls({ op: "connectionCreate", accountId: fx.simAccountId });
  const atService = (variant: string) =>
    sim.state.connections.filter((c) => c.platformVariantId === variant);
  const routed = async (shop: string, variant: string) =>
    (
      await prisma.productConnection.findUniqueOrThrow({
        where: { shopDomain_shopifyVariantId: { shopDomain: shop, shopifyVariantId: variant } },
      })
    ).routedVid;

  it("points the connection at a backup, then back at the first supplier", async () => {
    // Another shop's connection for the same Shopify variant id, saved first, already on the
    // backup's variant: it says nothing of this shop's route.
    await connection(OTHER, "r1-var", { pid: b.pid, vid: b.vids[0]! });
    await connection(SHOP, "r1-var", { pid: a.pid, vid: a.vids[0]! });
    await backup(SHOP, "r1-var", 1, b.vids[0]!, b.pid);
    const toBackup = await orderWith(SHOP, [{ variant: "r1-var", vid: b.vids[0]! }]);
    const before = creates().length;

    expect(await routeLines(prisma, fx.client, SHOP, toBackup, "SvcPacket Ordinary", "CN")).toBe(1);
    expect(creates().length - before).toBe(1);
    expect(atService("r1-var")).toMatchObject([
      {
        platformProductId: "prod-r1-var",
        svcProductId: b.pid,
        svcVariantId: b.vids[0],
        logistics: "SvcPacket Ordinary",
        sourceCountryCode: "CN",
      },
    ]);
    expect(await routed(SHOP, "r1-var")).toBe(b.vids[0]);
    expect(await routed(OTHER, "r1-var")).toBeNull();

    // The same route again: nothing to move.
    const again = await orderWith(SHOP, [{ variant: "r1-var", vid: b.vids[0]! }]);
    expect(await routeLines(prisma, fx.client, SHOP, again, "SvcPacket Ordinary", "CN")).toBe(0);
    expect(creates().length - before).toBe(1);

    // The first supplier takes the line again: the connection goes back to it.
    const back = await orderWith(SHOP, [{ variant: "r1-var", vid: a.vids[0]! }]);
    expect(await routeLines(prisma, fx.client, SHOP, back, "SvcPacket Ordinary", "US")).toBe(1);
    expect(atService("r1-var")).toMatchObject([
      { svcProductId: a.pid, svcVariantId: a.vids[0], sourceCountryCode: "US" },
    ]);
    expect(await routed(SHOP, "r1-var")).toBeNull();
    expect(creates().length - before).toBe(2);
  });

  it("moves only this order's lines, each that changes, and counts them", async () => {
    await connection(SHOP, "r2-one", { pid: a.pid, vid: a.vids[1]! });
    await connection(SHOP, "r2-two", { pid: a.pid, vid: a.vids[0]! });
    await connection(SHOP, "r2-else", { pid: a.pid, vid: a.vids[1]! });
    await backup(SHOP, "r2-one", 1, b.vids[1]!, b.pid);
    await backup(SHOP, "r2-two", 1, b.vids[0]!, b.pid);
    await backup(SHOP, "r2-else", 1, b.vids[0]!, b.pid);
    // Another order's line for a backup: not this order's business.
    await orderWith(SHOP, [{ variant: "r2-else", vid: b.vids[0]! }]);
    const id = await orderWith(SHOP, [
      { variant: "r2-one", vid: b.vids[1]! },
      { variant: "r2-two", vid: b.vids[0]! },
      // A line without a Shopify variant (a custom item) and one not connected: skipped.
      { variant: null, vid: b.vids[1]! },
      { variant: "r2-unconnected", vid: b.vids[1]! },
      { variant: "r2-not-mapped", vid: null },
    ]);
    const before = creates().length;
    expect(await routeLines(prisma, fx.client, SHOP, id, "SvcPacket Ordinary", "CN")).toBe(2);
    expect(creates().length - before).toBe(2);
    expect(await routed(SHOP, "r2-one")).toBe(b.vids[1]);
    expect(await routed(SHOP, "r2-two")).toBe(b.vids[0]);
    expect(await routed(SHOP, "r2-else")).toBeNull();
    expect(atService("r2-else")).toEqual([]);
  });

  it("a line for a variant that is no supplier of it, or back to a first with no product id, stays", async () => {
    await connection(SHOP, "r3-var", { pid: a.pid, vid: a.vids[0]! });
    await backup(SHOP, "r3-var", 1, b.vids[0]!, b.pid);
    await connection(SHOP, "r3-nopid", { pid: null, vid: a.vids[1]! }, b.vids[1]!);
    const id = await orderWith(SHOP, [
      { variant: "r3-var", vid: b.vids[1]! },
      { variant: "r3-nopid", vid: a.vids[1]! },
    ]);
    const before = creates().length;
    expect(await routeLines(prisma, fx.client, SHOP, id, "SvcPacket Ordinary", "CN")).toBe(0);
    expect(creates().length - before).toBe(0);
    expect(await routed(SHOP, "r3-var")).toBeNull();
    expect(await routed(SHOP, "r3-nopid")).toBe(b.vids[1]);
  });

  it("a line of a connected variant not mapped to a catalog variant yet is left alone", async () => {
    await connection(SHOP, "r4-var", { pid: a.pid, vid: a.vids[0]! }, b.vids[0]!);
    await backup(SHOP, "r4-var", 1, b.vids[0]!, b.pid);
    const id = await orderWith(SHOP, [{ variant: "r4-var", vid: null }]);
    const before = creates().length;
    expect(await routeLines(prisma, fx.client, SHOP, id, "SvcPacket Ordinary", "CN")).toBe(0);
    expect(creates().length - before).toBe(0);
    expect(await routed(SHOP, "r4-var")).toBe(b.vids[0]);
  });
});
