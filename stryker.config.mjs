// Mutation testing of the money and order core (issue 20): `npm run test:mutation`
// (scripts/mutation.mjs) runs Stryker once per core module with only the test files that
// exercise it (MUTATION_TESTS narrows vitest.config.ts's include), incrementally.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: { configFile: "vitest.config.ts", related: false },
  coverageAnalysis: "perTest",
  // One vitest process: the suites start simulators and databases; two cores are the machine.
  concurrency: 1,
  timeoutMS: 60_000,
  timeoutFactor: 2.5,
  reporters: ["clear-text", "progress", "json", "html"],
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  incremental: true,
  incrementalFile: "reports/mutation/stryker-incremental.json",
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  thresholds: { high: 90, low: 80, break: null },
};
