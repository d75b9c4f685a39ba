/**
 * The order's lines as the shop has them now: saved with their catalog connection (a backup
 * supplier when the first is out of stock), and the unconnected lines the merchant ships
 * themselves taken out of the order.
 */
import type { ShopOrder as OrderRow, ShopOrderLine as LineRow } from "@prisma/client";
import { chooseSuppliers } from "../../catalog/suppliers.server";
import type { Db } from "../../db/types";
import type { FulfilmentDeps } from "../../orders/deps.server";
import { addTimeline } from "../../orders/timeline.server";
import type {
  ShopOrder as ShopifyOrder,
  ShopOrderLine as ShopifyLine,
} from "../../shop/gateway.server";
import { toMoney } from "../../svc/decimal";
import { numericId } from "../../orders/model";

/** "title (variant); …", cut to 300 characters, for a timeline entry or a hold. */
export function lineTitles(lines: { title: string; variantTitle: string | null }[]): string {
  return lines
    .map((l) => l.title + (l.variantTitle ? ` (${l.variantTitle})` : ""))
    .join("; ")
    .slice(0, 300);
}

/**
 * Lines without a connection that the merchant ships (the setting "send the connected lines
 * only"): they are not the service's, so they leave the order's lines (its tracking then closes
 * it with the service's lines), and the timeline says which they are.
 */
export async function leaveToMerchant(db: Db, orderId: string, lines: LineRow[]): Promise<void> {
  await db.shopOrderLine.deleteMany({ where: { id: { in: lines.map((l) => l.id) } } });
  await addTimeline(db, orderId, {
    step: "create",
    outcome: "info",
    message: `${lines.length} line(s) are not sent to the service: they are not connected to a catalog product, and Settings say to send the connected lines only, so you ship these yourself: ${lineTitles(lines)}.`,
  });
}

export async function saveLines(
  db: FulfilmentDeps["prisma"],
  order: OrderRow,
  shopOrder: ShopifyOrder,
  shippable: ShopifyLine[],
  countries: string[],
): Promise<LineRow[]> {
  const variantIds = shippable.flatMap((l) =>
    l.variantId ? [l.variantId, numericId(l.variantId) ?? l.variantId] : [],
  );
  // One read: this shop's connections of the lines' variants, and which variants have backups.
  const found = await db.$queryRaw<
    { variantId: string; svcVid: string | null; backup: boolean }[]
  >`SELECT "shopifyVariantId" AS "variantId", "svcVid", false AS "backup"
      FROM "ProductConnection"
      WHERE "shopDomain" = ${order.shopDomain} AND "shopifyVariantId" = ANY(${variantIds}::text[])
    UNION ALL
    SELECT DISTINCT "shopifyVariantId", NULL, true FROM "BackupSupplier"
      WHERE "shopDomain" = ${order.shopDomain} AND "shopifyVariantId" = ANY(${variantIds}::text[])`;
  const vids = new Map(found.flatMap((c) => (c.backup ? [] : [[c.variantId, c.svcVid]])));
  const backedUp = new Set(found.flatMap((c) => (c.backup ? [c.variantId] : [])));
  const vidOf = (variantId: string | null) =>
    (variantId && (vids.get(variantId) ?? vids.get(numericId(variantId) ?? ""))) || null;
  const needs = shippable.flatMap((l) => {
    const primaryVid = vidOf(l.variantId);
    const variantId = numericId(l.variantId);
    return primaryVid && variantId ? [{ variantId, primaryVid, quantity: l.currentQuantity }] : [];
  });
  // A line whose first supplier is out of stock (or removed) goes to the first backup with stock.
  // Only a variant with backups can: the others are not looked at (one read less).
  const picks = await chooseSuppliers(
    db,
    order.shopDomain,
    // Stryker disable next-line MethodExpression: all the needs give the same picks, in more reads
    needs.filter((n) => backedUp.has(n.variantId)),
    countries,
  );
  const switched = shippable.flatMap((l) => {
    const pick = picks.get(numericId(l.variantId) ?? "");
    return pick?.passedOver ? [{ line: l, pick }] : [];
  });
  const rows = shippable.map((l) => ({
    shopifyLineItemId: numericId(l.id) ?? l.id,
    shopifyProductId: numericId(l.productId) ?? null,
    shopifyVariantId: numericId(l.variantId) ?? null,
    sku: l.sku,
    title: l.title,
    variantTitle: l.variantTitle,
    variantOptions: l.options.map((o) => o.value).join("-") || null,
    image: l.imageUrl,
    quantity: l.currentQuantity,
    unitPrice: toMoney(l.unitPrice.amount),
    requiresShipping: true,
    svcVid: picks.get(numericId(l.variantId) ?? "")?.vid ?? vidOf(l.variantId),
  }));
  const renamed = Boolean(shopOrder.name && shopOrder.name !== order.shopifyOrderName);
  // The usual case is one statement; a rename or a supplier choice to tell takes a transaction.
  // Stryker disable next-line ConditionalExpression: the transaction does the same, in more statements
  if (!switched.length && !renamed) return upsertLines(db, order.id, rows);
  return db.$transaction(async (tx) => {
    // The choice is told once (not again when the placement is retried).
    const before = await tx.shopOrderLine.findMany({
      where: { orderId: order.id },
      select: { shopifyLineItemId: true, svcVid: true },
    });
    const saved = await upsertLines(tx, order.id, rows);
    if (renamed) {
      await tx.shopOrder.update({
        where: { id: order.id },
        data: { shopifyOrderName: shopOrder.name },
      });
    }
    for (const { line, pick } of switched) {
      const id = numericId(line.id) ?? line.id;
      if (before.some((b) => b.shopifyLineItemId === id && b.svcVid === pick.vid)) continue;
      await addTimeline(tx, order.id, {
        step: "create",
        outcome: "info",
        message:
          `"${line.title}" goes to supplier ${pick.position + 1} (catalog variant ${pick.vid}): ` +
          `the first supplier (${pick.passedOver!.vid}) is ${pick.passedOver!.reason}.`,
      });
    }
    return saved;
  });
}

type LineFields = Omit<LineRow, "id" | "orderId" | "unitPriceUsd" | "fulfilledQuantity">;

/**
 * The order's lines become `rows` in one statement: each saved by its Shopify line id (added,
 * or updated in place), every other line of the order deleted; returns them all, by line id.
 */
async function upsertLines(db: Db, orderId: string, rows: LineFields[]): Promise<LineRow[]> {
  // One row per line id (the last one wins, as it would saving them one by one).
  const unique = [...new Map(rows.map((r) => [r.shopifyLineItemId, r])).values()];
  return db.$queryRaw<LineRow[]>`
    WITH incoming AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(unique)}::jsonb) AS r(
        "shopifyLineItemId" text, "shopifyProductId" text, "shopifyVariantId" text, "sku" text,
        "title" text, "variantTitle" text, "variantOptions" text, "image" text,
        "quantity" int, "unitPrice" text, "requiresShipping" boolean, "svcVid" text)
    ), gone AS (
      DELETE FROM "ShopOrderLine" WHERE "orderId" = ${orderId}
        AND "shopifyLineItemId" NOT IN (SELECT "shopifyLineItemId" FROM incoming)
    ), saved AS (
      INSERT INTO "ShopOrderLine" ("id", "orderId", "shopifyLineItemId", "shopifyProductId",
        "shopifyVariantId", "sku", "title", "variantTitle", "variantOptions", "image",
        "quantity", "unitPrice", "requiresShipping", "svcVid")
      SELECT gen_random_uuid()::text, ${orderId}, "shopifyLineItemId", "shopifyProductId",
        "shopifyVariantId", "sku", "title", "variantTitle", "variantOptions", "image",
        "quantity", "unitPrice", "requiresShipping", "svcVid"
      FROM incoming
      ON CONFLICT ("orderId", "shopifyLineItemId") DO UPDATE SET
        "shopifyProductId" = EXCLUDED."shopifyProductId",
        "shopifyVariantId" = EXCLUDED."shopifyVariantId",
        "sku" = EXCLUDED."sku", "title" = EXCLUDED."title",
        "variantTitle" = EXCLUDED."variantTitle", "variantOptions" = EXCLUDED."variantOptions",
        "image" = EXCLUDED."image", "quantity" = EXCLUDED."quantity",
        "unitPrice" = EXCLUDED."unitPrice", "requiresShipping" = EXCLUDED."requiresShipping",
        "svcVid" = EXCLUDED."svcVid"
      RETURNING *
    )
    SELECT * FROM saved ORDER BY "shopifyLineItemId"`;
}
