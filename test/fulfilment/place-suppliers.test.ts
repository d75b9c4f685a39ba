/**
 * Placing an order line with backup suppliers (issue 16): the line goes to the first supplier
 * whose catalog facts show enough stock in the countries that count; the service's connection
 * (store order flow) is pointed at the chosen catalog variant before the order is created, and
 * back when the first supplier takes the line again; the choice is on the timeline once; with no
 * facts about the first supplier, or no backup that fits, the line stays with the first.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recheckHeld } from "../../app/orders/recheck.server";
import { type Harness, prisma, startHarness } from "./harness";

let h: Harness;
let vids: { vid: string; pid: string }[];
beforeAll(async () => {
  h = await startHarness({
    shopDomain: "place-suppliers.myshopify.com",
    balance: "1000.00",
    settings: { stockCountries: "CN" },
  });
  vids = [...h.svc.state.catalog.variantByVid.values()]
    .filter((v) => !v.removed && !h.svc.state.catalog.byPid.get(v.pid)!.removed)
    .slice(200, 206)
    .map((v) => ({ vid: v.vid, pid: v.pid }));
});
afterAll(async () => h?.close());

async function facts(vid: string, pid: string, stock: Record<string, number>, removed = false) {
  await prisma.catalogVariant.upsert({
    where: { vid },
    create: { vid, pid, productName: "P", stock, removed },
    update: { stock, removed },
  });
}

async function withBackup(
  first: { vid: string; pid: string },
  backup: { vid: string; pid: string },
) {
  const p = h.unconnectedProduct("Two suppliers");
  const variant = String(p.variants[0]!.legacyId);
  await prisma.productConnection.create({
    data: {
      shopDomain: h.shopDomain,
      shopifyProductId: String(p.legacyId),
      shopifyVariantId: variant,
      svcProductId: first.pid,
      svcVid: first.vid,
    },
  });
  h.svc.connectShopProduct(h.simAccountId, String(p.legacyId), variant, first.vid);
  await prisma.backupSupplier.create({
    data: {
      shopDomain: h.shopDomain,
      shopifyVariantId: variant,
      position: 1,
      svcProductId: backup.pid,
      svcVid: backup.vid,
    },
  });
  return { p, variant };
}

const serviceConnection = (variant: string) =>
  h.svc.state.connections.find((c) => c.platformVariantId === variant)?.svcVariantId;
const svcOrderOf = async (legacyId: number) => {
  const row = await h.row(legacyId);
  return h.svc.orders({ accountId: h.simAccountId }).find((o) => o.orderNumber === row.orderNumber);
};

describe("an order line with a backup supplier", () => {
  it("goes to the backup when the first lacks stock, and back once the first has it", async () => {
    const [first, backup] = [vids[0]!, vids[1]!];
    const { p, variant } = await withBackup(first, backup);
    await facts(first.vid, first.pid, { CN: 1, US: 50 }); // US does not count for this shop
    await facts(backup.vid, backup.pid, { CN: 9 });

    const a = await h.order([{ product: p, quantity: 2 }]);
    await h.settle();
    const rowA = await h.row(a.legacyId);
    expect(rowA.lines[0]!.svcVid).toBe(backup.vid);
    expect((await svcOrderOf(a.legacyId))?.lines.map((l) => l.vid)).toEqual([backup.vid]);
    expect(serviceConnection(variant)).toBe(backup.vid);
    const told = rowA.timeline.filter((t) => /goes to supplier 2/.test(t.message ?? ""));
    expect(told).toHaveLength(1);
    expect(told[0]!.message).toContain(
      `first supplier (${first.vid}) is 1 in stock in CN, 2 needed`,
    );
    expect(
      (
        await prisma.productConnection.findFirstOrThrow({
          where: { shopDomain: h.shopDomain, shopifyVariantId: variant },
        })
      ).routedVid,
    ).toBe(backup.vid);

    // The first supplier has stock again: the next order goes to it, the connection back.
    await facts(first.vid, first.pid, { CN: 40 });
    const b = await h.order([{ product: p, quantity: 2 }]);
    await h.settle();
    const rowB = await h.row(b.legacyId);
    expect(rowB.lines[0]!.svcVid).toBe(first.vid);
    expect((await svcOrderOf(b.legacyId))?.lines.map((l) => l.vid)).toEqual([first.vid]);
    expect(serviceConnection(variant)).toBe(first.vid);
    expect(rowB.timeline.some((t) => /goes to supplier/.test(t.message ?? ""))).toBe(false);
    expect(
      (
        await prisma.productConnection.findFirstOrThrow({
          where: { shopDomain: h.shopDomain, shopifyVariantId: variant },
        })
      ).routedVid,
    ).toBeNull();
  });

  it("a removed first supplier passes the line on; no facts about it, or no backup with stock: it stays", async () => {
    const [first, backup] = [vids[2]!, vids[3]!];
    const { p } = await withBackup(first, backup);
    // Nothing known of the first supplier: not passed over on ignorance.
    await facts(backup.vid, backup.pid, { CN: 9 });
    const a = await h.order([{ product: p, quantity: 1 }]);
    await h.settle();
    expect((await h.row(a.legacyId)).lines[0]!.svcVid).toBe(first.vid);

    // Removed: the backup takes it, and says why.
    await facts(first.vid, first.pid, { CN: 100 }, true);
    const b = await h.order([{ product: p, quantity: 1 }]);
    await h.settle();
    const rowB = await h.row(b.legacyId);
    expect(rowB.lines[0]!.svcVid).toBe(backup.vid);
    expect(rowB.timeline.map((t) => t.message).join("\n")).toMatch(/removed from the catalog/);

    // Both short: the first keeps the line (the service says what it says).
    await facts(first.vid, first.pid, { CN: 0 });
    await facts(backup.vid, backup.pid, { CN: 0 });
    const c = await h.order([{ product: p, quantity: 1 }]);
    await h.settle();
    expect((await h.row(c.legacyId)).lines[0]!.svcVid).toBe(first.vid);
  });

  it("the backup with stock is found among several, in their order", async () => {
    const [first, second, third] = [vids[4]!, vids[5]!, vids[0]!];
    const { p, variant } = await withBackup(first, second);
    await prisma.backupSupplier.create({
      data: {
        shopDomain: h.shopDomain,
        shopifyVariantId: variant,
        position: 2,
        svcProductId: third.pid,
        svcVid: third.vid,
      },
    });
    await facts(first.vid, first.pid, { CN: 0 });
    await facts(second.vid, second.pid, { CN: 2 });
    await facts(third.vid, third.pid, { CN: 50 });
    const a = await h.order([{ product: p, quantity: 3 }]);
    await h.settle();
    const row = await h.row(a.legacyId);
    expect(row.lines[0]!.svcVid).toBe(third.vid);
    expect(row.timeline.map((t) => t.message).join("\n")).toMatch(/goes to supplier 3/);
  });

  it("tells the choice once when the placement runs again (held for another line, then released)", async () => {
    const [first, backup] = [vids[4]!, vids[5]!];
    const { p } = await withBackup(first, backup);
    await facts(first.vid, first.pid, { CN: 0 });
    await facts(backup.vid, backup.pid, { CN: 5 });
    const other = h.unconnectedProduct("Not matched yet");
    const placed = await h.order([
      { product: p, quantity: 1 },
      { product: other, quantity: 1 },
    ]);
    await h.settle();
    expect(await h.row(placed.legacyId)).toMatchObject({
      state: "HELD",
      reasonCode: "unconnected_lines",
    });
    await h.connect(other);
    await recheckHeld(prisma, h.shopDomain, ["unconnected_lines"], `test:${Date.now()}`);
    await h.settle();
    const row = await h.row(placed.legacyId);
    expect(["CREATED", "PAYING", "PAID"]).toContain(row.state);
    const told = row.timeline.filter((t) => /goes to supplier 2/.test(t.message ?? ""));
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ step: "create", outcome: "info" });
    expect(told[0]!.message).toMatch(/^"Two suppliers" goes to supplier 2 \(catalog variant /);
    expect(row.lines.find((l) => l.svcVid === backup.vid)).toBeDefined();
  });

  it("exactly enough stock keeps the first; two lines with their own backups each go their own way", async () => {
    await prisma.$executeRaw`UPDATE "Shop" SET "settings" = jsonb_set("settings", '{stockCountries}', '"CN,US"')
      WHERE "domain" = ${h.shopDomain}`;
    const picked = [...h.svc.state.catalog.variantByVid.values()]
      .filter((v) => !v.removed && !h.svc.state.catalog.byPid.get(v.pid)!.removed)
      .slice(220, 224)
      .map((v) => ({ vid: v.vid, pid: v.pid }));
    const [f1, b1, f2, b2] = picked as [
      (typeof picked)[0],
      (typeof picked)[0],
      (typeof picked)[0],
      (typeof picked)[0],
    ];
    const one = await withBackup(f1, b1);
    const two = await withBackup(f2, b2);
    await facts(f1.vid, f1.pid, { CN: 1, US: 1 }); // exactly the 2 needed
    await facts(b1.vid, b1.pid, { CN: 50 });
    await facts(f2.vid, f2.pid, { CN: 0, US: 1 }); // short
    await facts(b2.vid, b2.pid, { US: 50 });
    const creates = () => h.svc.calls({ op: "connectionCreate", accountId: h.simAccountId }).length;
    const before = creates();
    const placed = await h.order([
      { product: one.p, quantity: 2 },
      { product: two.p, quantity: 2 },
    ]);
    await h.settle();
    const row = await h.row(placed.legacyId);
    const vidOf = (variant: string) =>
      row.lines.find((l) => l.shopifyVariantId === variant)!.svcVid;
    expect(vidOf(one.variant)).toBe(f1.vid);
    expect(vidOf(two.variant)).toBe(b2.vid);
    expect(row.timeline.map((t) => t.message).join("\n")).toContain(
      `the first supplier (${f2.vid}) is 1 in stock in CN, US, 2 needed`,
    );
    // One connection moved (the second line's), none for the line that stayed.
    expect(creates() - before).toBe(1);
    // The next order for the same routes moves nothing.
    const again = await h.order([{ product: two.p, quantity: 2 }]);
    await h.settle();
    expect((await h.row(again.legacyId)).lines[0]!.svcVid).toBe(b2.vid);
    expect(creates() - before).toBe(1);
  });
});
