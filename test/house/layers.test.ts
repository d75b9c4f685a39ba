/**
 * The house's layers (issue 31, .dependency-cruiser.cjs, `npm run lint:deps`): the rules pass
 * on the app as it stands, and they catch what they are for, shown on small trees written
 * here: an import from a lower floor up, a cycle, the queue reaching a capability.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cruise, type ICruiseResult } from "dependency-cruiser";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = join(__dirname, "../..");
const rules = createRequire(import.meta.url)(join(ROOT, ".dependency-cruiser.cjs"));
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function violations(baseDir: string) {
  const prev = process.cwd();
  process.chdir(baseDir);
  try {
    const { output } = await cruise(["app"], {
      validate: true,
      ruleSet: { forbidden: rules.forbidden },
      doNotFollow: { path: "node_modules" },
      tsPreCompilationDeps: true,
    });
    return (output as ICruiseResult).summary.violations.map(
      (v) => `${v.rule.name}: ${v.from} → ${v.to}`,
    );
  } finally {
    process.chdir(prev);
  }
}

/** A tree of files, each importing the ones listed. */
function tree(files: Record<string, string[]>) {
  const dir = mkdtempSync(join(tmpdir(), "layers-"));
  dirs.push(dir);
  for (const [file, imports] of Object.entries(files)) {
    mkdirSync(join(dir, dirname(file)), { recursive: true });
    const lines = imports.map((to, i) => {
      const rel =
        join(
          ...dirname(file)
            .split("/")
            .map(() => ".."),
        ) +
        "/" +
        to;
      return `import { x${i} } from "${rel.replace(/\.ts$/, "")}";\nexport const y${i} = x${i};`;
    });
    writeFileSync(join(dir, file), `${lines.join("\n")}\nexport const x0 = 1;\n`);
  }
  return dir;
}

describe("the layers", () => {
  it("hold on the app as it stands", async () => {
    expect(await violations(ROOT)).toEqual([]);
  });

  it("catch an import from a lower floor up, and let a higher floor import a lower one", async () => {
    const dir = tree({
      "app/svc/orders.server.ts": ["app/fulfilment/place.server.ts"],
      "app/fulfilment/place.server.ts": [],
      "app/routes/app.tsx": ["app/fulfilment/other.server.ts"],
      "app/fulfilment/other.server.ts": ["app/svc/client.server.ts"],
      "app/svc/client.server.ts": [],
    });
    expect(await violations(dir)).toEqual([
      "ground-imports-no-higher-floor: app/svc/orders.server.ts → app/fulfilment/place.server.ts",
    ]);
  });

  it("catch a capability reaching an edge, and the queue reaching past the database", async () => {
    const dir = tree({
      "app/catalog/jobs.server.ts": ["app/worker/registry.server.ts"],
      "app/worker/registry.server.ts": [],
      "app/jobs/queue.server.ts": ["app/db/embedded.server.ts", "app/logger.server.ts"],
      "app/db/embedded.server.ts": [],
      "app/logger.server.ts": [],
    });
    expect((await violations(dir)).sort()).toEqual([
      "capability-imports-no-higher-floor: app/catalog/jobs.server.ts → app/worker/registry.server.ts",
      "jobs-is-a-library: app/jobs/queue.server.ts → app/logger.server.ts",
    ]);
  });

  it("catch a cycle", async () => {
    const dir = tree({
      "app/fulfilment/a.server.ts": ["app/fulfilment/b.server.ts"],
      "app/fulfilment/b.server.ts": ["app/fulfilment/a.server.ts"],
    });
    const found = await violations(dir);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(
      /^no-cycles: app\/fulfilment\/[ab]\.server\.ts → app\/fulfilment\/[ab]\.server\.ts$/,
    );
  });

  it("allow a listed exception only for its own pair", async () => {
    const dir = tree({
      "app/shop/index.server.ts": ["app/shopify.server.ts", "app/fulfilment/place.server.ts"],
      "app/shopify.server.ts": [],
      "app/fulfilment/place.server.ts": [],
    });
    expect(await violations(dir)).toEqual([
      "ground-imports-no-higher-floor: app/shop/index.server.ts → app/fulfilment/place.server.ts",
    ]);
  });
});
