/**
 * The house's rules (README "Layout"), held by `npm run lint:deps`:
 *
 *   ground      app/db/, app/svc/, app/shop/, app/jobs/, app/metrics/ and the plain services at
 *               app/'s root (config, logging, crypto, database client, shutdown, health)
 *   kernel      app/orders/ (the order's vocabulary), app/page-kit/ (form parsing, bounded
 *               service reads) and app/settings.server.ts
 *   capability  app/<capability>/: connections, catalog, shipping, fx, repair, archive,
 *               fulfilment, disputes, notify, svc-account, shops, inventory, workqueue, components, settings-forms
 *   edges       app/webhooks/ (intake), app/worker/ (job kind → handler), app/routes/, the
 *               Remix entry and root, app/shopify.server.ts (the Shopify app and its auth)
 *
 * A folder imports only from its own floor or below; there are no cycles; app/jobs/ (the
 * queue) imports only app/db/. An import that breaks a rule on purpose is listed in
 * EXCEPTIONS with its reason; the rule still holds for every other import of that file.
 */

const GROUND = [
  "^app/(db|svc|shop|jobs|metrics)/",
  "^app/(config|crypto|db|logger|log-context|metrics|shutdown|draining|health)\\.server\\.ts$",
];
const KERNEL = ["^app/orders/", "^app/page-kit/", "^app/settings\\.server\\.ts$"];
const CAPABILITY = [
  "^app/(connections|catalog|shipping|fx|repair|archive|fulfilment|disputes|notify|svc-account|shops|inventory|components|settings-forms|workqueue|billing|reports|extension-api|sandbox)/",
];
const EDGES = [
  "^app/(webhooks|worker|routes)/",
  "^app/(entry\\.server|root)\\.tsx$",
  "^app/shopify\\.server\\.ts$",
];

/** Imports that break a layer rule on purpose: [from file, to file, why]. */
const EXCEPTIONS = [
  [
    "app/shop/index.server.ts",
    "app/shopify.server.ts",
    "the gateway's production factory takes the shop's offline session from the Shopify app " +
      "(token exchange and session storage are configured once, in shopify.server.ts)",
  ],
  [
    "app/metrics/db-gauges.server.ts",
    "app/orders/states.ts",
    "the orders-by-state gauge labels its series with the one list of order states",
  ],
  [
    "app/config.server.ts",
    "app/archive/bucket.server.ts",
    "the configuration refuses a malformed ARCHIVE_S3_URL at start with the bucket's own " +
      "parser (a module without dependencies)",
  ],
  [
    "app/settings.server.ts",
    "app/shipping/rules.ts",
    "a shop's settings validate its shipping rules with the rules' own parser (a module " +
      "without dependencies)",
  ],
];

const LAYERS = [
  { name: "ground", from: GROUND, above: [...KERNEL, ...CAPABILITY, ...EDGES] },
  { name: "kernel", from: KERNEL, above: [...CAPABILITY, ...EDGES] },
  { name: "capability", from: CAPABILITY, above: EDGES },
];

const esc = (p) => `^${p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`;

function layerRules() {
  const rules = [];
  for (const layer of LAYERS) {
    const excepted = [...new Set(EXCEPTIONS.map(([from]) => from))].filter((f) =>
      layer.from.some((p) => new RegExp(p).test(f)),
    );
    rules.push({
      name: `${layer.name}-imports-no-higher-floor`,
      comment: `A ${layer.name} module imports only from its own floor or below.`,
      severity: "error",
      from: { path: layer.from, pathNot: excepted.map(esc) },
      to: { path: layer.above },
    });
    for (const file of excepted) {
      const allowed = EXCEPTIONS.filter(([from]) => from === file);
      rules.push({
        name: `${layer.name}-imports-no-higher-floor`,
        comment: allowed.map(([, to, why]) => `${to}: ${why}`).join(" | "),
        severity: "error",
        from: { path: esc(file) },
        to: { path: layer.above, pathNot: allowed.map(([, to]) => esc(to)) },
      });
    }
  }
  return rules;
}

module.exports = {
  forbidden: [
    ...layerRules(),
    {
      name: "no-cycles",
      comment: "Modules that import each other in a loop cannot be read or tested apart.",
      severity: "error",
      from: { path: "^app/" },
      to: { circular: true },
    },
    {
      name: "jobs-is-a-library",
      comment: "The queue (app/jobs/) knows the job table and nothing of what the jobs do.",
      severity: "error",
      from: { path: "^app/jobs/" },
      to: { path: "^app/", pathNot: ["^app/jobs/", "^app/db/"] },
    },
    {
      name: "not-to-tests",
      comment: "The app never imports a test, a simulator or a bench.",
      severity: "error",
      from: { path: "^app/" },
      to: { path: "^(test|bench)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|build|public/build)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default"],
    },
  },
};

// For scripts/house-metrics.mjs (not a dependency-cruiser option, hence not enumerable).
Object.defineProperty(module.exports, "EXCEPTIONS", { value: EXCEPTIONS, enumerable: false });
