/**
 * .env.example documents every variable the configuration reads, and a copy of it with the
 * secrets filled in is a valid production configuration.
 */
import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../app/config.server";

const example = readFileSync(".env.example", "utf8");
/** The variables of the zod object in app/config.server.ts (`  NAME: …` lines). */
const configVariables = [
  ...readFileSync("app/config.server.ts", "utf8").matchAll(/^ {2}([A-Z][A-Z0-9_]+): /gm),
].map((m) => m[1]!);

describe(".env.example", () => {
  it("lists every variable of app/config.server.ts, set or commented out", () => {
    expect(configVariables.length).toBeGreaterThan(15);
    const listed = new Set([...example.matchAll(/^(?:# )?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));
    expect(configVariables.filter((name) => !listed.has(name))).toEqual([]);
  });

  it("filled in with the required secrets, parses as a production configuration", () => {
    const env = {
      ...parseEnv(example),
      NODE_ENV: "production",
      SHOPIFY_API_KEY: "key",
      SHOPIFY_API_SECRET: "secret",
      ENCRYPTION_KEY: Buffer.alloc(32, 3).toString("base64"),
    };
    const config = parseConfig(env);
    expect(config.SHOPIFY_APP_URL).toBe("https://your-app.example.com");
    expect(config.SANDBOX).toBe(false);
  });

  it("as it stands, is refused in production for the missing secrets, naming them", () => {
    expect(() => parseConfig({ ...parseEnv(example), NODE_ENV: "production" })).toThrow(
      "Invalid configuration: SHOPIFY_API_KEY is required in production; " +
        "SHOPIFY_API_SECRET is required in production; ENCRYPTION_KEY is required in production",
    );
  });
});
