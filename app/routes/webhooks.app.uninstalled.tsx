import type { ActionFunctionArgs } from "@remix-run/node";
import { prisma } from "../db.server";
import { authenticate } from "../shopify.server";
import { recordUninstall } from "../shops.server";

// Handles app/uninstalled. authenticate.webhook answers 401 itself when the HMAC is wrong.
export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop } = await authenticate.webhook(request);
  await recordUninstall(prisma, shop);
  return new Response(null, { status: 200 });
};
