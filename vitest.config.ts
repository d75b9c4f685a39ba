import { resolve } from "node:path";
import { defineConfig } from "vitest/config";

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
    env: {
      NODE_ENV: "test",
      SHOPIFY_API_KEY: "test-api-key",
      SHOPIFY_API_SECRET: "test-api-secret",
      SHOPIFY_APP_URL: "https://app.test",
      ENCRYPTION_KEY: Buffer.alloc(32, 1).toString("base64"),
      LOG_LEVEL: "error",
      // No test reaches the internet: exchange rates come from a test's own rates server.
      FX_RATES_URL: "off",
    },
  },
});
