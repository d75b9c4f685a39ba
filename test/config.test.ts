import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../app/config.server";

const KEY = Buffer.alloc(32, 9).toString("base64");
const production = {
  NODE_ENV: "production" as const,
  SHOPIFY_API_KEY: "key",
  SHOPIFY_API_SECRET: "secret-value",
  SHOPIFY_APP_URL: "https://app.example.com",
  ENCRYPTION_KEY: KEY,
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("configuration", () => {
  it("accepts a complete production environment and applies defaults", () => {
    const config = parseConfig(production);
    expect(config.PORT).toBe(3000);
    expect(config.embeddedDatabase).toBe(true);
    expect(config.PGLITE_DATA_DIR).toBe("./data/pglite");
    expect(config.SCOPES.split(",")).toContain("write_merchant_managed_fulfillment_orders");
  });

  it("in production, names every missing or malformed variable at once", () => {
    const problems = problemsOf({
      NODE_ENV: "production",
      SHOPIFY_API_KEY: "key",
      PORT: "eighty",
      DATABASE_URL: "mysql://nope",
    });
    const text = problems.join("\n");
    for (const name of [
      "SHOPIFY_API_SECRET",
      "SHOPIFY_APP_URL",
      "ENCRYPTION_KEY",
      "PORT",
      "DATABASE_URL",
    ]) {
      expect(text).toContain(name);
    }
    expect(text).not.toContain("SHOPIFY_API_KEY");
  });

  it("never echoes a bad value, which may be a secret", () => {
    const problems = problemsOf({ ...production, ENCRYPTION_KEY: "my-secret-but-too-short" });
    expect(problems.join()).toContain("ENCRYPTION_KEY");
    expect(problems.join()).not.toContain("my-secret-but-too-short");
  });

  it("refuses the sandbox in production", () => {
    expect(problemsOf({ ...production, SANDBOX: "1" }).join()).toContain("SANDBOX");
  });

  it("runs in development without Shopify credentials", () => {
    const config = parseConfig({ NODE_ENV: "development", DATABASE_URL: "postgresql://u@h/db" });
    expect(config.SHOPIFY_API_KEY).toBeTruthy();
    expect(config.embeddedDatabase).toBe(false);
  });

  it("reads exchange rates from the ECB unless FX_RATES_URL says off (empty is unset)", () => {
    const dev = { NODE_ENV: "development", DATABASE_URL: "postgresql://u@h/db" };
    const ecb = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml";
    expect(parseConfig(dev).FX_RATES_URL).toBe(ecb);
    expect(parseConfig({ ...dev, FX_RATES_URL: "" }).FX_RATES_URL).toBe(ecb);
    expect(parseConfig({ ...dev, FX_RATES_URL: "off" }).FX_RATES_URL).toBe("");
    expect(parseConfig({ ...dev, FX_RATES_URL: "http://rates.test/x.xml" }).FX_RATES_URL).toBe(
      "http://rates.test/x.xml",
    );
    expect(() => parseConfig({ ...dev, FX_RATES_URL: "none" })).toThrow("FX_RATES_URL");
  });

  it("stops a production start with one message naming the missing variable", async () => {
    const run = promisify(execFile)("npx", ["tsx", "app/config.server.ts"], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...production, SHOPIFY_APP_URL: "" },
    });
    const failure = await run.then(
      () => null,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failure).not.toBeNull();
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toContain("SHOPIFY_APP_URL is required in production");
    expect(failure?.stderr).not.toContain("secret-value");
  });
});
