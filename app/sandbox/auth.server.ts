/**
 * The sandbox sign-in: lets the admin pages work in a plain browser, outside Shopify's admin,
 * when the app runs as `npm run sandbox`.
 *
 * The embedded auth needs Shopify's id_token, which only Shopify's admin can give. In the
 * sandbox, `/sandbox/signin` instead sets a cookie signed with the app's secret naming the demo
 * shop, and `requireAdmin` (context.server.ts) then builds the admin context from that shop's
 * stored offline session (`unauthenticated.admin`), exactly as background jobs do.
 *
 * Why this cannot open a door in production: every entry point checks `sandboxEnabled()`,
 * which is false unless SANDBOX=1 AND NODE_ENV is not production (and the configuration
 * already refuses to start with SANDBOX=1 in production). With it false, the sign-in route
 * answers 404 and the cookie is never even read.
 */
import { createCookie } from "@remix-run/node";
import { config } from "../config.server";

export function sandboxEnabled(): boolean {
  return config.SANDBOX && config.NODE_ENV !== "production";
}

const cookie = createCookie("sandbox_shop", {
  httpOnly: true,
  sameSite: "lax",
  path: "/",
  maxAge: 7 * 24 * 3600,
  // The app secret signs it: a cookie forged or edited in the browser is ignored.
  secrets: [`sandbox:${config.SHOPIFY_API_SECRET}`],
});

const SHOP_RE = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;

/** The Set-Cookie header that signs `shop` in. Throws when the sandbox is off. */
export async function sandboxSignInCookie(shop: string): Promise<string> {
  if (!sandboxEnabled()) throw new Error("the sandbox is off");
  if (!SHOP_RE.test(shop)) throw new Error("not a shop domain");
  return cookie.serialize({ shop });
}

/** The shop signed in by the sandbox cookie; null when the sandbox is off or there is none. */
export async function sandboxShopOf(request: Request): Promise<string | null> {
  if (!sandboxEnabled()) return null;
  const value: unknown = await cookie.parse(request.headers.get("cookie"));
  if (!value || typeof value !== "object") return null;
  const shop = (value as { shop?: unknown }).shop;
  return typeof shop === "string" && SHOP_RE.test(shop) ? shop : null;
}
