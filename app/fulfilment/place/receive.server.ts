/**
 * Receiving the shop's order webhook: the order becomes a ShopOrder row (RECEIVED, or HELD for
 * the review window) and a place job, once per shop order.
 */
import { z } from "zod";
import type { Db } from "../../jobs/queue.server";
import { orderFacts } from "../../orders/facts";
import { schedulePlace } from "../../orders/schedule.server";
import { addTimeline, type TimelineInput } from "../../orders/timeline.server";
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

export interface ReceiveResult {
  orderId?: string;
  created: boolean;
  ignored?: string;
}

/**
 * Stores the shop order (once) and schedules its placing after the review window. Runs inside
 * the webhook job's transaction: the row and its job appear together or not at all.
 */
export async function receiveShopOrder(
  db: Db,
  input: { shopDomain: string; topic: string; payload: unknown; nowMs: number },
): Promise<ReceiveResult> {
  const parsed = orderWebhookSchema.safeParse(input.payload);
  if (!parsed.success) return { created: false, ignored: "payload without an order id" };
  const p = parsed.data;
  const settings = await settingsForJob(db, input.shopDomain);
  if (input.topic !== settings.trigger) {
    return { created: false, ignored: `trigger is ${settings.trigger}` };
  }
  const existing = await db.shopOrder.findUnique({
    where: { shopDomain_shopifyOrderId: { shopDomain: input.shopDomain, shopifyOrderId: p.id } },
    select: { id: true },
  });
  if (existing) return { orderId: existing.id, created: false };
  if (p.cancelled_at) return { created: false, ignored: "cancelled in the shop" };

  const placeAfter =
    settings.reviewWindowMinutes > 0
      ? new Date(input.nowMs + settings.reviewWindowMinutes * 60_000)
      : null;
  const facts = orderFacts(p);
  // Created RECEIVED (the column's default); a review window holds it at once.
  const order = await db.shopOrder.create({
    data: {
      shopDomain: input.shopDomain,
      shopifyOrderId: p.id,
      shopifyOrderName: p.name ?? null,
      orderNumber: orderNumberFor(input.shopDomain, p.id),
      placeAfter,
      isSandbox: settings.sandbox,
      currency: p.currency ?? null,
      customerId: p.customer?.id ?? null,
      customerName: facts.customerName,
      customerEmail: facts.customerEmail,
      shopTotal: facts.shopTotal,
    },
  });
  const received: TimelineInput = {
    step: "received",
    outcome: placeAfter ? "held" : "info",
    message: `Received from the shop (${input.topic}).${placeAfter ? ` Placed after ${placeAfter.toISOString()}.` : ""}`,
  };
  if (placeAfter) {
    await transition(db, order.id, {
      to: "HELD",
      from: ["RECEIVED"],
      reason: "review_window",
      message: `Waiting ${settings.reviewWindowMinutes} minutes (the review window) before sending it to the service.`,
      timeline: received,
    });
  } else {
    await addTimeline(db, order.id, received);
  }
  await schedulePlace(db, {
    orderId: order.id,
    shopDomain: input.shopDomain,
    delayMs: placeAfter ? placeAfter.getTime() - input.nowMs : undefined,
    key: "received",
  });
  return { orderId: order.id, created: true };
}
