/* global Headers, Request */
/**
 * Preloaded into the app's processes by `bench:scale` (`node --import ./bench/scale-route.mjs
 * build/server.js`): sends the Shopify library's Admin API requests to the shop simulator
 * (SCALE_SHOP_SIM_URL) instead of https://<shop>.myshopify.com, with the shop named in
 * X-Sim-Shop-Domain. Installed before the app loads, so the library's web-api adapter takes this
 * fetch as its own; every other request (the service, the exchange rates) goes out unchanged.
 * Nothing else of the compiled app is touched: production code, production wiring.
 */
const sim = new URL(process.env.SCALE_SHOP_SIM_URL);
const realFetch = globalThis.fetch;

globalThis.fetch = async (input, init) => {
  const url = new URL(
    typeof input === "string" ? input : input instanceof URL ? input.href : input.url,
  );
  if (
    url.protocol !== "https:" ||
    !url.hostname.endsWith(".myshopify.com") ||
    !url.pathname.startsWith("/admin/")
  )
    return realFetch(input, init);
  const headers = new Headers(
    init?.headers ?? (input instanceof Request ? input.headers : undefined),
  );
  headers.set("X-Sim-Shop-Domain", url.hostname);
  const target = new URL(url.pathname + url.search, sim);
  if (input instanceof Request && !init)
    return realFetch(
      new Request(target, { method: input.method, headers, body: await input.text() }),
    );
  return realFetch(target, { ...init, headers });
};
