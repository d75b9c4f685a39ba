/**
 * Builds the Admin UI extensions offline with the project's own esbuild: each
 * extensions/<name>/shopify.extension.toml's target modules, bundled with Preact into
 * build/extensions/<handle>.js (ES module, minified), as Shopify CLI bundles the same sources
 * for `shopify app build` and `deploy`. Fails on a missing module or a compile error.
 */
import { readdirSync, readFileSync, existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "esbuild";

const root = resolve(import.meta.dirname, "..");
// EXTENSIONS_DIR: another folder of extensions (the build's own test).
const dir = process.env.EXTENSIONS_DIR ?? join(root, "extensions");
// --out <dir>: where the bundles go (default build/extensions).
const outArg = process.argv.indexOf("--out");
const out = outArg > 0 ? resolve(process.argv[outArg + 1]) : join(root, "build", "extensions");

const extensions = readdirSync(dir).filter((d) =>
  existsSync(join(dir, d, "shopify.extension.toml")),
);
if (extensions.length === 0) throw new Error("no extension under extensions/");
for (const name of extensions) {
  const toml = readFileSync(join(dir, name, "shopify.extension.toml"), "utf8");
  const handle = /^handle\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  const modules = [...toml.matchAll(/^module\s*=\s*"([^"]+)"/gm)].map((m) => m[1]);
  if (!handle || modules.length === 0) throw new Error(`${name}: no handle or module in its toml`);
  for (const [i, module] of modules.entries()) {
    const entry = join(dir, name, module);
    const outfile = join(out, `${handle}${i ? `-${i}` : ""}.js`);
    await build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      format: "esm",
      target: "es2022",
      minify: true,
      jsx: "automatic",
      jsxImportSource: "preact",
      logLevel: "warning",
    });
    console.log(
      `${name}: ${module} → ${outfile} (${Math.round(statSync(outfile).size / 1024)} KB)`,
    );
  }
}
