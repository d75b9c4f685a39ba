import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveShopifyWebhook } from "../webhooks/shopify.server";
import { COMPLIANCE_TOPICS } from "../webhooks/shopify-topics.server";

// The three compliance topics, one route (shopify.app.toml); stored with their job and
// acknowledged at once (the work runs in app/shops/jobs.server.ts).
export const action = ({ request }: ActionFunctionArgs) =>
  receiveShopifyWebhook(request, { topics: COMPLIANCE_TOPICS });
