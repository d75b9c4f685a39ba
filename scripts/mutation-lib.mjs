// The pure parts of scripts/mutation.mjs (argument parsing, content hashes, scores from a
// Stryker JSON report, the CI ratchet), kept apart so test/mutation/ can test them cheaply.
import { createHash } from "node:crypto";
import { globSync, readFileSync } from "node:fs";

export const FLOOR = 90;

const USAGE = `Usage: npm run test:mutation -- [options] [module...]

Runs Stryker once per core module (mutation/modules.json) with only that module's tests.

  module...      modules to run (paths as in mutation/modules.json, or a unique part of one:
                 decimal, pay, webhooks/svc); default: every module
  --changed      only the modules whose content hash (module + its test files) differs from
                 the one recorded in mutation/modules.json, or that were never recorded
  --base REV     only the modules whose file or test files changed since git revision REV
  --ci           what CI runs: --changed, skipping modules never recorded (not yet measured,
                 not enforced), and failing if a changed module falls under the ratchet
                 (90%, or its recorded score while that is under 90%); with --base REV, the
                 hashes and scores are those recorded at REV (the target branch)
  --record       after the run, record each run module's hash and score in mutation/modules.json
  --list         print the modules, their test files and recorded scores, and run nothing
  --concurrency N  test runner processes per Stryker run (default 3 when TEST_DATABASE_URL
                 names a PostgreSQL server, 1 on the embedded PGlite)
  --help         this text`;

export { USAGE };

/** Parses the command line (without node and the script). Throws an Error on a bad one. */
export function parseArgs(argv) {
  const opts = {
    modules: [],
    changed: false,
    base: undefined,
    ci: false,
    record: false,
    list: false,
    help: false,
    concurrency: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") continue;
    else if (a === "--changed") opts.changed = true;
    else if (a === "--ci") opts.ci = true;
    else if (a === "--record") opts.record = true;
    else if (a === "--list") opts.list = true;
    else if (a === "--help" || a === "-h") opts.help = true;
    else if (a === "--concurrency" || a.startsWith("--concurrency=")) {
      const v = a === "--concurrency" ? argv[++i] : a.slice("--concurrency=".length);
      if (!/^[1-9][0-9]?$/.test(v ?? ""))
        throw new Error("--concurrency needs a number from 1 to 99");
      opts.concurrency = Number(v);
    } else if (a === "--base" || a.startsWith("--base=")) {
      const v = a === "--base" ? argv[++i] : a.slice("--base=".length);
      if (!v || v.startsWith("--")) throw new Error("--base needs a git revision");
      opts.base = v;
    } else if (a.startsWith("-")) throw new Error(`unknown option ${a}`);
    else opts.modules.push(a);
  }
  if (opts.ci && opts.record) throw new Error("--ci never records: record after a developer's run");
  if (opts.base !== undefined && opts.changed) {
    throw new Error("--changed (by recorded hash) and --base REV (by git) exclude each other");
  }
  return opts;
}

/** Resolves the names given on the command line to module paths of the map. */
export function selectModules(all, names) {
  if (names.length === 0) return [...all];
  const out = [];
  for (const name of names) {
    const exact = all.find((m) => m === name);
    const hits = exact
      ? [exact]
      : all.filter((m) => m.includes(name.replace(/\.(server\.)?ts$/, "")));
    if (hits.length !== 1) {
      throw new Error(
        hits.length === 0
          ? `no core module matches "${name}"`
          : `"${name}" matches ${hits.length} modules: ${hits.join(", ")}`,
      );
    }
    if (!out.includes(hits[0])) out.push(hits[0]);
  }
  return out;
}

/**
 * The test files of a module: its patterns expanded, sorted, without duplicates. A glob may
 * match nothing yet (test/jobs/worker*.test.ts, for tests still to come); a plain path must
 * exist, and a module must have at least one test file.
 */
export function expandTests(patterns, cwd) {
  const files = new Set();
  for (const p of patterns) {
    const hits = globSync(p, { cwd });
    if (hits.length === 0 && !/[*?[{]/.test(p)) throw new Error(`no test file ${p}`);
    for (const h of hits) files.add(h.split("\\").join("/"));
  }
  if (files.size === 0) throw new Error(`no test file matches ${patterns.join(", ")}`);
  return [...files].sort();
}

/**
 * sha256 over the module and its test files, each as its path and its content, so that a
 * changed line, a test file added or removed, or a renamed one all change the hash.
 */
export function contentHash(module, testFiles, read = (f) => readFileSync(f)) {
  const h = createHash("sha256");
  for (const f of [module, ...[...testFiles].sort()]) {
    const body = read(f);
    h.update(`${f}\0${body.length}\0`);
    h.update(body);
  }
  return h.digest("hex");
}

/**
 * Counts of a Stryker JSON report (mutation-testing-report-schema) for the files it holds.
 * The score is Stryker's: detected (killed + timeout) over valid mutants (detected, survived,
 * no coverage); ignored mutants and compile or runtime errors are outside it.
 */
export function countReport(report) {
  const c = {
    mutants: 0,
    killed: 0,
    survived: 0,
    noCoverage: 0,
    timeout: 0,
    ignored: 0,
    errors: 0,
  };
  const survivors = [];
  for (const [file, { mutants }] of Object.entries(report.files ?? {})) {
    for (const m of mutants) {
      c.mutants++;
      switch (m.status) {
        case "Killed":
          c.killed++;
          break;
        case "Survived":
          c.survived++;
          break;
        case "NoCoverage":
          c.noCoverage++;
          break;
        case "Timeout":
          c.timeout++;
          break;
        case "Ignored":
          c.ignored++;
          break;
        default:
          c.errors++;
      }
      if (m.status === "Survived" || m.status === "NoCoverage") {
        survivors.push({
          file,
          line: m.location.start.line,
          column: m.location.start.column,
          mutator: m.mutatorName,
          replacement: m.replacement,
          status: m.status,
        });
      }
    }
  }
  const valid = c.killed + c.timeout + c.survived + c.noCoverage;
  // Two decimals, as Stryker prints it; rounding down so that 89.999 never passes a 90 floor.
  const score = valid === 0 ? 100 : Math.floor(((c.killed + c.timeout) / valid) * 10000) / 100;
  return { ...c, score, survivors };
}

/**
 * What CI does with one module. `recorded` is the module's record in mutation/modules.json
 * (undefined when never measured), `hash` its content hash now, `measured` the score of this
 * run (undefined when it was not run). Returns { run, ok, reason }.
 *
 * - never recorded: not run, not enforced (not yet measured);
 * - hash as recorded: not run (the recorded score stands);
 * - hash changed: run; it must reach the floor (90%) if its recorded score did, and otherwise
 *   its recorded score (no regression), so a module under 90% can only go up.
 */
export function ratchet(recorded, hash, measured, floor = FLOOR) {
  if (!recorded || typeof recorded.score !== "number") {
    return { run: false, ok: true, reason: "not yet measured, not enforced" };
  }
  if (recorded.hash === hash) {
    return { run: false, ok: true, reason: `unchanged, recorded ${fmt(recorded.score)}%` };
  }
  const needed = recorded.score >= floor ? floor : recorded.score;
  if (measured === undefined) {
    return { run: true, ok: false, needed, reason: `changed: needs ≥ ${fmt(needed)}%` };
  }
  const ok = measured >= needed;
  const what =
    recorded.score >= floor ? `the floor ${fmt(floor)}%` : `its recorded ${fmt(needed)}%`;
  return {
    run: true,
    ok,
    needed,
    reason: ok
      ? `changed: ${fmt(measured)}% ≥ ${what}`
      : `changed: ${fmt(measured)}% is under ${what}`,
  };
}

function fmt(n) {
  return n.toFixed(2);
}

/** The per-module table, as text. `rows`: { module, counts, seconds, note }. */
export function table(rows) {
  const head = ["module", "mutants", "killed", "survived", "no cov.", "timeout", "score", "time"];
  const lines = rows.map((r) => [
    r.module,
    ...(r.counts
      ? [
          r.counts.mutants - r.counts.ignored - r.counts.errors,
          r.counts.killed,
          r.counts.survived,
          r.counts.noCoverage,
          r.counts.timeout,
          `${fmt(r.counts.score)}%`,
        ].map(String)
      : ["", "", "", "", "", ""]),
    r.seconds === undefined ? "" : `${Math.round(r.seconds)} s`,
    r.note ?? "",
  ]);
  const all = [[...head, ""], ...lines];
  const widths = head.map((_, i) => Math.max(...all.map((l) => l[i].length)));
  return all
    .map((l) =>
      l
        .map((cell, i) =>
          i === 0 ? cell.padEnd(widths[i]) : i < head.length ? cell.padStart(widths[i]) : cell,
        )
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/**
 * Merges per-module Stryker JSON reports into one. Stryker numbers tests and mutants from 0 in
 * each run, so each report's ids get its index as a prefix ("2:17"); test files shared by two
 * modules keep the tests of both.
 * @param {any[]} reports
 * @returns {{ schemaVersion: string, thresholds: object, projectRoot?: string,
 *   files: Record<string, any>, testFiles?: Record<string, any> }}
 */
export function mergeReports(reports) {
  /** @type {ReturnType<typeof mergeReports>} */
  const merged = { schemaVersion: "2", thresholds: { high: FLOOR, low: 80 }, files: {} };
  reports.forEach((r, i) => {
    const id = (x) => `${i}:${x}`;
    merged.schemaVersion = r.schemaVersion ?? merged.schemaVersion;
    if (r.projectRoot) merged.projectRoot = r.projectRoot;
    for (const [file, f] of Object.entries(r.files ?? {})) {
      const mutants = f.mutants.map((m) => ({
        ...m,
        id: id(m.id),
        ...(m.killedBy && { killedBy: m.killedBy.map(id) }),
        ...(m.coveredBy && { coveredBy: m.coveredBy.map(id) }),
      }));
      const had = merged.files[file];
      merged.files[file] = { ...f, mutants: had ? [...had.mutants, ...mutants] : mutants };
    }
    for (const [file, t] of Object.entries(r.testFiles ?? {})) {
      merged.testFiles ??= {};
      const tests = t.tests.map((x) => ({ ...x, id: id(x.id) }));
      const had = merged.testFiles[file];
      merged.testFiles[file] = { ...t, tests: had ? [...had.tests, ...tests] : tests };
    }
  });
  return merged;
}
