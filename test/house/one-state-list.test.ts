/**
 * One list of order states (issue 31): app/orders/states.ts. A second list somewhere else (an
 * array, a label map, a switch that names most of them) drifts from the first the day a state
 * is added. This test reads app/ and extensions/ and fails on a file, other than the list's
 * own, that holds an array or object literal naming five or more of the states. (A switch or a
 * filter that names a few, by name, is a use of the list, not a second one.)
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { STATES } from "../../app/orders/states";

const ROOT = join(__dirname, "../..");
const HOME = "app/orders/states.ts";

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const rel = `${dir}/${name}`;
    if (name === "node_modules" || name === "dist") return [];
    if (statSync(join(ROOT, rel)).isDirectory()) return sources(rel);
    return /\.(ts|tsx)$/.test(name) ? [rel] : [];
  });
}

/**
 * Whether the text holds a list of states: an array or object literal (innermost brackets or
 * braces) that names `min` or more distinct states, as strings or as keys.
 */
export function listsStates(text: string, min = 5): boolean {
  for (const [literal] of text.matchAll(/[[{][^[\]{}]*[\]}]/g)) {
    const named = STATES.filter((s) => new RegExp(`["'\`]${s}["'\`]|\\b${s}\\s*:`).test(literal));
    if (named.length >= min) return true;
  }
  return false;
}

describe("one list of order states", () => {
  it("tells a list from a few states named in passing", () => {
    expect(
      listsStates(`const all = ["RECEIVED", "HELD", "CREATED", "PAYING", "PAID", "SHIPPED"];`),
    ).toBe(true);
    expect(
      listsStates("{\n  RECEIVED: 1,\n  HELD: 2,\n  CREATED: 3,\n  PAYING: 4,\n  PAID: 5,\n}"),
    ).toBe(true);
    const tabs =
      'case "a": return { in: ["RECEIVED", "HELD"] };\ncase "b": return { in: ["PAID"] };';
    expect(listsStates(tabs)).toBe(false);
    expect(listsStates(`if (["RECEIVED", "HELD", "FAILED"].includes(o.state)) return;`)).toBe(
      false,
    );
  });

  it("is app/orders/states.ts, and no other file of app/ or extensions/ keeps one", () => {
    expect(listsStates(readFileSync(join(ROOT, HOME), "utf8"))).toBe(true);
    const others = [...sources("app"), ...sources("extensions")].filter(
      (f) => f !== HOME && listsStates(readFileSync(join(ROOT, f), "utf8")),
    );
    expect(others).toEqual([]);
  });
});
