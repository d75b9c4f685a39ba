import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveShopifyWebhook } from "../webhooks/shopify.server";

// Only app/scopes_update is taken here: stored with its job and acknowledged at once;
// the work runs in app/shops/jobs.server.ts.
export const action = ({ request }: ActionFunctionArgs) =>
  receiveShopifyWebhook(request, { topics: ["app/scopes_update"] });
