import { resolve } from "node:path";
import { defineConfig } from "vitest/config";
import { TEST_ENV } from "./test/env";

export default defineConfig({
  resolve: { alias: { "~": resolve(import.meta.dirname, "app") } },
  test: {
    // MUTATION_TESTS (comma-separated files) narrows the run to the tests of one module when
    // Stryker mutates it (scripts/mutation.mjs); otherwise every test.
    include: process.env.MUTATION_TESTS
      ? process.env.MUTATION_TESTS.split(",")
      : ["test/**/*.test.ts", "app/**/*.test.ts"],
    exclude: ["test/browser/**", "node_modules/**"],
    globalSetup: ["test/global-setup.ts"],
    // Each test file gets its own database (see test/setup-db.ts).
    setupFiles: ["test/setup-db.ts"],
    // Shopify's extension tester imports the extension's module itself: through Vite, so that
    // its TypeScript and JSX are compiled as the app's are.
    server: { deps: { inline: ["@shopify/ui-extensions-tester"] } },
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: TEST_ENV,
  },
});
