/**
 * The subscribed topics are written in three places that cannot import one another:
 * shopify.app.toml (what Shopify sends), app/webhooks/shopify-topics.server.ts (what the
 * routes accept) and scripts/shopify-reference.mjs (whose published schemas the simulator
 * holds). They must name the same topics.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SHOPIFY_TOPICS } from "../../app/webhooks/shopify-topics.server";

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

function tomlTopics(): string[] {
  const toml = readFileSync("shopify.app.toml", "utf8");
  const lists = [...toml.matchAll(/^\s*(?:compliance_)?topics\s*=\s*\[([^\]]*)\]/gm)];
  return lists.flatMap((m) => [...m[1]!.matchAll(/"([^"]+)"/g)].map((t) => t[1]!));
}

function referenceScriptTopics(): string[] {
  const script = readFileSync("scripts/shopify-reference.mjs", "utf8");
  const list = /const TOPICS = \[([^\]]*)\]/.exec(script)?.[1] ?? "";
  return [...list.matchAll(/"([^"]+)"/g)].map((t) => t[1]!);
}

describe("the subscribed Shopify topics", () => {
  it("are the same in shopify.app.toml, the routes and the reference script", () => {
    const app = sorted(SHOPIFY_TOPICS);
    expect(app.length).toBeGreaterThanOrEqual(11);
    expect(sorted(tomlTopics())).toEqual(app);
    expect(sorted(referenceScriptTopics())).toEqual(app);
  });
});
