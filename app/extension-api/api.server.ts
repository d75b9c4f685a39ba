/**
 * What the Admin UI extensions (extensions/) read and do, for the shop of the session token:
 * an order's state in plain words for the order block, and the order actions (send, retry, hold,
 * pay now) for the action and the bulk action. Actions are bulk runs, the same use case as the
 * orders list (bulk-orders.server.ts): one key per click, so a double-sent request acts once.
 */
import { orderName } from "../orders/shop-time";
import { isOrderState, STATE_SENTENCES, STATE_SERVICE_STATUS } from "../orders/states";
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { FINISHED_FLAGS, type AfterPaymentFlag } from "../fulfilment/after-payment.server";
import { bulkRunView, startBulkRun, MAX_BULK } from "../workqueue/bulk-orders.server";
import { EXTENSION_INTENTS, type ExtensionOrder, type ExtensionRun } from "./types";
import { fittingActions, type BulkIntent } from "../workqueue/order-fit";
import { safeUrl } from "../page-kit/safe-url";

const ORDER_GID = /^gid:\/\/shopify\/Order\/(\d{1,20})$/;

/** Shopify's order GID → its numeric id (what the app stores), or null. */
export function orderIdOfGid(gid: string): string | null {
  return ORDER_GID.exec(gid)?.[1] ?? null;
}

/** The order's state in one plain sentence (the reason when held or failed). */
export function stateInWords(o: {
  state: string;
  reasonMessage: string | null;
  flag: string | null;
}): string {
  if (o.flag && FINISHED_FLAGS.includes(o.flag as AfterPaymentFlag)) {
    return "Paid, then stopped: a problem after payment needs you.";
  }
  return isOrderState(o.state) ? STATE_SENTENCES[o.state](o.reasonMessage) : o.state;
}

export const idsSchema = z
  .array(z.string().regex(ORDER_GID, "Not a Shopify order id"))
  .min(1, "No order given")
  .max(MAX_BULK, `At most ${MAX_BULK} orders at once`);

/** The orders asked for (Shopify GIDs), in the order asked; the shop's only. */
export async function extensionOrders(
  db: PrismaClient,
  shop: string,
  gids: string[],
): Promise<ExtensionOrder[]> {
  const ids = gids.map((g) => orderIdOfGid(g)!);
  const rows = await db.shopOrder.findMany({
    where: { shopDomain: shop, shopifyOrderId: { in: ids } },
    include: { shipments: { orderBy: { createdAt: "asc" } } },
  });
  const byId = new Map(rows.map((r) => [r.shopifyOrderId, r]));
  return gids.map((gid, i): ExtensionOrder => {
    const o = byId.get(ids[i]!);
    if (!o) return { id: gid, handled: false };
    const fitting = new Set<BulkIntent>(fittingActions(o));
    return {
      id: gid,
      handled: true,
      orderId: o.id,
      name: orderName(o),
      state: o.state,
      summary: stateInWords(o),
      reason: o.state === "HELD" || o.state === "FAILED" ? o.reasonMessage : null,
      problem: o.flag ? (o.reasonMessage ?? o.flag) : null,
      svcOrderId: o.svcOrderId,
      svcStatus:
        o.svcOrderId && isOrderState(o.state) ? (STATE_SERVICE_STATUS[o.state] ?? null) : null,
      cost: o.amount ? { amount: o.amount, currency: o.currency ?? "USD" } : null,
      method: o.logisticName,
      tracking: o.shipments.flatMap((s) =>
        s.trackNumber
          ? [
              {
                number: s.trackNumber,
                url: safeUrl(s.trackingUrl),
                carrier: s.logisticName,
                status: s.deliveredAt
                  ? "Delivered"
                  : o.flag === "parcel_returned"
                    ? "Returned to sender"
                    : o.flag === "parcel_abnormal"
                      ? "Carrier reports a problem"
                      : "In transit",
              },
            ]
          : [],
      ),
      actions: EXTENSION_INTENTS.filter((a) => fitting.has(a)),
      appPath: `/app/orders/${o.id}`,
    };
  });
}

export const actionSchema = z.object({
  intent: z.enum(EXTENSION_INTENTS, "Unknown action"),
  ids: idsSchema,
  key: z.string().regex(/^[\w-]{8,60}$/, "Missing or bad request key"),
});

export type ExtensionActionResult =
  | { ok: true; runId: string; message: string; unknown: string[] }
  | { ok: false; error: string };

/**
 * Starts the action on the shop's orders among `ids` (orders the app does not handle are named
 * back in `unknown`), or finds the run this key already started.
 */
export async function startExtensionAction(
  db: PrismaClient,
  shop: string,
  input: unknown,
): Promise<ExtensionActionResult> {
  const parsed = actionSchema.safeParse(input);
  if (!parsed.success) return { ok: false, error: parsed.error.issues[0]!.message };
  const { intent, ids, key } = parsed.data;
  const numeric = [...new Set(ids)].map((g) => orderIdOfGid(g)!);
  const rows = await db.shopOrder.findMany({
    where: { shopDomain: shop, shopifyOrderId: { in: numeric } },
    select: { id: true, shopifyOrderId: true },
  });
  const known = new Set(rows.map((r) => r.shopifyOrderId));
  const unknown = ids.filter((g) => !known.has(orderIdOfGid(g)!));
  if (rows.length === 0) {
    return { ok: false, error: "The app does not handle these orders." };
  }
  const started = await startBulkRun(db, shop, {
    intent,
    clientKey: `ext-${key}`,
    orderIds: rows.map((r) => r.id),
  });
  if (!started.ok) return { ok: false, error: Object.values(started.errors)[0] ?? "Refused." };
  return { ok: true, runId: started.runId, message: started.message, unknown };
}

/** A run this shop started, with each order's result named by its Shopify GID. */
export async function extensionRun(
  db: PrismaClient,
  shop: string,
  runId: string,
): Promise<ExtensionRun | null> {
  const run = await bulkRunView(db, shop, { id: runId });
  if (!run) return null;
  return {
    id: run.id,
    intent: run.intent,
    label: run.label,
    total: run.total,
    done: run.done,
    finished: run.finished,
    failed: run.failed,
    results: run.results.map(({ shopifyOrderId, ...r }) => ({
      ...r,
      id: shopifyOrderId ? `gid://shopify/Order/${shopifyOrderId}` : "",
    })),
  };
}
