/**
 * Routes the Shopify library's own HTTP to the shop simulator. The library sends every Admin
 * API request through the `abstractFetch` of `@shopify/shopify-api/runtime` (its adapters set
 * it to the global fetch when they are imported: `@shopify/shopify-app-remix/server` imports
 * the web-api adapter). Replacing it after app/shopify.server has been imported keeps the whole
 * production path (session lookup, the token header, the client's retries and error mapping)
 * and changes only where the bytes go:
 *
 *   https://<shop>.myshopify.com/admin/api/2026-10/graphql.json
 *     → <sim>/admin/api/2026-10/graphql.json  with  X-Sim-Shop-Domain: <shop>
 *
 * Anything else (other hosts, other paths) goes to the real fetch untouched.
 */
import { setAbstractFetchFunc } from "@shopify/shopify-api/runtime";

export interface ShopifyRoute {
  /** The requests that were rewritten, in order (URL as the library built it). */
  routed: string[];
  /** Puts the global fetch back. */
  restore(): void;
}

export function routeShopifyToSim(
  simUrl: string,
  opts: {
    match?: (host: string) => boolean;
    /** Per shop: the simulator serving that host (default: `simUrl` for every host). */
    simFor?: (host: string) => string | undefined;
  } = {},
): ShopifyRoute {
  const match = opts.match ?? ((host) => host.endsWith(".myshopify.com"));
  const base = new URL(simUrl);
  const routed: string[] = [];
  const realFetch = globalThis.fetch;
  const routedFetch: typeof fetch = async (input, init) => {
    const url = new URL(
      typeof input === "string" ? input : input instanceof URL ? input.href : input.url,
    );
    if (url.protocol !== "https:" || !match(url.hostname) || !url.pathname.startsWith("/admin/")) {
      return realFetch(input, init);
    }
    routed.push(url.href);
    const headers = new Headers(
      init?.headers ?? (input instanceof Request ? input.headers : undefined),
    );
    headers.set("X-Sim-Shop-Domain", url.hostname);
    const sim = opts.simFor?.(url.hostname);
    const target = new URL(url.pathname + url.search, sim ? new URL(sim) : base);
    if (input instanceof Request && !init) {
      return realFetch(
        new Request(target, { method: input.method, headers, body: await input.text() }),
      );
    }
    return realFetch(target, { ...init, headers });
  };
  setAbstractFetchFunc(routedFetch);
  return {
    routed,
    restore: () => setAbstractFetchFunc(realFetch),
  };
}
