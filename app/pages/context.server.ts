/**
 * The admin context of a page request: which shop, and its Admin API client.
 *
 * Production (and any run without SANDBOX=1): `authenticate.admin`, unchanged. In the sandbox,
 * a request carrying the signed sandbox cookie (app/sandbox/auth.server.ts) gets the
 * shop's offline session instead; without the cookie it is sent to the sandbox sign-in.
 */
import { redirect } from "@remix-run/node";
import { authenticate, unauthenticated } from "../shopify.server";
import { sandboxEnabled, sandboxShopOf } from "../sandbox/auth.server";

export interface AdminContext {
  shop: string;
  admin: { graphql: unknown };
  session: { shop: string; accessToken?: string };
  /** True when signed in through the sandbox (plain browser, no App Bridge). */
  sandbox: boolean;
  /**
   * A redirect inside the app: in Shopify's admin the library's (it keeps the embedded app's
   * parameters), in the sandbox a plain one.
   */
  redirect(url: string): Response;
}

export async function requireAdmin(request: Request): Promise<AdminContext> {
  if (sandboxEnabled()) {
    const shop = await sandboxShopOf(request);
    if (!shop) throw redirect("/sandbox/signin");
    const { admin, session } = await unauthenticated.admin(shop);
    return { shop, admin, session, sandbox: true, redirect: (url) => redirect(url) };
  }
  const { admin, session, redirect: embedded } = await authenticate.admin(request);
  return {
    shop: session.shop,
    admin,
    session,
    sandbox: false,
    redirect: (url) => embedded(url),
  };
}
