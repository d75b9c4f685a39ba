/**
 * Shopify webhooks in: authenticate (HMAC; a forged request gets 401 from the library and
 * stores nothing), check what the signature does not cover, store the event with its job,
 * answer 200 at once.
 *
 * The HMAC covers the body only. Topic and shop arrive in unsigned headers, so before anything
 * is stored: the topic must be one the route declares, the shop a myshopify domain, the body a
 * payload of that topic naming that shop where it names one (shopify-topics.server.ts), and the
 * shop one the app knows (installed, except for the topics that outlive an install).
 *
 * Refusals are 400 with a plain message. A genuine Shopify delivery never meets one (Shopify
 * sends each subscription's topic to its own URI, with the body it signed), so Shopify's retry
 * schedule does not matter for them; 400 rather than 401 because the signature was valid: the
 * request is authentic bytes put to the wrong use, and a misconfigured subscription shows up
 * as failing deliveries in the Partner Dashboard instead of events silently dropped.
 */
import type { Prisma } from "@prisma/client";
import { prisma } from "../db.server";
import type { Db } from "../jobs/queue.server";
import { addLogContext } from "../log-context.server";
import { logger } from "../logger.server";
import { authenticate } from "../shopify.server";
import { recordEvent } from "./intake.server";
import { BodyLimitError, parseJsonBounded } from "./json-limits.server";
import {
  acceptsUninstalledShop,
  checkTopicPayload,
  type ShopifyTopic,
} from "./shopify-topics.server";

const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;

export interface ShopifyWebhookRoute {
  /** The topic(s) this route is subscribed to in shopify.app.toml; any other is refused. */
  topics: readonly ShopifyTopic[];
  /** Work done in the transaction that stores the event (the uninstall mark). */
  inline?: (tx: Db, shop: string) => Promise<unknown>;
}

const refuse = (status: 400 | 413, message: string) =>
  new Response(message, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } });

export async function receiveShopifyWebhook(
  request: Request,
  route: ShopifyWebhookRoute,
): Promise<Response> {
  // Checked before the library sees it: the library's session lookup throws (a 500) on a shop
  // header that is not a myshopify domain.
  const shop = (request.headers.get("X-Shopify-Shop-Domain") ?? "").trim().toLowerCase();
  if (!SHOP_DOMAIN.test(shop)) return refuse(400, "shop is not a myshopify.com domain");
  // The library parses the body with JSON.parse, which rounds ids above 2^53: keep a copy of
  // the raw body and parse it again, keeping such ids as exact digit strings.
  const raw = request.clone().text();
  raw.catch(() => undefined); // awaited below once authenticated; a forged request never is
  let ctx: Awaited<ReturnType<typeof authenticate.webhook>>;
  try {
    ctx = await authenticate.webhook(request);
  } catch (error) {
    // A signed body that is not JSON: the library's own JSON.parse throws after the HMAC check.
    if (error instanceof SyntaxError) return refuse(400, "body is not JSON");
    throw error;
  }

  const header = (request.headers.get("X-Shopify-Topic") ?? "").trim().toLowerCase();
  const topic = route.topics.find((t) => t === header);
  if (!topic) {
    logger.warn(
      { shop, topic: header.slice(0, 64) },
      "Shopify webhook refused: topic not this route's",
    );
    return refuse(400, "topic not accepted on this route");
  }
  addLogContext({ shop });

  let payload: unknown;
  try {
    payload = parseJsonBounded(await raw, { lossless: true });
  } catch (error) {
    if (error instanceof BodyLimitError) return refuse(error.status, error.message);
    throw error;
  }
  const check = checkTopicPayload(topic, payload);
  if (!check.ok || (check.shop !== undefined && check.shop !== shop)) {
    const reason = check.ok ? "shop does not match the payload" : check.reason;
    logger.warn({ shop, topic }, `Shopify webhook refused: ${reason}`);
    return refuse(400, reason);
  }

  // Unknown or uninstalled shop: 200 and nothing stored. There is nothing to do for such a shop
  // (no settings, no service account, no session), and an error would only make Shopify retry
  // for 4 hours and count the failures against the subscription. Webhooks in flight at an
  // uninstall land here; so does a body replayed under a shop the app does not serve.
  const known = await prisma.shop.findUnique({
    where: { domain: shop },
    select: { uninstalledAt: true },
  });
  if (!known || (known.uninstalledAt && !acceptsUninstalledShop(topic))) {
    logger.warn(
      { shop, topic, known: Boolean(known) },
      "Shopify webhook for a shop that is not installed: acknowledged, not stored",
    );
    return new Response(null, { status: 200 });
  }

  const triggered = ctx.triggeredAt ? new Date(ctx.triggeredAt) : undefined;
  const inline = route.inline;
  await recordEvent(
    {
      source: "shopify",
      shopDomain: shop,
      topic,
      eventKey: ctx.eventId || ctx.webhookId,
      webhookId: ctx.webhookId,
      triggeredAt: triggered && !Number.isNaN(triggered.getTime()) ? triggered : undefined,
      payload: (payload ?? {}) as Prisma.InputJsonValue,
    },
    inline ? (tx) => inline(tx, shop) : undefined,
  );
  return new Response(null, { status: 200 });
}
