// npm run house:metrics: the figures issue 31 holds the house to, measured from the code.
// - app files over 300 lines, and functions (declarations, methods, arrow functions, page
//   components) over 100 lines, by the TypeScript parser;
// - imports that run from a lower floor up (the exceptions listed in .dependency-cruiser.cjs),
//   folder pairs of app/ that import each other both ways, and cycles, from dependency-cruiser.
// `--json` prints the figures as JSON.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import ts from "typescript";

const ROOT = join(import.meta.dirname, "..");
const require = createRequire(import.meta.url);

function sources(dir) {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const rel = `${dir}/${name}`;
    if (statSync(join(ROOT, rel)).isDirectory()) return sources(rel);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith(".d.ts") ? [rel] : [];
  });
}

function lines(text) {
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** Functions of a file longer than `max` lines: [name, lines]. */
function longFunctions(file, text, max) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const lineOf = (pos) => sf.getLineAndCharacterOfPosition(pos).line;
  const nameOf = (n) => {
    if (n.name) return n.name.getText();
    const p = n.parent;
    if (p && ts.isVariableDeclaration(p)) return p.name.getText();
    if (p && ts.isPropertyAssignment(p)) return p.name.getText();
    if (p && ts.isCallExpression(p)) return `${p.expression.getText().slice(0, 30)}(…)`;
    return "(anonymous)";
  };
  const visit = (n) => {
    if (
      ts.isFunctionDeclaration(n) ||
      ts.isFunctionExpression(n) ||
      ts.isArrowFunction(n) ||
      ts.isMethodDeclaration(n)
    ) {
      const size = lineOf(n.getEnd()) - lineOf(n.getStart()) + 1;
      if (size > max) found.push([nameOf(n), size]);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

function importGraph() {
  const out = execFileSync(
    join(ROOT, "node_modules/.bin/depcruise"),
    ["app", "--config", ".dependency-cruiser.cjs", "--output-type", "json"],
    { cwd: ROOT, maxBuffer: 256 * 1024 * 1024 },
  );
  return JSON.parse(out.toString());
}

/** The folder a file of app/ counts under: its first folder, or the file itself at app/'s root. */
function folderOf(path) {
  const parts = path.split("/");
  return parts.length > 2 ? `app/${parts[1]}/` : path;
}

const files = sources("app").map((f) => {
  const text = readFileSync(join(ROOT, f), "utf8");
  return { file: f, lines: lines(text), long: longFunctions(f, text, 100) };
});
const big = files.filter((f) => f.lines > 300).sort((a, b) => b.lines - a.lines);
const longFns = files
  .flatMap((f) => f.long.map(([name, size]) => ({ file: f.file, name, lines: size })))
  .sort((a, b) => b.lines - a.lines);

const graph = importGraph();
const edges = new Set();
let cycles = 0;
for (const m of graph.modules) {
  if (!m.source.startsWith("app/")) continue;
  for (const d of m.dependencies) {
    if (d.circular) cycles++;
    if (!d.resolved.startsWith("app/")) continue;
    const a = folderOf(m.source);
    const b = folderOf(d.resolved);
    if (a !== b) edges.add(`${a} -> ${b}`);
  }
}
const pairs = [...edges]
  .map((e) => e.split(" -> "))
  .filter(([a, b]) => a < b && edges.has(`${b} -> ${a}`))
  .map(([a, b]) => `${a} <-> ${b}`);
const config = require(join(ROOT, ".dependency-cruiser.cjs"));
const upward = (config.EXCEPTIONS ?? []).map(([from, to, why]) => ({ from, to, why }));

const figures = {
  appFilesOver300: big.map((f) => `${f.file} ${f.lines}`),
  functionsOver100: longFns.map((f) => `${f.file} ${f.name} ${f.lines}`),
  upwardImports: upward.map((u) => `${u.from} -> ${u.to}`),
  foldersBothWays: pairs,
  cycles,
};
if (process.argv.includes("--json")) {
  console.log(JSON.stringify(figures, null, 2));
} else {
  for (const [k, v] of Object.entries(figures)) {
    if (Array.isArray(v)) {
      console.log(`${k}: ${v.length}`);
      for (const x of v) console.log(`  ${x}`);
    } else console.log(`${k}: ${v}`);
  }
  console.log(`(measured in ${relative(process.cwd(), ROOT) || "."})`);
}
