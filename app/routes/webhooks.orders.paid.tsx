import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveShopifyWebhook } from "../webhooks/shopify.server";

// Only orders/paid is taken here: stored with its job and acknowledged at once;
// the work runs in app/fulfilment/handlers.server.ts.
export const action = ({ request }: ActionFunctionArgs) =>
  receiveShopifyWebhook(request, { topics: ["orders/paid"] });
