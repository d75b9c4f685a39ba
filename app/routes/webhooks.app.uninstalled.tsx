import type { ActionFunctionArgs } from "@remix-run/node";
import { recordUninstall } from "../shops/shops.server";
import { receiveShopifyWebhook } from "../webhooks/shopify.server";

// Only app/uninstalled is taken here. The shop is marked uninstalled and its sessions removed in
// the same transaction as the stored event; the job then disconnects the service account
// (app/shops/jobs.server.ts).
export const action = ({ request }: ActionFunctionArgs) =>
  receiveShopifyWebhook(request, {
    topics: ["app/uninstalled"],
    inline: (tx, shop) => recordUninstall(tx, shop),
  });
