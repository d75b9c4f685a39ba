/**
 * The house's comments point at files that exist (issue 31). A route's header names the file
 * that does its work; a comment elsewhere names the file it leans on. A file that moves must
 * take its mentions along: this test reads every comment of app/, server/ and scripts/ and fails
 * on a path there that names no file, written whole (`app/fulfilment/pay.server.ts`) or from
 * app/ (`fulfilment/pay.server.ts`) or beside the file (`./queue.server.ts`).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "../..");

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const rel = `${dir}/${name}`;
    if (statSync(join(ROOT, rel)).isDirectory()) return filesUnder(rel);
    return /\.(ts|tsx|mjs|js)$/.test(name) ? [rel] : [];
  });
}

/** The comments of a source file: line comments and block comments, strings left out. */
export function commentsOf(source: string): string[] {
  const out: string[] = [];
  const re =
    /\/\*[\s\S]*?\*\/|\/\/[^\n]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`/g;
  for (const m of source.matchAll(re)) if (m[0].startsWith("/")) out.push(m[0]);
  return out;
}

const PATH = /(?<![\w./-])((?:\.\/)?(?:[\w$.-]+\/)+[\w$.-]+\.(?:server\.ts|tsx|ts|mjs))(?![\w/-])/g;

/** The paths a comment names, and whether each resolves from the root, from app/, or beside. */
export function brokenMentions(file: string, source: string, exists: (p: string) => boolean) {
  const broken: string[] = [];
  for (const comment of commentsOf(source)) {
    for (const [, path] of comment.matchAll(PATH)) {
      if (/^(https?:|node_modules\/|@)/.test(path!) || path!.includes("://")) continue;
      const candidates = path!.startsWith("./")
        ? [join(dirname(file), path!)]
        : [path!, `app/${path}`, join(dirname(file), path!)];
      if (!candidates.some(exists)) broken.push(path!);
    }
  }
  return broken;
}

describe("paths named in comments", () => {
  it("finds a broken mention, and passes a whole, an app-relative and a sibling one", () => {
    const exists = (p: string) => ["app/jobs/queue.server.ts", "app/worker/main.ts"].includes(p);
    const src = [
      "// the work runs in app/jobs/queue.server.ts, and jobs/queue.server.ts says so",
      "/* started by ./main.ts; once app/jobs/handlers.server.ts */",
      'const s = "app/nowhere.server.ts"; // not a comment before the slashes',
    ].join("\n");
    expect(brokenMentions("app/worker/x.ts", src, exists)).toEqual(["app/jobs/handlers.server.ts"]);
  });

  it("every file a comment of app/, server/ or scripts/ names exists", () => {
    const exists = (p: string) => existsSync(join(ROOT, p));
    const broken = ["app", "server", "scripts"]
      .flatMap(filesUnder)
      .flatMap((f) =>
        brokenMentions(f, readFileSync(join(ROOT, f), "utf8"), exists).map((p) => `${f}: ${p}`),
      );
    expect(broken).toEqual([]);
  });
});
