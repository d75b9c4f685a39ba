/**
 * The admin context of a page request: which shop, and its Admin API client.
 *
 * Production (and any run without SANDBOX=1): `authenticate.admin`, unchanged. In the sandbox,
 * a request carrying the signed sandbox cookie (app/sandbox/auth.server.ts) gets the
 * shop's offline session instead; without the cookie it is sent to the sandbox sign-in.
 *
 * A session token the library would choke on is a 401, not a 500: one whose `dest` is not a
 * shop's myshopify address (checked before the library parses it), and one for a shop that
 * never installed the app (Shopify refuses the token exchange; no offline session is stored).
 */
import { redirect } from "@remix-run/node";
import { config } from "../config.server";
import { offlineSessionId } from "../shop/offline-token.server";
import { authenticate, sessionStorage, unauthenticated } from "../shopify.server";
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
  const { admin, session, redirect: embedded } = await authenticateAdmin(request);
  return {
    shop: session.shop,
    admin,
    session,
    sandbox: false,
    redirect: (url) => embedded(url),
  };
}

/** A shop's address: `<name>.myshopify.com`, or under SHOP_CUSTOM_DOMAIN as the library allows. */
const SHOP_DOMAINS = [
  "myshopify\\.com",
  ...(config.SHOP_CUSTOM_DOMAIN ? [config.SHOP_CUSTOM_DOMAIN] : []),
];
const SHOP_HOST = new RegExp(`^[a-zA-Z0-9][a-zA-Z0-9-_]*\\.(${SHOP_DOMAINS.join("|")})$`);

/** The session token a request carries: `Authorization: Bearer …`, or the `id_token` param. */
function sessionTokenOf(request: Request): string | null {
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.get("Authorization") ?? "");
  return bearer?.[1] ?? new URL(request.url).searchParams.get("id_token");
}

/**
 * The shop a session token names in its `dest` (`https://<shop>.myshopify.com`), unverified:
 * null when it names none. Only to refuse early; the library verifies the signature.
 */
export function tokenShop(token: string): string | null {
  try {
    const payload: unknown = JSON.parse(
      Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8"),
    );
    const dest = (payload as { dest?: unknown } | null)?.dest;
    if (typeof dest !== "string") return null;
    const url = new URL(dest);
    const plain = url.protocol === "https:" && url.pathname === "/" && !url.search && !url.port;
    return plain && SHOP_HOST.test(url.hostname) ? url.hostname : null;
  } catch {
    return null;
  }
}

const notValid = (message: string) =>
  new Response(JSON.stringify({ error: message }), {
    status: 401,
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" },
  });

/** `authenticate.admin`, with the odd tokens above answered 401. */
export async function authenticateAdmin(request: Request) {
  const token = sessionTokenOf(request);
  const shop = token === null ? null : tokenShop(token);
  if (token !== null && shop === null) throw notValid("The session token names no shop.");
  try {
    return await authenticate.admin(request);
  } catch (thrown) {
    // The library answers a failed token exchange with a bare 500: for a shop with no stored
    // session, Shopify refused to install it for this token.
    if (thrown instanceof Response && thrown.status === 500 && shop !== null) {
      const stored = await sessionStorage.loadSession(offlineSessionId(shop));
      if (!stored) throw notValid("This shop has not installed the app.");
    }
    throw thrown;
  }
}
