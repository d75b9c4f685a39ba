// The pure parts of `npm run test:mutation` (scripts/mutation.mjs): what CI decides from a
// recorded score and a measured one, what it runs, and how a Stryker report is counted.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  contentHash,
  countReport,
  expandTests,
  mergeReports,
  parseArgs,
  ratchet,
  selectModules,
  table,
} from "../../scripts/mutation-lib.mjs";

type Recorded = { hash: string; score: number };

describe("the CI ratchet", () => {
  const at = (score: number): Recorded => ({ hash: "old", score });

  it("neither runs nor enforces a module never measured", () => {
    expect(ratchet(undefined, "new", undefined)).toEqual({
      run: false,
      ok: true,
      reason: "not yet measured, not enforced",
    });
    // Even a score measured by hand does not make an unrecorded module fail.
    expect(ratchet(undefined, "new", 10).ok).toBe(true);
  });

  it("does not run a module whose module and test files are as recorded", () => {
    const d = ratchet({ hash: "same", score: 48 }, "same", undefined);
    expect(d).toMatchObject({ run: false, ok: true });
    expect(d.reason).toBe("unchanged, recorded 48.00%");
  });

  it("holds a changed module at 90% once its recorded score reached it", () => {
    expect(ratchet(at(95), "new", undefined)).toMatchObject({ run: true, needed: 90 });
    expect(ratchet(at(95), "new", 90)).toMatchObject({ ok: true });
    expect(ratchet(at(95), "new", 91.5)).toMatchObject({ ok: true });
    const fail = ratchet(at(95), "new", 89.99);
    expect(fail).toMatchObject({ run: true, ok: false, needed: 90 });
    expect(fail.reason).toBe("changed: 89.99% is under the floor 90.00%");
    expect(ratchet(at(90), "new", 89.99).ok).toBe(false);
  });

  it("lets a changed module under 90% go up or stay, never down", () => {
    expect(ratchet(at(48.5), "new", undefined)).toMatchObject({ run: true, needed: 48.5 });
    expect(ratchet(at(48.5), "new", 48.5).ok).toBe(true);
    expect(ratchet(at(48.5), "new", 70).ok).toBe(true);
    const fail = ratchet(at(48.5), "new", 48.49);
    expect(fail.ok).toBe(false);
    expect(fail.reason).toBe("changed: 48.49% is under its recorded 48.50%");
    // Under the floor is no failure for it, under its own record is.
    expect(ratchet(at(89.99), "new", 89.98).ok).toBe(false);
  });

  it("takes the floor from the map when it is given", () => {
    expect(ratchet(at(85), "new", 84, 80)).toMatchObject({ ok: true, needed: 80 });
    expect(ratchet(at(85), "new", 79.9, 80).ok).toBe(false);
  });
});

describe("the command line", () => {
  it("parses modules and options, with or without npm's --", () => {
    expect(parseArgs(["--", "decimal", "--record", "limiter"])).toMatchObject({
      modules: ["decimal", "limiter"],
      record: true,
      changed: false,
      ci: false,
    });
    expect(parseArgs(["--changed"])).toMatchObject({ changed: true, modules: [] });
    expect(parseArgs(["--base", "main"]).base).toBe("main");
    expect(parseArgs(["--base=HEAD~3"]).base).toBe("HEAD~3");
    expect(parseArgs(["--ci"]).ci).toBe(true);
    // CI against the records of the target branch.
    expect(parseArgs(["--ci", "--base", "main"])).toMatchObject({ ci: true, base: "main" });
    expect(parseArgs([]).concurrency).toBeUndefined();
    expect(parseArgs(["--concurrency", "4"]).concurrency).toBe(4);
    expect(parseArgs(["--concurrency=2", "pay"])).toMatchObject({
      concurrency: 2,
      modules: ["pay"],
    });
  });

  it("refuses what it cannot do", () => {
    expect(() => parseArgs(["--base"])).toThrow("--base needs a git revision");
    expect(() => parseArgs(["--base", "--ci"])).toThrow("--base needs a git revision");
    expect(() => parseArgs(["--fast"])).toThrow("unknown option --fast");
    for (const bad of [
      ["--concurrency"],
      ["--concurrency", "0"],
      ["--concurrency=x"],
      ["--concurrency", "--ci"],
    ])
      expect(() => parseArgs(bad)).toThrow("--concurrency needs a number from 1 to 99");
    expect(() => parseArgs(["--ci", "--record"])).toThrow("--ci never records");
    expect(() => parseArgs(["--changed", "--base", "main"])).toThrow("exclude each other");
  });

  it("finds modules by path or by a unique part of it", () => {
    const all = [
      "app/webhooks/svc.server.ts",
      "app/webhooks/svc-route.server.ts",
      "app/svc/decimal.ts",
      "app/fulfilment/pay.server.ts",
    ];
    expect(selectModules(all, [])).toEqual(all);
    expect(selectModules(all, ["decimal", "pay.server.ts", "decimal"])).toEqual([
      "app/svc/decimal.ts",
      "app/fulfilment/pay.server.ts",
    ]);
    expect(selectModules(all, ["app/webhooks/svc.server.ts"])).toEqual([
      "app/webhooks/svc.server.ts",
    ]);
    expect(() => selectModules(all, ["webhooks/svc"])).toThrow("matches 2 modules");
    expect(() => selectModules(all, ["limiter"])).toThrow('no core module matches "limiter"');
  });
});

describe("the content hash", () => {
  const files: Record<string, string> = {
    "app/m.ts": "export const a = 1;",
    "test/a.test.ts": "it(a)",
    "test/b.test.ts": "it(b)",
  };
  const read = (f: string) => Buffer.from(files[f]!);

  it("changes with the module, a test file, a test file added, or a file renamed", () => {
    const h = contentHash("app/m.ts", ["test/a.test.ts"], read);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(contentHash("app/m.ts", ["test/a.test.ts"], read)).toBe(h);
    expect(contentHash("app/m.ts", ["test/a.test.ts", "test/b.test.ts"], read)).not.toBe(h);
    files["test/c.test.ts"] = files["test/a.test.ts"]!;
    expect(contentHash("app/m.ts", ["test/c.test.ts"], read)).not.toBe(h);
    files["app/m.ts"] = "export const a = 2;";
    expect(contentHash("app/m.ts", ["test/a.test.ts"], read)).not.toBe(h);
  });

  it("does not depend on the order the test files are listed in", () => {
    expect(contentHash("app/m.ts", ["test/b.test.ts", "test/a.test.ts"], read)).toBe(
      contentHash("app/m.ts", ["test/a.test.ts", "test/b.test.ts"], read),
    );
  });

  it("cannot be fooled by moving text from one file's end to the next one's start", () => {
    const a = { "m.ts": "ab", "t.ts": "c" } as Record<string, string>;
    const b = { "m.ts": "a", "t.ts": "bc" } as Record<string, string>;
    expect(contentHash("m.ts", ["t.ts"], (f: string) => Buffer.from(a[f]!))).not.toBe(
      contentHash("m.ts", ["t.ts"], (f: string) => Buffer.from(b[f]!)),
    );
  });
});

describe("test files of a module", () => {
  const dir = mkdtempSync(join(tmpdir(), "mutation-map-"));
  mkdirSync(join(dir, "test/svc"), { recursive: true });
  for (const f of ["decimal.test.ts", "decimal-parse.test.ts", "limiter.test.ts"]) {
    writeFileSync(join(dir, "test/svc", f), "");
  }

  it("expands globs, sorted and once each; a glob may match nothing yet", () => {
    expect(
      expandTests(
        ["test/svc/decimal*.test.ts", "test/svc/decimal.test.ts", "test/svc/none*.test.ts"],
        dir,
      ),
    ).toEqual(["test/svc/decimal-parse.test.ts", "test/svc/decimal.test.ts"]);
  });

  it("refuses a named file that is missing, and a module without any test file", () => {
    expect(() => expandTests(["test/svc/gone.test.ts"], dir)).toThrow("no test file");
    expect(() => expandTests(["test/svc/none*.test.ts"], dir)).toThrow("no test file matches");
  });

  it("the committed map names only test files that exist, for modules that exist", () => {
    const root = resolve(import.meta.dirname, "../..");
    const map = JSON.parse(readFileSync(join(root, "mutation/modules.json"), "utf8"));
    expect(map.floor).toBe(90);
    for (const [module, entry] of Object.entries(map.modules) as [string, { tests: string[] }][]) {
      expect(readFileSync(join(root, module), "utf8").length).toBeGreaterThan(0);
      expect(expandTests(entry.tests, root).every((f: string) => f.endsWith(".test.ts"))).toBe(
        true,
      );
    }
  });
});

describe("a Stryker report", () => {
  const mutant = (status: string, line = 1) => ({
    id: String(line),
    mutatorName: "EqualityOperator",
    replacement: "a <= b",
    status,
    location: { start: { line, column: 3 }, end: { line, column: 9 } },
    coveredBy: ["0"],
    killedBy: status === "Killed" ? ["0"] : undefined,
  });

  it("scores detected over valid mutants, as Stryker does, never rounding up", () => {
    const report = {
      files: {
        "app/m.ts": {
          mutants: [
            ...Array.from({ length: 8 }, () => mutant("Killed")),
            mutant("Timeout"),
            mutant("Survived", 7),
            mutant("NoCoverage", 9),
            mutant("Ignored"),
            mutant("CompileError"),
            mutant("RuntimeError"),
          ],
        },
      },
    };
    const c = countReport(report);
    expect(c).toMatchObject({
      mutants: 14,
      killed: 8,
      timeout: 1,
      survived: 1,
      noCoverage: 1,
      ignored: 1,
      errors: 2,
    });
    // 9 / 11 = 81.818...%: 81.81, not 81.82.
    expect(c.score).toBe(81.81);
    expect(c.survivors).toEqual([
      expect.objectContaining({ file: "app/m.ts", line: 7, status: "Survived" }),
      expect.objectContaining({ file: "app/m.ts", line: 9, status: "NoCoverage" }),
    ]);
    // 2 of 3 is 66.66, and 89.999...% stays under a 90% floor.
    const k = (n: number) => Array.from({ length: n }, () => mutant("Killed"));
    expect(countReport({ files: { f: { mutants: [...k(2), mutant("Survived")] } } }).score).toBe(
      66.66,
    );
    const nearly = {
      files: { f: { mutants: [...k(8999), ...Array(1001).fill(mutant("Survived"))] } },
    };
    expect(countReport(nearly).score).toBe(89.99);
  });

  it("merges modules' reports without mixing their test ids", () => {
    const r = (file: string, test: string) => ({
      schemaVersion: "2",
      files: { [file]: { language: "typescript", source: "", mutants: [mutant("Killed")] } },
      testFiles: { [test]: { tests: [{ id: "0", name: "t" }] } },
    });
    const merged = mergeReports([r("app/a.ts", "test/x.test.ts"), r("app/b.ts", "test/x.test.ts")]);
    expect(merged.files["app/a.ts"].mutants[0]).toMatchObject({ id: "0:1", killedBy: ["0:0"] });
    expect(merged.files["app/b.ts"].mutants[0]).toMatchObject({ id: "1:1", killedBy: ["1:0"] });
    expect(merged.testFiles!["test/x.test.ts"].tests.map((t: { id: string }) => t.id)).toEqual([
      "0:0",
      "1:0",
    ]);
  });

  it("prints a table with each module's counts and time", () => {
    const counts = {
      mutants: 12,
      ignored: 1,
      errors: 1,
      killed: 8,
      survived: 1,
      noCoverage: 1,
      timeout: 0,
      score: 80,
    };
    const text = table([
      { module: "app/svc/decimal.ts", counts, seconds: 46.4, note: "recorded 62.00%" },
      { module: "app/fulfilment/pay.server.ts", note: "not yet measured, not enforced" },
    ]);
    const [head, row, skipped] = text.split("\n");
    expect(head!.split(/\s+/)).toEqual([
      "module",
      "mutants",
      "killed",
      "survived",
      "no",
      "cov.",
      "timeout",
      "score",
      "time",
    ]);
    expect(row!.split(/\s{2,}/)).toEqual([
      "app/svc/decimal.ts",
      "10",
      "8",
      "1",
      "1",
      "0",
      "80.00%",
      "46 s",
      "recorded 62.00%",
    ]);
    expect(skipped!.trim().split(/\s{2,}/)).toEqual([
      "app/fulfilment/pay.server.ts",
      "not yet measured, not enforced",
    ]);
  });
});
