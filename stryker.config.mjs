// Mutation testing of the money and order core (issue 20): `npm run test:mutation`
// (scripts/mutation.mjs) runs Stryker once per core module with only the test files that
// exercise it (MUTATION_TESTS narrows vitest.config.ts's include), incrementally.
// MUTATION_REPORT_BASE (set by the script: reports/mutation/modules/<module>) gives each module
// its own reports, and MUTATION_INCREMENTAL_FILE (mutation/incremental/<module>.json, committed)
// its own incremental file, so that one module's run never discards another's.
const base = process.env.MUTATION_REPORT_BASE;
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: { configFile: "vitest.config.ts", related: false },
  coverageAnalysis: "perTest",
  // One vitest process unless the script asks for more (--concurrency; 3 on PostgreSQL).
  concurrency: 1,
  timeoutMS: 60_000,
  timeoutFactor: 2.5,
  reporters: ["clear-text", "progress", "json", "html"],
  jsonReporter: { fileName: base ? `${base}.json` : "reports/mutation/mutation.json" },
  htmlReporter: { fileName: base ? `${base}.html` : "reports/mutation/mutation.html" },
  incremental: true,
  incrementalFile:
    process.env.MUTATION_INCREMENTAL_FILE ?? "reports/mutation/stryker-incremental.json",
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  thresholds: { high: 90, low: 80, break: null },
};
