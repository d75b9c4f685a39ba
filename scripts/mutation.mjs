// npm run test:mutation [-- options] [module...]: Stryker once per core module of
// mutation/modules.json, each with only the test files that exercise it (MUTATION_TESTS narrows
// vitest.config.ts's include), incrementally (one incremental file per module, committed in
// mutation/incremental/). Writes reports/mutation/modules/<module>.{json,html}, the merged
// reports/mutation/mutation.{json,html} of the modules run, and prints a per-module table.
// --ci is CI's ratchet (see ratchet() in scripts/mutation-lib.mjs); --record updates the
// recorded hashes and scores. `--help` for the options.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  FLOOR,
  USAGE,
  contentHash,
  countReport,
  expandTests,
  mergeReports,
  parseArgs,
  ratchet,
  selectModules,
  table,
} from "./mutation-lib.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const MAP = join(root, "mutation/modules.json");
const OUT = join(root, "reports/mutation");

let opts;
try {
  opts = parseArgs(process.argv.slice(2));
} catch (e) {
  console.error(`test:mutation: ${e.message}\n\n${USAGE}`);
  process.exit(2);
}
if (opts.help) {
  console.log(USAGE);
  process.exit(0);
}

const map = JSON.parse(readFileSync(MAP, "utf8"));
const floor = map.floor ?? FLOOR;
let names;
try {
  names = selectModules(Object.keys(map.modules), opts.modules);
} catch (e) {
  console.error(`test:mutation: ${e.message}`);
  process.exit(2);
}

const git = (...a) =>
  execFileSync("git", a, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

// CI with --base REV holds each module to the record committed at REV (the target branch), not
// to the submission's own: a submission that re-records a lower score cannot lower its bar.
let records = Object.fromEntries(names.map((m) => [m, map.modules[m].recorded]));
if (opts.ci && opts.base) {
  let baseMap;
  try {
    baseMap = JSON.parse(git("show", `${opts.base}:mutation/modules.json`));
    console.log(`Mutation ratchet against the scores recorded at ${opts.base}`);
  } catch {
    baseMap = { modules: {} };
    console.log(
      `No mutation/modules.json at ${opts.base}: nothing recorded there, nothing enforced`,
    );
  }
  records = Object.fromEntries(names.map((m) => [m, baseMap.modules?.[m]?.recorded]));
}

const modules = names.map((module) => {
  const entry = map.modules[module];
  const tests = expandTests(entry.tests, root);
  const hash = contentHash(module, tests, (f) => readFileSync(join(root, f)));
  return { module, entry, tests, hash, recorded: records[module] };
});

if (opts.list) {
  for (const m of modules) {
    const r = m.recorded;
    const state = !r
      ? "not yet measured"
      : `${r.score.toFixed(2)}% on ${r.at}${r.hash === m.hash ? "" : " (changed since)"}`;
    console.log(`${m.module}: ${state}\n  ${m.tests.join("\n  ")}`);
  }
  process.exit(0);
}

// Which modules run.
const skipped = [];
let toRun = modules;
if (opts.ci || opts.changed) {
  toRun = modules.filter((m) => {
    const d = ratchet(m.recorded, m.hash, undefined, floor);
    if (opts.ci && !d.run) skipped.push({ module: m.module, note: d.reason });
    if (!opts.ci && m.recorded?.hash === m.hash) skipped.push({ module: m.module, note: d.reason });
    return opts.ci ? d.run : m.recorded?.hash !== m.hash;
  });
} else if (opts.base) {
  const changed = new Set(
    [
      ...git("diff", "--name-only", opts.base).split("\n"),
      ...git("ls-files", "--others", "--exclude-standard").split("\n"),
    ].filter(Boolean),
  );
  toRun = modules.filter((m) => {
    const hit = [m.module, ...m.tests].some((f) => changed.has(f));
    if (!hit) skipped.push({ module: m.module, note: `unchanged since ${opts.base}` });
    return hit;
  });
}

mkdirSync(join(OUT, "modules"), { recursive: true });
// The package exports neither its bin nor its package.json: reach them by path.
const strykerDir = join(root, "node_modules/@stryker-mutator/core");
const strykerBin = join(strykerDir, "bin/stryker.js");

function slug(module) {
  return module.replace(/\.(server\.)?tsx?$/, "").replace(/[/\\]/g, "__");
}

// The suites start simulators and a database per test file: on a PostgreSQL server each runner
// has its own schemas, and the tests wait on timers and sockets more than they compute, so three
// runners keep two cores busy; the embedded PGlite costs seconds of CPU per file, so one.
const concurrency = opts.concurrency ?? (process.env.TEST_DATABASE_URL ? 3 : 1);

function runStryker(m) {
  const base = join("reports/mutation/modules", slug(m.module));
  // Committed (mutation/incremental/), so that CI, on a clean checkout, tests only the mutants
  // whose code or covering tests changed since the recorded run.
  const incremental = join("mutation/incremental", `${slug(m.module)}.json`);
  return new Promise((done) => {
    const args = ["run", "--mutate", m.module, "--concurrency", String(concurrency)];
    const child = spawn(process.execPath, [strykerBin, ...args], {
      cwd: root,
      stdio: "inherit",
      env: {
        ...process.env,
        MUTATION_TESTS: m.tests.join(","),
        MUTATION_REPORT_BASE: base,
        MUTATION_INCREMENTAL_FILE: incremental,
      },
    });
    child.on("exit", (code, signal) => done({ code: code ?? 1, signal, base }));
  });
}

const rows = [];
const reports = [];
let failed = false;
for (const m of toRun) {
  const last = m.entry.recorded?.seconds;
  console.log(
    `\n==> mutation: ${m.module} (${m.tests.length} test files: ${m.tests.join(", ")})` +
      (last === undefined ? "" : `; the recorded run took ${last} s`),
  );
  const t0 = process.hrtime.bigint();
  const { code, signal, base } = await runStryker(m);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(`==> mutation: ${m.module} took ${Math.round(seconds)} s`);
  const file = join(root, `${base}.json`);
  if (code !== 0 || !existsSync(file)) {
    failed = true;
    rows.push({ module: m.module, seconds, note: `Stryker failed (${signal ?? `exit ${code}`})` });
    continue;
  }
  const report = JSON.parse(readFileSync(file, "utf8"));
  reports.push(report);
  const counts = countReport({ files: { [m.module]: report.files[m.module] ?? { mutants: [] } } });
  const row = { module: m.module, counts, seconds, survivors: counts.survivors };
  if (opts.ci) {
    const d = ratchet(m.recorded, m.hash, counts.score, floor);
    row.note = d.ok ? d.reason : `FAIL ${d.reason}`;
    if (!d.ok) {
      failed = true;
      row.failed = true;
    }
  } else if (m.recorded) {
    row.note = `recorded ${m.recorded.score.toFixed(2)}%`;
  }
  rows.push(row);
  if (opts.record) {
    map.modules[m.module].recorded = {
      hash: m.hash,
      score: counts.score,
      mutants: counts.mutants - counts.ignored - counts.errors,
      killed: counts.killed,
      survived: counts.survived,
      noCoverage: counts.noCoverage,
      timeout: counts.timeout,
      seconds: Math.round(seconds),
      at: new Date().toISOString().slice(0, 10),
    };
  }
}

if (reports.length > 0) {
  const merged = mergeReports(reports);
  writeFileSync(join(OUT, "mutation.json"), JSON.stringify(merged));
  writeFileSync(join(OUT, "mutation.html"), reportHtml(merged));
}
if (opts.record && rows.some((r) => r.counts)) {
  // Formatted as `npm run lint` (prettier --check) wants it.
  const prettier = await import("prettier");
  const options = (await prettier.resolveConfig(MAP)) ?? {};
  writeFileSync(MAP, await prettier.format(JSON.stringify(map), { ...options, filepath: MAP }));
  console.log(
    `\nRecorded in mutation/modules.json: ${rows
      .filter((r) => r.counts)
      .map((r) => r.module)
      .join(", ")}`,
  );
}

console.log(`\nMutation score per module (floor ${floor}%):\n`);
console.log(table([...rows, ...skipped]));
for (const r of rows.filter((x) => x.failed)) {
  console.log(`\n${r.module}: survivors (details in reports/mutation/mutation.html)`);
  for (const s of r.survivors) {
    console.log(
      `  ${s.file}:${s.line}:${s.column} ${s.status} ${s.mutator}: ${oneLine(s.replacement)}`,
    );
  }
}
if (reports.length > 0) console.log(`\nReport: reports/mutation/mutation.html (and .json)`);
if (opts.ci && toRun.length === 0)
  console.log("\nNo recorded core module changed: nothing to run.");
const stale = rows.filter(
  (r) => r.counts && map.modules[r.module].recorded?.hash !== hashOf(r.module),
);
if (!opts.record && stale.length > 0) {
  const list = stale.map((r) => r.module);
  console.log(
    `\nNot recorded for their current content: ${list.join(", ")}.` +
      `\nRecord (and commit mutation/modules.json): npm run test:mutation -- --record ${list.join(" ")}`,
  );
}
process.exit(failed ? 1 : 0);

function hashOf(module) {
  return modules.find((m) => m.module === module)?.hash;
}

function oneLine(s = "") {
  const t = s.replace(/\s+/g, " ");
  return t.length > 100 ? `${t.slice(0, 97)}...` : t;
}

/** The HTML report of the merged JSON, as Stryker's HTML reporter writes one. */
function reportHtml(report) {
  const coreRequire = createRequire(join(strykerDir, "package.json"));
  const elements = readFileSync(
    coreRequire.resolve("mutation-testing-elements/dist/mutation-test-elements.js"),
    "utf8",
  );
  const json = JSON.stringify(report).replace(/</g, '<"+"');
  return `<!DOCTYPE html>
<html>
<head><meta charset="utf-8"><script>${elements}</script></head>
<body>
<mutation-test-report-app titlePostfix="Stryker"></mutation-test-report-app>
<script>
  const app = document.querySelector("mutation-test-report-app");
  app.report = ${json};
  const theme = () => (document.body.style.backgroundColor = app.themeBackgroundColor);
  app.addEventListener("theme-changed", theme);
  theme();
</script>
</body>
</html>
`;
}
