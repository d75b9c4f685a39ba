/**
 * Shopify webhooks in: authenticate (the library's own HMAC and header check; a forged request
 * gets 401 and stores nothing), check what the signature does not cover, store the event with
 * its job, answer 200 at once. Not `authenticate.webhook`: it also loads (and may refresh) the
 * shop's offline session on every delivery, which the intake never uses.
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
import { WebhookValidationErrorReason } from "@shopify/shopify-api";
import { config } from "../config.server";
import type { Db } from "../db/types";
import { addLogContext } from "../log-context.server";
import { logger } from "../logger.server";
import { validateShopifyWebhook } from "../shopify.server";
import { recordEvent } from "../events/store.server";
import { BodyLimitError, parseJsonBounded, readTextLimited } from "./json-limits.server";
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
  if (request.method !== "POST") return new Response(null, { status: 405 });
  // Checked before the library sees it: the library's session lookup throws (a 500) on a shop
  // header that is not a myshopify domain.
  // (Headers have the whitespace around a value stripped already.)
  const shop = (request.headers.get("X-Shopify-Shop-Domain") ?? "").toLowerCase();
  if (!SHOP_DOMAIN.test(shop)) return refuse(400, "shop is not a myshopify.com domain");
  // The raw body, read once within the route's limit (the server refused a larger one before
  // reading it); it is both what the HMAC covers and what is parsed, keeping ids above 2^53
  // as exact digit strings.
  let raw: string;
  try {
    raw = await readTextLimited(request, config.SHOPIFY_WEBHOOK_MAX_BYTES);
  } catch (error) {
    if (error instanceof BodyLimitError) return error.toResponse();
    throw error;
  }
  const signed = await validateShopifyWebhook(request, raw);
  if (!signed.valid) {
    return signed.reason === WebhookValidationErrorReason.InvalidHmac
      ? new Response(null, { status: 401 })
      : refuse(400, "not a Shopify webhook");
  }

  const header = (request.headers.get("X-Shopify-Topic") ?? "").toLowerCase();
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
    payload = parseJsonBounded(raw, { lossless: true });
  } catch (error) {
    // Whatever fails in it, parseJsonBounded throws a BodyLimitError (invalid_json at worst).
    const refusal = error as BodyLimitError;
    return refuse(refusal.status, refusal.message);
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
  const triggered = signed.triggeredAt ? new Date(signed.triggeredAt) : undefined;
  const inline = route.inline;
  const stored = await recordEvent(
    {
      source: "shopify",
      shopDomain: shop,
      topic,
      eventKey: ("eventId" in signed && signed.eventId) || signed.webhookId,
      webhookId: signed.webhookId,
      triggeredAt: triggered && !Number.isNaN(triggered.getTime()) ? triggered : undefined,
      payload: (payload ?? {}) as Prisma.InputJsonValue,
      onlyForShop: { acceptUninstalled: acceptsUninstalledShop(topic) },
    },
    inline ? (tx) => inline(tx, shop) : undefined,
  );
  if (stored.refused) {
    logger.warn(
      { shop, topic, known: stored.refused !== "unknown shop" },
      "Shopify webhook for a shop that is not installed: acknowledged, not stored",
    );
  }
  return new Response(null); // 200
}
