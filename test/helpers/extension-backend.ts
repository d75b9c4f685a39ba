/**
 * The extensions' backend (routes api.ext.*) served over real HTTP for a harness's shop, and
 * the `fetch` Shopify's admin gives an extension: a relative address resolved against the app's
 * URL, the session token (signed with the app's secret by the shop simulator) added, a browser's
 * origin and user agent. Nothing else of the host is stubbed here.
 */
import type { ActionFunctionArgs } from "@remix-run/node";
import * as ordersRoute from "../../app/routes/api.ext.orders";
import * as runsRoute from "../../app/routes/api.ext.runs.$id";
import type { Harness } from "../fulfilment/harness";
import { serveRoutes } from "./app-server";

export const ADMIN_ORIGIN = "https://extensions.shopifycdn.com";
export const BROWSER_UA =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130 Safari/537.36";

type RouteModule = { loader?: unknown; action?: unknown };
/** A route module as one handler: GET to its loader, any other method to its action. */
const byMethod = (m: RouteModule) => (args: ActionFunctionArgs) =>
  ((args.request.method === "GET" ? m.loader : m.action) as (a: ActionFunctionArgs) => unknown)(
    args,
  );

export function serveExtensionBackend() {
  return serveRoutes({
    "/api/ext/orders": byMethod(ordersRoute),
    "/api/ext/runs/:id": byMethod(runsRoute),
  });
}

/**
 * The admin's fetch for an extension of `shop`, talking to the app at `appUrl`: a relative
 * address or one on the app's origin gets the session token; any other goes out untouched (as
 * in the admin; here it also keeps the app's own calls to the simulators working, since the
 * extension and the app share one process and one global fetch).
 */
export function adminFetch(
  h: Harness,
  appUrl: string,
  shop: string,
  realFetch: typeof fetch,
): typeof fetch {
  return (input, init = {}) => {
    const raw = input instanceof Request ? input.url : String(input);
    const url = new URL(raw, appUrl);
    if (/^[a-z]+:/i.test(raw) && url.origin !== new URL(appUrl).origin) {
      return realFetch(input, init);
    }
    const headers = new Headers(init.headers);
    headers.set("Authorization", `Bearer ${h.shop.oauth.mintIdToken(shop)}`);
    headers.set("Origin", ADMIN_ORIGIN);
    headers.set("User-Agent", BROWSER_UA);
    return realFetch(url, { ...init, headers });
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the app's jobs until `check` passes (the extension polls while the worker works). */
export async function settleUntil(
  h: Harness,
  check: () => void | Promise<void>,
  timeoutMs = 20_000,
) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    await h.settle();
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > until) throw error;
    }
    await sleep(100);
  }
}
