import { defineConfig } from "vitest/config";

/** The browser test: its own config (no per-file database; it starts `npm run sandbox`). */
export default defineConfig({
  test: {
    include: ["test/browser/**/*.browser.test.ts"],
    pool: "forks",
    maxWorkers: 1,
    testTimeout: 240_000,
    hookTimeout: 120_000,
  },
});
