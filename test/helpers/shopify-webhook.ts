import { createHmac, randomUUID } from "node:crypto";

export const TEST_API_SECRET = "test-api-secret";

/** A webhook request as Shopify sends it, signed with the app's secret (or a forged one). */
export function shopifyWebhookRequest(
  url: string,
  opts: {
    topic: string;
    shop: string;
    body: unknown;
    secret?: string;
    eventId?: string;
    webhookId?: string;
  },
): Request {
  const body = JSON.stringify(opts.body);
  const hmac = createHmac("sha256", opts.secret ?? TEST_API_SECRET)
    .update(body)
    .digest("base64");
  return new Request(url, {
    method: "POST",
    body,
    headers: {
      "Content-Type": "application/json",
      "X-Shopify-Topic": opts.topic,
      "X-Shopify-Shop-Domain": opts.shop,
      "X-Shopify-Hmac-Sha256": hmac,
      "X-Shopify-Webhook-Id": opts.webhookId ?? randomUUID(),
      "X-Shopify-Event-Id": opts.eventId ?? randomUUID(),
      "X-Shopify-Triggered-At": new Date().toISOString(),
      "X-Shopify-API-Version": "2026-10",
    },
  });
}
