/**
 * A shop variant's suppliers in order: its connection's catalog variant first, then the backups
 * (BackupSupplier by position). An order line goes to the first whose catalog facts show enough
 * stock in the warehouse countries that count and that is not removed; with no facts about the
 * first, or no backup that fits, the line stays with the first (the service then says what it
 * says, as before).
 */
import type { PrismaClient } from "@prisma/client";
import type { SvcClient } from "../svc/index.server";
import { stockIn } from "./facts.server";

import type { Db } from "../db/types";

export interface SupplierPick {
  vid: string;
  /** Set when the line went to a backup: the first supplier's vid and why it was passed over. */
  passedOver?: { vid: string; reason: string };
  position: number;
}

export async function chooseSuppliers(
  db: Db,
  shop: string,
  needs: { variantId: string; primaryVid: string; quantity: number }[],
  countries: string[],
): Promise<Map<string, SupplierPick>> {
  const out = new Map<string, SupplierPick>();
  for (const n of needs) out.set(n.variantId, { vid: n.primaryVid, position: 0 });
  if (needs.length === 0) return out;
  const backups = await db.backupSupplier.findMany({
    where: { shopDomain: shop, shopifyVariantId: { in: needs.map((n) => n.variantId) } },
    orderBy: { position: "asc" },
  });
  if (backups.length === 0) return out;
  const vids = [...new Set([...needs.map((n) => n.primaryVid), ...backups.map((b) => b.svcVid)])];
  const facts = new Map(
    (
      await db.catalogVariant.findMany({
        where: { vid: { in: vids } },
        select: { vid: true, stock: true, removed: true },
      })
    ).map((f) => [f.vid, f]),
  );
  const shortOf = (vid: string, quantity: number): string | null => {
    const f = facts.get(vid);
    if (!f) return null; // nothing known: not passed over on ignorance
    if (f.removed) return "removed from the catalog";
    const have = stockIn(f.stock, countries);
    return have < quantity
      ? `${have} in stock in ${countries.join(", ")}, ${quantity} needed`
      : null;
  };
  for (const n of needs) {
    const reason = shortOf(n.primaryVid, n.quantity);
    if (!reason) continue;
    const mine = backups.filter((b) => b.shopifyVariantId === n.variantId);
    const fit = mine.find((b) => facts.has(b.svcVid) && !shortOf(b.svcVid, n.quantity));
    if (fit)
      out.set(n.variantId, {
        vid: fit.svcVid,
        position: fit.position,
        passedOver: { vid: n.primaryVid, reason },
      });
  }
  return out;
}

/** A line whose catalog variant is not the one its connection points at, and that connection. */
interface Rerouted {
  svcVid: string;
  id: string;
  shopifyVariantId: string;
  shopifyProductId: string;
  firstVid: string;
  svcProductId: string | null;
}

/**
 * In the store order flow the service finds a line's catalog variant through the connection of
 * the shop's variant, so a line sent to another supplier needs the connection pointed there
 * first (and back when the first supplier takes the line again). One connection call per
 * variant whose route changes; none in the usual case.
 */
export async function routeLines(
  db: PrismaClient,
  client: Pick<SvcClient, "connections">,
  shop: string,
  orderId: string,
  logistics: string,
  fromCountryCode: string,
): Promise<number> {
  // One read: the order's connected lines whose connection points elsewhere, with it.
  const lines = await db.$queryRaw<Rerouted[]>`
    SELECT l."svcVid", c."id", c."shopifyVariantId", c."shopifyProductId",
           c."svcVid" AS "firstVid", c."svcProductId"
    FROM "ShopOrderLine" l
    JOIN "ProductConnection" c
      ON c."shopDomain" = ${shop} AND c."shopifyVariantId" = l."shopifyVariantId"
    WHERE l."orderId" = ${orderId} AND l."svcVid" IS NOT NULL
      AND l."svcVid" <> COALESCE(c."routedVid", c."svcVid")
    ORDER BY l."shopifyLineItemId"`;
  let changed = 0;
  for (const line of lines) {
    const back = line.svcVid === line.firstVid;
    const pid = back
      ? line.svcProductId
      : ((
          await db.backupSupplier.findFirst({
            where: {
              shopDomain: shop,
              shopifyVariantId: line.shopifyVariantId,
              svcVid: line.svcVid,
            },
            select: { svcProductId: true },
          })
        )?.svcProductId ?? null);
    if (!pid) continue;
    await client.connections.create({
      defaultArea: 1,
      logistics,
      svcProductId: pid,
      platformProductId: line.shopifyProductId,
      sourceCountryCode: fromCountryCode,
      variantList: [{ svcVariantId: line.svcVid, platformVariantId: line.shopifyVariantId }],
    });
    await db.productConnection.update({
      where: { id: line.id },
      data: { routedVid: back ? null : line.svcVid },
    });
    changed++;
  }
  return changed;
}
