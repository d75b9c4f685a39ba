/**
 * Contract of every Admin GraphQL document the app sends, against Shopify's published schema
 * (test/sim/shop/admin-schema.ts, API 2026-10):
 * - every `#graphql` document in app/ is registered in OPERATIONS (app/shop/operations.server.ts);
 * - each is valid (graphql-js `validate`) and named;
 * - its requested cost, with the largest page sizes the app sends, is within Shopify's 1,000;
 * - the cost written beside it in its module is that cost;
 * - the app's scopes (shopify.app.toml, and the same default in app/config.server.ts) can read
 *   every field it selects.
 * The table of names and costs is printed, and is in the name of the last test.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { Kind, type OperationDefinitionNode, parse, validate } from "graphql";
import { describe, expect, it } from "vitest";
import { OPERATIONS } from "../../app/shop/operations.server";
import {
  MAX_QUERY_COST,
  accessDenials,
  adminSchema,
  requestedCost,
} from "../sim/shop/admin-schema";

const ROOT = resolve(import.meta.dirname, "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(name) ? [path] : [];
  });
}

/** The operation names of every `#graphql` template in app/ (file → names). */
function documentsInApp(): { file: string; name: string }[] {
  const out: { file: string; name: string }[] = [];
  for (const file of sourceFiles(join(ROOT, "app"))) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/`#graphql([^`]*)`/g)) {
      const name = /\b(?:query|mutation|subscription)\s+([A-Za-z_]\w*)/.exec(m[1]!)?.[1];
      out.push({ file: relative(ROOT, file), name: name ?? "(anonymous)" });
    }
  }
  return out;
}

function appScopes(): string[] {
  const toml = readFileSync(join(ROOT, "shopify.app.toml"), "utf8");
  const section = toml.split(/^\[access_scopes\]/m)[1]?.split(/^\[/m)[0] ?? "";
  const m = /^scopes\s*=\s*"([^"]*)"/m.exec(section);
  if (!m) throw new Error("no scopes in shopify.app.toml [access_scopes]");
  return m[1]!
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

const rows = Object.entries(OPERATIONS).map(([name, op]) => {
  const doc = parse(op.document);
  return {
    name,
    op,
    doc,
    cost: requestedCost(doc, op.worstCaseVariables, name),
  };
});

const table = rows.map((r) => `${r.name} ${r.cost}`).join(", ");

describe("the app's GraphQL documents", () => {
  it("every #graphql document in app/ is registered in OPERATIONS", () => {
    const found = documentsInApp();
    expect(found.length).toBeGreaterThanOrEqual(rows.length);
    for (const f of found) {
      expect(
        OPERATIONS[f.name]?.document,
        `${f.file}: ${f.name} is not in OPERATIONS (app/shop/operations.server.ts)`,
      ).toBeDefined();
    }
    // …and each registered document is one of them, under its own name.
    expect(new Set(found.map((f) => f.name))).toEqual(new Set(rows.map((r) => r.name)));
  });

  it.each(rows.map((r) => [r.name, r] as const))(
    "%s is valid against the 2026-10 schema",
    (name, r) => {
      expect(validate(adminSchema(), r.doc).map((e) => e.message)).toEqual([]);
      const ops = r.doc.definitions.filter(
        (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
      );
      expect(ops.map((o) => o.name?.value)).toEqual([name]);
    },
  );

  it.each(rows.map((r) => [r.name, r] as const))(
    "%s costs at most 1,000 points with the page sizes the app sends, as its comment says",
    (name, r) => {
      expect(r.cost).toBeGreaterThan(0);
      expect(r.cost).toBeLessThanOrEqual(MAX_QUERY_COST);
      const source = readFileSync(join(ROOT, r.op.module), "utf8");
      // The comment right above the document states this cost.
      const at = Math.max(
        ...[`query ${name}(`, `mutation ${name}(`, `query ${name} {`].map((s) => source.indexOf(s)),
      );
      expect(at, `${name} in ${r.op.module}`).toBeGreaterThan(0);
      const before = source.slice(0, at);
      const comment = before.slice(before.lastIndexOf("/**"));
      expect(comment, `${r.op.module}: the comment above ${name}`).toMatch(
        new RegExp(`[Cc]ost ${r.cost}\\b`),
      );
    },
  );

  it.each(rows.map((r) => [r.name, r] as const))(
    "%s: the app's scopes can read every field",
    (name, r) => {
      expect(accessDenials(r.doc, appScopes(), name)).toEqual([]);
    },
  );

  it("the default SCOPES of app/config.server.ts are shopify.app.toml's", () => {
    const config = readFileSync(join(ROOT, "app/config.server.ts"), "utf8");
    const m = /DEFAULT_SCOPES\s*=\s*"([^"]*)"/.exec(config.replace(/\n\s*/g, " "));
    expect(m?.[1]?.split(",").sort()).toEqual(appScopes().sort());
  });

  it("without read_locations the fulfilment-order read would be denied (why the scope is asked)", () => {
    // read_inventory also lets an app read a Location: without it, as an install that has not
    // approved the stock sync's scopes yet.
    const without = appScopes().filter(
      (s) => !["read_locations", "read_inventory", "write_inventory"].includes(s),
    );
    const denied = accessDenials(parse(OPERATIONS.GetOrderFulfillmentOrders!.document), without);
    expect(denied.map((d) => d.coordinate)).toEqual(["FulfillmentOrderAssignedLocation.location"]);
    // The fallback for an install that has not approved it yet reads everything else.
    for (const [name, op] of Object.entries(OPERATIONS)) {
      if (name === "GetOrderFulfillmentOrders") continue;
      // The stock sync's documents need the inventory scopes (and say so when denied).
      if (["ShopBasics", "VariantInventoryItems", "InventorySet"].includes(name)) continue;
      expect(accessDenials(parse(op.document), without), name).toEqual([]);
    }
  });

  it(`worst-case requested costs: ${table}`, () => {
    console.log(
      ["| Document | Module | Worst-case requested cost |", "|---|---|---|"]
        .concat(rows.map((r) => `| ${r.name} | ${r.op.module} | ${r.cost} |`))
        .join("\n"),
    );
    expect(rows.every((r) => r.cost <= MAX_QUERY_COST)).toBe(true);
  });
});
