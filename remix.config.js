/** @type {import('@remix-run/dev').AppConfig} */
export default {
  ignoredRouteFiles: ["**/.*", "**/*.test.*"],
  appDirectory: "app",
  serverModuleFormat: "esm",
  serverPlatform: "node",
  // Bundled into the server build so their `import … with { type: "json" }` and ESM-only
  // entry points resolve the same way in dev and production.
  serverDependenciesToBundle: [/^@shopify\/shopify-app-remix/, /^@shopify\/polaris/],
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_lazyRouteDiscovery: true,
  },
};
