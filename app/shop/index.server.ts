/**
 * Gateways for a shop: `shopGatewayFor(shop)` for background work (the shop's offline session,
 * loaded from the database by the library), `shopGatewayForRequest(admin, session)` inside a
 * request authenticated with `authenticate.admin`.
 */
import { SessionNotFoundError } from "@shopify/shopify-app-remix/server";
import { prisma } from "../db.server";
import { offlineTokens, unauthenticated } from "../shopify.server";
import { ShopNoSessionError } from "./errors";
import {
  type AdminGraphql,
  type ShopGateway,
  createShopGateway,
  operationName,
} from "./gateway.server";
import { type ShopDomain, parseShopDomain } from "./ids";
import {
  REJECTED_MESSAGE,
  ShopReauthRequiredError,
  UNINSTALLED_MESSAGE,
} from "./offline-token.server";

export * from "./errors";
export * from "./gateway.server";
export * from "./ids";
export { REAUTH_MESSAGE, ShopReauthRequiredError } from "./offline-token.server";

const OPERATION = "unauthenticated.admin";

/** The library's admin context from the offline session (refreshed first if it expires soon). */
async function offlineAdmin(domain: ShopDomain) {
  try {
    return await unauthenticated.admin(domain);
  } catch (error) {
    if (!(error instanceof SessionNotFoundError)) throw error;
    // No session: Shopify revoked the app's access, or the app was uninstalled.
    const row = await prisma.shop.findUnique({
      where: { domain },
      select: { authProblem: true, uninstalledAt: true },
    });
    if (row?.uninstalledAt)
      throw new ShopReauthRequiredError(domain, OPERATION, UNINSTALLED_MESSAGE);
    if (row?.authProblem) throw new ShopReauthRequiredError(domain, OPERATION, row.authProblem);
    throw new ShopNoSessionError("NO_SESSION", {
      shop: domain,
      operation: OPERATION,
      message: "no offline session is stored for this shop (is the app installed?)",
    });
  }
}

const isUnauthorized = (error: unknown) =>
  (error as { response?: { code?: unknown } } | null)?.response?.code === 401;

/**
 * The gateway of a shop from its offline session (jobs, webhooks, the reconciler). The token
 * is kept fresh for as long as the gateway lives: renewed (once, shared by every process)
 * before it expires, and after a 401 once; a second 401, or a refresh Shopify refuses, marks
 * the shop for reconnection and throws ShopReauthRequiredError (app/shop/offline-token.server.ts).
 */
export async function shopGatewayFor(shop: string): Promise<ShopGateway> {
  const domain = parseShopDomain(shop);
  let ctx = await offlineAdmin(domain);
  const secrets: (string | undefined)[] = [ctx.session.accessToken, ctx.session.refreshToken];
  const renew = async (next: Promise<typeof ctx>) => {
    ctx = await next;
    secrets.push(ctx.session.accessToken, ctx.session.refreshToken);
  };
  const graphql: AdminGraphql = async (query, options) => {
    if (offlineTokens.expiresSoon(ctx.session)) await renew(offlineAdmin(domain));
    const used = ctx.session.accessToken;
    try {
      return await (ctx.admin.graphql as AdminGraphql)(query, options);
    } catch (error) {
      if (!isUnauthorized(error)) throw error;
    }
    // 401: refresh (or take the token another process just got) and try once more.
    const rejected = () =>
      new ShopReauthRequiredError(domain, operationName(query), REJECTED_MESSAGE);
    if (!(await offlineTokens.afterRejected(domain, used))) throw rejected();
    await renew(offlineAdmin(domain));
    try {
      return await (ctx.admin.graphql as AdminGraphql)(query, options);
    } catch (error) {
      if (!isUnauthorized(error)) throw error;
      await offlineTokens.markReauthRequired(domain);
      throw rejected();
    }
  };
  return createShopGateway({ shop: domain, graphql, secrets });
}

/** The gateway inside a request: `const { admin, session } = await authenticate.admin(request)`. */
export function shopGatewayForRequest(
  admin: { graphql: unknown },
  session: { shop: string; accessToken?: string },
): ShopGateway {
  return createShopGateway({
    shop: parseShopDomain(session.shop),
    graphql: admin.graphql as AdminGraphql,
    secrets: [session.accessToken],
  });
}
