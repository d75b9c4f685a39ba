/**
 * Requests from the Admin UI extensions carry the session token Shopify's admin signs with the
 * app's secret (`Authorization: Bearer …`). `authenticate.admin` checks it (signature, expiry,
 * audience) and answers the CORS preflight; a request without a token, or with a missing,
 * forged or expired one, is a 401 (never the login page's redirect). The shop is the token's
 * `dest`, never a parameter of the request. CORS names Shopify's admin origins, never `*`.
 */
import { authenticateAdmin } from "./context.server";

/** Where the admin sends from: its extensions' sandbox, and the admin itself. */
export const ADMIN_ORIGINS: readonly string[] = [
  "https://extensions.shopifycdn.com",
  "https://admin.shopify.com",
];

/** The response with CORS for an admin origin (echoed), and none for any other. */
export function withAdminCors(request: Request, response: Response): Response {
  const r = new Response(response.body, response);
  r.headers.delete("Access-Control-Allow-Origin");
  r.headers.append("Vary", "Origin");
  const origin = request.headers.get("Origin");
  if (origin && ADMIN_ORIGINS.includes(origin)) {
    r.headers.set("Access-Control-Allow-Origin", origin);
    r.headers.set("Access-Control-Allow-Headers", "Authorization, Content-Type");
  } else {
    r.headers.delete("Access-Control-Allow-Headers");
    r.headers.delete("Access-Control-Expose-Headers");
  }
  return r;
}

export async function extensionRequest(
  request: Request,
): Promise<{ shop: string; cors: (r: Response) => Response }> {
  const bearer = /^Bearer\s+\S+/i.test(request.headers.get("Authorization") ?? "");
  if (request.method !== "OPTIONS" && !bearer)
    throw withAdminCors(request, extensionJson({ error: "A session token is required." }, 401));
  try {
    const { session, cors } = await authenticateAdmin(request);
    return { shop: session.shop, cors: (r) => withAdminCors(request, cors(r)) };
  } catch (thrown) {
    if (!(thrown instanceof Response)) throw thrown;
    // The preflight's answer, or a refused token: 401, whatever the library would redirect to.
    if (request.method === "OPTIONS") throw withAdminCors(request, thrown);
    if (thrown.status >= 300 && thrown.status < 400)
      throw withAdminCors(
        request,
        extensionJson({ error: "The session token is not valid." }, 401),
      );
    throw withAdminCors(request, thrown);
  }
}

/** Small JSON, never cached (it is one shop's and changes as the order moves). */
export function extensionJson(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" },
  });
}
