/** The app's configuration in tests (vitest.config.ts; the extensions' browser test). */
export const TEST_ENV = {
  NODE_ENV: "test" as const,
  SHOPIFY_API_KEY: "test-api-key",
  SHOPIFY_API_SECRET: "test-api-secret",
  SHOPIFY_APP_URL: "https://app.test",
  ENCRYPTION_KEY: Buffer.alloc(32, 1).toString("base64"),
  LOG_LEVEL: "error",
  // No test reaches the internet: exchange rates come from a test's own rates server.
  FX_RATES_URL: "off",
};
