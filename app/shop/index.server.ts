/**
 * Gateways for a shop: `shopGatewayFor(shop)` for background work (the shop's offline session,
 * loaded from the database by the library), `shopGatewayForRequest(admin, session)` inside a
 * request authenticated with `authenticate.admin`.
 */
import { SessionNotFoundError } from "@shopify/shopify-app-remix/server";
import { unauthenticated } from "../shopify.server";
import { ShopNoSessionError } from "./errors";
import { type AdminGraphql, type ShopGateway, createShopGateway } from "./gateway.server";
import { parseShopDomain } from "./ids";

export * from "./errors";
export * from "./gateway.server";
export * from "./ids";

/** The gateway of a shop from its offline session (jobs, webhooks, the reconciler). */
export async function shopGatewayFor(shop: string): Promise<ShopGateway> {
  const domain = parseShopDomain(shop);
  try {
    const { admin, session } = await unauthenticated.admin(domain);
    return createShopGateway({
      shop: domain,
      graphql: admin.graphql as AdminGraphql,
      secrets: [session.accessToken, session.refreshToken],
    });
  } catch (error) {
    if (error instanceof SessionNotFoundError) {
      throw new ShopNoSessionError("NO_SESSION", {
        shop: domain,
        operation: "unauthenticated.admin",
        message: "no offline session is stored for this shop (is the app installed?)",
      });
    }
    throw error;
  }
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
