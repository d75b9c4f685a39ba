/**
 * `ShopOrder.state` is written in one function (issue 31): `transition` in
 * app/orders/transition.server.ts, which writes the timeline entry of the change in the same
 * transaction. This test reads every file of app/ with the TypeScript parser and fails on any
 * other writer: a Prisma `shopOrder` update, upsert or create whose data names `state` (or
 * spreads an object that could), and raw SQL that sets the column.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "../..");
const HOME = "app/orders/transition.server.ts";
const WRITES = new Set([
  "update",
  "updateMany",
  "updateManyAndReturn",
  "upsert",
  "create",
  "createMany",
  "createManyAndReturn",
]);

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const rel = `${dir}/${name}`;
    if (statSync(join(ROOT, rel)).isDirectory()) return sources(rel);
    return /\.(ts|tsx)$/.test(name) ? [rel] : [];
  });
}

function prop(obj: ts.ObjectLiteralExpression, name: string): ts.Expression | undefined {
  for (const p of obj.properties) {
    if (ts.isPropertyAssignment(p) && p.name.getText() === name) return p.initializer;
    if (ts.isShorthandPropertyAssignment(p) && p.name.getText() === name) return p.name;
  }
  return undefined;
}

/** Whether a `data` (or `create`/`update` of an upsert) writes the state, or may. */
function writesState(data: ts.Expression | undefined): boolean {
  if (!data) return false;
  if (ts.isArrayLiteralExpression(data)) return data.elements.some((e) => writesState(e));
  // Not a literal: what it holds is out of sight, so it counts as a writer.
  if (!ts.isObjectLiteralExpression(data)) return true;
  return data.properties.some(
    (p) =>
      ts.isSpreadAssignment(p) ||
      ((ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) &&
        p.name.getText().replace(/["']/g, "") === "state"),
  );
}

/** The places of a source text that write `ShopOrder.state`, as "line: text". */
export function stateWriters(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (n: ts.Node) =>
    `${file}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}: ${n.getText().split("\n")[0]}`;
  const visit = (n: ts.Node) => {
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression)) {
      const method = n.expression.name.text;
      const owner = n.expression.expression;
      if (
        WRITES.has(method) &&
        ts.isPropertyAccessExpression(owner) &&
        owner.name.text === "shopOrder"
      ) {
        const arg = n.arguments[0];
        const writes =
          !arg ||
          !ts.isObjectLiteralExpression(arg) ||
          (method === "upsert"
            ? writesState(prop(arg, "create")) || writesState(prop(arg, "update"))
            : writesState(prop(arg, "data")));
        if (writes) found.push(at(n));
      }
    }
    if (ts.isTaggedTemplateExpression(n) || ts.isNoSubstitutionTemplateLiteral(n)) {
      const sql = n.getText();
      if (
        /\b(UPDATE|INSERT\s+INTO)\s+"ShopOrder"/i.test(sql) &&
        /"state"/.test(sql) &&
        !ts.isTaggedTemplateExpression(n.parent)
      ) {
        found.push(at(n));
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

describe("one writer of ShopOrder.state", () => {
  it("sees a Prisma write, an upsert, a spread and raw SQL, and passes a read or a flag", () => {
    const src = [
      `await db.shopOrder.update({ where: { id }, data: { state: "HELD" } });`,
      `await tx.shopOrder.updateMany({ where: { id }, data: { ...extra } });`,
      `await db.shopOrder.upsert({ where: { id }, create: { id }, update: { "state": s } });`,
      'await db.$executeRaw`UPDATE "ShopOrder" SET "state" = ${s} WHERE "id" = ${id}`;',
      `await db.shopOrder.findMany({ where: { state: "HELD" } });`,
      `await db.shopOrder.updateMany({ where: { state: "PAID" }, data: { flag: "x" } });`,
      `await db.shopOrder.create({ data: { id, orderNumber } });`,
    ].join("\n");
    expect(stateWriters("x.ts", src).map((w) => w.split(":")[1])).toEqual(["1", "2", "3", "4"]);
  });

  it(`is ${HOME}: no other file of app/ writes the state`, () => {
    expect(stateWriters(HOME, readFileSync(join(ROOT, HOME), "utf8")).length).toBeGreaterThan(0);
    const others = sources("app")
      .filter((f) => f !== HOME)
      .flatMap((f) => stateWriters(f, readFileSync(join(ROOT, f), "utf8")));
    expect(others).toEqual([]);
  });
});
