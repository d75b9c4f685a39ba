/**
 * A parcel's tracking written to the shop once. Before creating a fulfilment, the shop's
 * existing fulfilments are checked for the same tracking number: one written before a restart
 * (maybe in part) is adopted and only what it lacks is written, never a second one. The
 * fulfilment id is recorded as soon as Shopify returns it. Fulfilment orders that Shopify holds
 * or schedules make the order wait (a track job comes back later); a refusal flags the order as
 * a fulfilment conflict for the merchant.
 */
import type { Shipment, ShopOrder as OrderRow } from "@prisma/client";
import type { FulfilmentDeps } from "../../orders/deps.server";
import { scheduleTrack } from "../../orders/schedule.server";
import {
  addTimeline,
  errorFields,
  type TimelineInput,
  timelineRow,
} from "../../orders/timeline.server";
import {
  ShopFulfillmentNotReadyError,
  ShopFulfillmentPlanError,
  ShopUserError,
} from "../../shop/errors";
import { parseLineItemGid, parseOrderGid, type ShopifyFulfillmentGid } from "../../shop/ids";
import { numericId } from "../../orders/model";

/** A parcel whose fulfilment orders are on hold is tried again after this long (or at fulfillAt). */
export const NOT_READY_RETRY_MS = 15 * 60_000;
/** The reason shown while tracking waits for Shopify (cleared once it is written). */
const WAITING_PREFIX = "Tracking waits for Shopify:";

export type Gateway = Awaited<ReturnType<FulfilmentDeps["shopFor"]>>;
export interface Tracking {
  number: string;
  url: string | null;
  company: string | null;
}
/** A type, not an interface: it is stored as JSON (Shipment.lines). */
export type WriteLine = { lineItemId: string; quantity: number };
type ShopFulfilments = NonNullable<Awaited<ReturnType<Gateway["getFulfillmentState"]>>>;

/**
 * Writes the parcel's fulfilment to the shop (or adopts the one written before a restart) and
 * records it on the shipment and its lines. Null when the shop cannot take it now or refused it.
 */
export async function writeFulfilment(
  deps: FulfilmentDeps,
  gateway: Gateway,
  order: Pick<OrderRow, "id" | "shopDomain" | "shopifyOrderId">,
  shipment: Shipment,
  w: { tracking: Tracking; lines: WriteLine[]; notifyCustomer: boolean },
): Promise<Shipment | null> {
  const db = deps.prisma;
  const { tracking, lines } = w;
  const trackNumber = tracking.number;
  const orderGid = parseOrderGid(order.shopifyOrderId);
  const shopOrder = await gateway.getFulfillmentState(orderGid);
  const existing = shopOrder && writtenBefore(shopOrder.fulfillments, trackNumber);
  let ids: ShopifyFulfillmentGid[] = [];
  let how = `written to the shop${w.notifyCustomer ? ", customer notified" : ""}`;
  let toWrite = lines;
  if (existing && existing.length > 0) {
    // Written before a restart, maybe in part (one fulfillmentCreate per location, ≤ 250
    // lines each): only what those fulfilments lack is written now.
    ids = existing.map((f) => f.id);
    toWrite = await stillToWrite(gateway, existing, lines);
    how = toWrite.length
      ? "completed in the shop (part was written before a restart)"
      : "found in the shop (written before a restart)";
  }
  if (toWrite.length > 0) {
    const created = await createInShop(deps, gateway, order, {
      orderGid,
      toWrite,
      tracking,
      notifyCustomer: w.notifyCustomer,
      fulfillmentOrders: shopOrder?.fulfillmentOrders,
    });
    if (!created) return null;
    ids = [...ids, ...created];
  }
  // Recorded at once: the next run updates this fulfilment and never creates another.
  return recordWritten(db, order.id, lines, {
    shipment: { id: shipment.id, fulfillmentIds: ids.join(","), trackNumber },
    entry: {
      step: "fulfil",
      outcome: "ok",
      message: `Fulfilment with ${tracking.company ?? "tracking"} ${trackNumber} ${how} (${lines.length} line(s)).`,
    },
  });
}

/**
 * What a written fulfilment changes, in one statement: the parcel's fulfilment ids and the
 * tracking written, its lines' fulfilled quantities, the "waits for Shopify" reason cleared,
 * and its timeline entry; nothing of it when the parcel's row is gone (then it throws).
 * Returns the parcel as it is now.
 */
async function recordWritten(
  db: FulfilmentDeps["prisma"],
  orderId: string,
  lines: WriteLine[],
  w: {
    shipment: { id: string; fulfillmentIds: string; trackNumber: string };
    entry: TimelineInput;
  },
): Promise<Shipment> {
  const t = timelineRow(orderId, w.entry);
  const now = new Date().toISOString();
  const [written] = await db.$queryRaw<Shipment[]>`
    WITH parcel AS (
      UPDATE "Shipment" SET "shopifyFulfillmentId" = ${w.shipment.fulfillmentIds},
        "writtenTrackNumber" = ${w.shipment.trackNumber}, "updatedAt" = ${now}::timestamp(3)
      WHERE "id" = ${w.shipment.id}
      RETURNING *
    ), written AS (
      SELECT "id", sum("q")::int AS "q"
      FROM unnest(${lines.map((l) => l.lineItemId)}::text[], ${lines.map((l) => l.quantity)}::int[])
        AS w("id", "q")
      GROUP BY "id"
    ), counted AS (
      UPDATE "ShopOrderLine" AS l SET "fulfilledQuantity" = l."fulfilledQuantity" + written."q"
      FROM written
      WHERE l."orderId" = ${orderId} AND l."shopifyLineItemId" = written."id"
        AND EXISTS (SELECT 1 FROM parcel)
    ), cleared AS (
      UPDATE "ShopOrder" SET "reasonMessage" = NULL, "updatedAt" = ${now}::timestamp(3)
      WHERE "id" = ${orderId} AND starts_with("reasonMessage", ${WAITING_PREFIX}::text)
        AND EXISTS (SELECT 1 FROM parcel)
    ), entry AS (
      INSERT INTO "TimelineEntry" ("orderId", "at", "step", "outcome", "message")
      SELECT ${orderId}, ${now}::timestamp(3), ${t.step}::text, ${t.outcome}::text,
             ${t.message ?? null}::text
      FROM parcel
    )
    SELECT * FROM parcel`;
  if (!written) throw new Error(`shipment ${w.shipment.id} is gone`);
  return written;
}

/** The shop's fulfilments (not cancelled) that carry this tracking number. */
export function writtenBefore(
  fulfillments: ShopFulfilments["fulfillments"],
  trackNumber: string,
): ShopFulfilments["fulfillments"] {
  return fulfillments.filter(
    (f) => f.status !== "CANCELLED" && f.tracking.some((t) => t.number === trackNumber),
  );
}

/** What the shop's fulfilments with this tracking number lack of the parcel's lines. */
export async function stillToWrite(
  gateway: Pick<Gateway, "getFulfillmentLines">,
  existing: ShopFulfilments["fulfillments"],
  lines: WriteLine[],
): Promise<WriteLine[]> {
  const done = new Map<string, number>();
  for (const f of existing) {
    for (const l of (await gateway.getFulfillmentLines(f.id)) ?? []) {
      const key = numericId(l.lineItemId) ?? l.lineItemId;
      // Shopify may not say the quantity: then the line counts as written whole.
      const asked = lines.find((x) => x.lineItemId === key)?.quantity ?? 0;
      done.set(key, (done.get(key) ?? 0) + (l.quantity ?? asked));
    }
  }
  return lines
    .map((l) => ({ ...l, quantity: l.quantity - (done.get(l.lineItemId) ?? 0) }))
    .filter((l) => l.quantity > 0);
}

/** fulfillmentCreate of the lines: the new fulfilment ids, or null when the shop did not take them. */
async function createInShop(
  deps: FulfilmentDeps,
  gateway: Gateway,
  order: Pick<OrderRow, "id" | "shopDomain">,
  c: {
    orderGid: ReturnType<typeof parseOrderGid>;
    toWrite: WriteLine[];
    tracking: Tracking;
    notifyCustomer: boolean;
    fulfillmentOrders: ShopFulfilments["fulfillmentOrders"] | undefined;
  },
): Promise<ShopifyFulfillmentGid[] | null> {
  const db = deps.prisma;
  const trackNumber = c.tracking.number;
  try {
    const created = await gateway.createFulfillment({
      orderGid: c.orderGid,
      lineItems: c.toWrite.map((l) => ({
        lineItemGid: parseLineItemGid(l.lineItemId),
        quantity: l.quantity,
      })),
      tracking: c.tracking,
      notifyCustomer: c.notifyCustomer,
      fulfillmentOrders: c.fulfillmentOrders,
    });
    return created.map((f) => f.id);
  } catch (error) {
    if (error instanceof ShopFulfillmentNotReadyError) {
      // Held or scheduled in the shop: not a conflict. The shipment stays pending (no
      // fulfilment id), a track job comes back later, and the reconciler sees it too.
      await waitForShop(deps, order, trackNumber, error);
      return null;
    }
    if (error instanceof ShopFulfillmentPlanError || error instanceof ShopUserError) {
      const f = errorFields(error);
      const message = `The shop refused the fulfilment of ${trackNumber} (the lines may have been fulfilled by hand): ${f.message}`;
      await db.shopOrder.update({
        where: { id: order.id },
        data: { flag: "fulfilment_conflict", reasonMessage: message.slice(0, 500) },
      });
      await addTimeline(db, order.id, {
        step: "fulfil",
        outcome: "error",
        errorCode: f.errorCode,
        message,
      });
      return null;
    }
    throw error;
  }
}

/**
 * Tracking that Shopify cannot take yet (fulfilment orders on hold, scheduled): says so on the
 * order (once per reason) and schedules the order's track job again, at the scheduled
 * fulfilment order's fulfillAt or after NOT_READY_RETRY_MS.
 */
async function waitForShop(
  deps: FulfilmentDeps,
  order: Pick<OrderRow, "id" | "shopDomain">,
  trackNumber: string,
  error: ShopFulfillmentNotReadyError,
) {
  const db = deps.prisma;
  // Stryker disable next-line StringLiteral: message
  const reasons = [...new Set(error.notReady.map((n) => n.reason))].join("; ");
  const message =
    `${WAITING_PREFIX} ${trackNumber} goes to the shop once its fulfilment order is fulfillable ` +
    // Stryker disable next-line StringLiteral: message
    `(${error.notReady.length} line(s) ${reasons}). Nothing to do unless it stays so.`;
  const last = await db.timelineEntry.findFirst({
    where: { orderId: order.id, step: "fulfil" },
    orderBy: { id: "desc" },
    select: { message: true },
  });
  if (last?.message !== message.slice(0, 1000)) {
    await addTimeline(db, order.id, {
      step: "fulfil",
      outcome: "info",
      errorCode: error.code,
      message,
    });
  }
  await db.shopOrder.update({
    where: { id: order.id },
    data: { reasonMessage: message.slice(0, 500) },
  });
  const now = deps.clock.now();
  const wait = error.retryAt ? error.retryAt.getTime() - now : NOT_READY_RETRY_MS;
  const delay = Math.min(24 * 3600_000, Math.max(60_000, wait));
  await scheduleTrack(db, {
    orderId: order.id,
    shopDomain: order.shopDomain,
    key: `not-ready:${Math.floor((now + delay) / 60_000)}`,
    runAt: new Date(Date.now() + delay),
  });
}
