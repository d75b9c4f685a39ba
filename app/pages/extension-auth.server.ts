/**
 * Requests from the Admin UI extensions carry the session token Shopify's admin signs with the
 * app's secret (`Authorization: Bearer …`). `authenticate.admin` checks it (signature, expiry,
 * audience), answers the CORS preflight, and throws 401 for a missing, forged or expired token;
 * the shop is the token's `dest`, never a parameter of the request.
 */
import { authenticate } from "../shopify.server";

export async function extensionRequest(
  request: Request,
): Promise<{ shop: string; cors: (r: Response) => Response }> {
  const { session, cors } = await authenticate.admin(request);
  return { shop: session.shop, cors };
}

/** Small JSON, never cached (it is one shop's and changes as the order moves). */
export function extensionJson(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" },
  });
}
