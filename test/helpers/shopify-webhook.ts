import { createHmac, randomUUID } from "node:crypto";

export const TEST_API_SECRET = "test-api-secret";

/**
 * A webhook request as Shopify sends it, signed with the app's secret (or a forged one).
 * `rawBody` is sent as it is instead of `body` as JSON; `headers` replace Shopify's (null
 * leaves one out).
 */
export function shopifyWebhookRequest(
  url: string,
  opts: {
    topic: string;
    shop: string;
    body: unknown;
    rawBody?: string;
    secret?: string;
    eventId?: string;
    webhookId?: string;
    headers?: Record<string, string | null>;
  },
): Request {
  const body = opts.rawBody ?? JSON.stringify(opts.body);
  const hmac = createHmac("sha256", opts.secret ?? TEST_API_SECRET)
    .update(body)
    .digest("base64");
  const headers: Record<string, string | null> = {
    "Content-Type": "application/json",
    "X-Shopify-Topic": opts.topic,
    "X-Shopify-Shop-Domain": opts.shop,
    "X-Shopify-Hmac-Sha256": hmac,
    "X-Shopify-Webhook-Id": opts.webhookId ?? randomUUID(),
    "X-Shopify-Event-Id": opts.eventId ?? randomUUID(),
    "X-Shopify-Triggered-At": new Date().toISOString(),
    "X-Shopify-API-Version": "2026-10",
    ...opts.headers,
  };
  return new Request(url, {
    method: "POST",
    body,
    headers: Object.entries(headers).filter((h): h is [string, string] => h[1] !== null),
  });
}
