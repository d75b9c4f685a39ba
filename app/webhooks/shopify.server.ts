/**
 * Shopify webhooks in: authenticate (HMAC; a forged request gets 401 from the library and
 * stores nothing), store the event with its job, answer 200 at once.
 */
import type { Prisma } from "@prisma/client";
import { authenticate } from "../shopify.server";
import type { Db } from "../jobs/queue.server";
import { parseJsonLossless } from "./ids.server";
import { recordEvent } from "./intake.server";

export async function receiveShopifyWebhook(
  request: Request,
  inline?: (tx: Db, shop: string) => Promise<unknown>,
): Promise<Response> {
  // The library parses the body with JSON.parse, which rounds ids above 2^53: keep a copy of
  // the raw body and parse it again, keeping such ids as exact digit strings.
  const raw = request.clone().text();
  raw.catch(() => undefined); // awaited below once authenticated; a forged request never is
  const ctx = await authenticate.webhook(request);
  const payload = parseJsonLossless(await raw) as Prisma.InputJsonValue | null;
  // The header keeps Shopify's own spelling (`customers/data_request`); ctx.topic is upper-cased.
  const topic = request.headers.get("X-Shopify-Topic") ?? String(ctx.topic);
  const triggered = ctx.triggeredAt ? new Date(ctx.triggeredAt) : undefined;
  await recordEvent(
    {
      source: "shopify",
      shopDomain: ctx.shop,
      topic,
      eventKey: ctx.eventId || ctx.webhookId,
      webhookId: ctx.webhookId,
      triggeredAt: triggered && !Number.isNaN(triggered.getTime()) ? triggered : undefined,
      payload: payload ?? {},
    },
    inline ? (tx) => inline(tx, ctx.shop) : undefined,
  );
  return new Response(null, { status: 200 });
}
