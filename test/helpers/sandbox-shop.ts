/**
 * A shop as `npm run sandbox` has it, for tests of the pages (SANDBOX=1): its offline session
 * (the shop simulator's token) and its Shop row.
 */
import type { PrismaClient } from "@prisma/client";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { type ServiceSim, startServiceSim } from "../sim/service";

export async function installSandboxShop(prisma: PrismaClient, shop: string): Promise<void> {
  await prisma.session.create({
    data: {
      id: `offline_${shop}`,
      shop,
      state: "x",
      isOnline: false,
      accessToken: "simtoken_test",
      scope: "read_orders",
    },
  });
  await prisma.shop.create({ data: { domain: shop } });
}

/** A browser's user agent (the pages answer bots differently). */
export const UA = "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0 Safari/537.36";

/** A route's loader or action, as the tests call them. */
export type Route = (args: ActionFunctionArgs | LoaderFunctionArgs) => unknown;

/**
 * The service simulator and the app's database as the sandbox's pages see them: SANDBOX=1, the
 * service at the simulator, the app at localhost:3000 (set before the app is first imported).
 */
export async function startSandboxPages(): Promise<{ sim: ServiceSim; prisma: PrismaClient }> {
  const sim = await startServiceSim({ allowLoopbackWebhooks: true });
  process.env.SANDBOX = "1";
  process.env.SVC_BASE_URL = sim.url;
  process.env.SHOPIFY_APP_URL = "http://localhost:3000";
  const { prisma } = await import("../../app/db.server");
  return { sim, prisma };
}
