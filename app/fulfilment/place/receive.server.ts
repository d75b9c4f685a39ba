/**
 * Receiving the shop's order webhook: the order becomes a ShopOrder row (RECEIVED, or HELD for
 * the review window), once per shop order, and is placed by a place job, or, when it is due at
 * once, in the delivery's own job (app/fulfilment/handlers.server.ts).
 */
import type { ShopOrder as OrderRow } from "@prisma/client";
import { z } from "zod";
import type { Db } from "../../db/types";
import type { FulfilmentDeps } from "../../orders/deps.server";
import { ShopAuthError } from "../../shop/errors";
import type { ShopOrder as ShopifyOrder } from "../../shop/gateway.server";
import { parseOrderGid } from "../../shop/ids";
import { orderFacts } from "../../orders/facts";
import { schedulePlace } from "../../orders/schedule.server";
import type { TimelineInput } from "../../orders/timeline.server";
import { transition } from "../../orders/transition.server";
import { settingsForJob } from "../../settings.server";
import { orderNumberFor } from "../../orders/model";

const idLike = z.union([z.number(), z.string()]).transform(String);

/** The parts of the REST orders/* payload the pipeline reads (the rest comes from getOrder). */
export const orderWebhookSchema = z
  .object({
    id: idLike,
    name: z.string().nullish(),
    created_at: z.string().nullish(),
    cancelled_at: z.string().nullish(),
    currency: z.string().nullish(),
    customer: z.object({ id: idLike }).passthrough().nullish(),
  })
  .passthrough();

/** Why a delivery's order is not stored: the shop the header names does not have it. */
export const NOT_IN_SHOP = "the shop does not have this order";

/**
 * What a delivery becomes: `foreign`, an order the shop the header names has not got (nothing
 * of it is stored); `place`, an order due at once, read from the shop (`fetched`) and placed in
 * the delivery's own job; `store`, anything else (stored, and placed by a job of its own).
 */
export type Delivery =
  | { take: "foreign" }
  | { take: "store" }
  | { take: "place"; fetched: ShopifyOrder };

/**
 * Reads a delivery before anything of it is stored. Shopify signs the body with the app's
 * secret, which every shop shares, and names the shop only in a header: one shop's signed order
 * replayed under another's header would store the first shop's customer in the second. So the
 * shop is asked for the order first. An order due at once (no review window) is read whole
 * (the read placing needs anyway, so the check costs nothing); one that waits is only looked
 * up (an Admin call of cost 1). A delivery that stores nothing (no id, cancelled, not the
 * trigger topic) is not checked. A shop whose token needs the merchant (ShopAuthError) is not
 * checked either: the order is stored and waits, and placing reads it from the shop first.
 */
export async function readDelivery(
  deps: Pick<FulfilmentDeps, "prisma" | "shopFor">,
  input: { shopDomain: string; topic: string; payload: unknown },
): Promise<Delivery> {
  const parsed = orderWebhookSchema.safeParse(input.payload);
  if (!parsed.success || parsed.data.cancelled_at) return { take: "store" };
  const settings = await settingsForJob(deps.prisma, input.shopDomain);
  if (input.topic !== settings.trigger) return { take: "store" };
  let gid: ReturnType<typeof parseOrderGid>;
  try {
    gid = parseOrderGid(parsed.data.id);
  } catch {
    return { take: "foreign" }; // no Shopify order id: no shop has it
  }
  try {
    const shop = await deps.shopFor(input.shopDomain);
    if (settings.reviewWindowMinutes > 0) {
      return (await shop.hasOrder(gid)) ? { take: "store" } : { take: "foreign" };
    }
    const fetched = await shop.getOrder(gid);
    return fetched ? { take: "place", fetched } : { take: "foreign" };
  } catch (error) {
    if (error instanceof ShopAuthError) return { take: "store" };
    throw error;
  }
}

export interface ReceiveResult {
  orderId?: string;
  created: boolean;
  ignored?: string;
  /** Stored to be placed by the caller, in the same job (`placeHere`): no place job. */
  placeHere?: boolean;
  /** The row as stored (`placeHere`), so that placing need not read it back. */
  row?: OrderRow;
}

/**
 * Stores the shop order (once) and schedules its placing after the review window. Runs inside
 * the webhook job's transaction: the row and its job appear together or not at all. With
 * `placeHere`, an order due at once gets no place job: the caller places it in its own job
 * (which, run again after a stop, finds the row and schedules the place job then).
 */
export async function receiveShopOrder(
  db: Db,
  input: { shopDomain: string; topic: string; payload: unknown; nowMs: number },
  opts: { placeHere?: boolean } = {},
): Promise<ReceiveResult> {
  const parsed = orderWebhookSchema.safeParse(input.payload);
  if (!parsed.success) return { created: false, ignored: "payload without an order id" };
  const p = parsed.data;
  const settings = await settingsForJob(db, input.shopDomain);
  if (input.topic !== settings.trigger) {
    return { created: false, ignored: `trigger is ${settings.trigger}` };
  }
  const key = {
    shopDomain_shopifyOrderId: { shopDomain: input.shopDomain, shopifyOrderId: p.id },
  };
  if (p.cancelled_at) {
    const known = await db.shopOrder.findUnique({ where: key, select: { id: true } });
    return known
      ? { orderId: known.id, created: false }
      : { created: false, ignored: "cancelled in the shop" };
  }

  const placeAfter =
    settings.reviewWindowMinutes > 0
      ? new Date(input.nowMs + settings.reviewWindowMinutes * 60_000)
      : null;
  const facts = orderFacts(p);
  const now = new Date();
  const received: TimelineInput = {
    step: "received",
    outcome: placeAfter ? "held" : "info",
    message: `Received from the shop (${input.topic}).${placeAfter ? ` Placed after ${placeAfter.toISOString()}.` : ""}`,
  };
  // Created RECEIVED (the column's default), once: a second delivery of the order adds nothing
  // (another order's number taken fails the job, as before). Its first timeline entry goes in
  // the same statement; a review window holds it at once (with the entry, in the transition).
  const [order] = await db.$queryRaw<OrderRow[]>`
    WITH o AS (
      INSERT INTO "ShopOrder" ("id", "shopDomain", "shopifyOrderId", "shopifyOrderName",
        "orderNumber", "placeAfter", "isSandbox", "currency", "customerId", "customerName",
        "customerEmail", "shopTotal", "createdAt", "updatedAt")
      VALUES (gen_random_uuid()::text, ${input.shopDomain}, ${p.id}, ${p.name ?? null},
        ${orderNumberFor(input.shopDomain, p.id)}, ${placeAfter}, ${settings.sandbox},
        ${p.currency ?? null}, ${p.customer?.id ?? null}, ${facts.customerName},
        ${facts.customerEmail}, ${facts.shopTotal}, ${now}, ${now})
      ON CONFLICT ("shopDomain", "shopifyOrderId") DO NOTHING
      RETURNING *
    ), entry AS (
      INSERT INTO "TimelineEntry" ("orderId", "at", "step", "outcome", "message")
      SELECT "id", ${now}, ${received.step}, ${received.outcome}, ${received.message ?? null}
      FROM o WHERE ${placeAfter === null}::boolean
    )
    SELECT * FROM o`;
  if (!order) {
    // Stored before (or by a delivery this statement waited for): it is there to read.
    const known = await db.shopOrder.findUniqueOrThrow({ where: key, select: { id: true } });
    return { orderId: known.id, created: false };
  }
  if (!placeAfter && opts.placeHere) {
    return { orderId: order.id, created: true, placeHere: true, row: order };
  }
  if (placeAfter) {
    await transition(db, order.id, {
      to: "HELD",
      from: ["RECEIVED"],
      reason: "review_window",
      message: `Waiting ${settings.reviewWindowMinutes} minutes (the review window) before sending it to the service.`,
      timeline: received,
    });
  }
  await schedulePlace(db, {
    orderId: order.id,
    shopDomain: input.shopDomain,
    delayMs: placeAfter ? placeAfter.getTime() - input.nowMs : undefined,
    key: "received",
  });
  return { orderId: order.id, created: true };
}
