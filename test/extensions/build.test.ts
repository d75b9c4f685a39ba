/**
 * `npm run build:extensions` compiles every extension offline with the project's own esbuild:
 * one bundle per target module, under Shopify's 64 KB limit for a UI extension's script, with
 * nothing of the server in it (no environment, no database client).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const out = mkdtempSync(join(tmpdir(), "ext-build-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("build:extensions", () => {
  it("bundles the three extensions, small and free of server code", () => {
    execFileSync(process.execPath, ["scripts/build-extensions.mjs", "--out", out]);
    const files = readdirSync(out).sort();
    expect(files).toEqual([
      "dropship-order-action.js",
      "dropship-order-block.js",
      "dropship-order-bulk-action.js",
    ]);
    for (const f of files) {
      const size = statSync(join(out, f)).size;
      expect(size).toBeGreaterThan(1000);
      expect(size).toBeLessThan(64 * 1024);
      const code = readFileSync(join(out, f), "utf8");
      expect(code).not.toMatch(/process\.env|@prisma|PrismaClient/);
      expect(code).toContain("/api/ext/orders");
    }
  });

  it("fails when there is nothing to build", () => {
    const bad = mkdtempSync(join(tmpdir(), "ext-bad-"));
    try {
      expect(() =>
        execFileSync(process.execPath, ["scripts/build-extensions.mjs", "--out", out], {
          env: { ...process.env, EXTENSIONS_DIR: bad },
          stdio: "pipe",
        }),
      ).toThrow(/no extension under/);
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });
});
