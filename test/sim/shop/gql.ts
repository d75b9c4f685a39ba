/**
 * A very small GraphQL engine for the shop simulator: parses one operation (fields, aliases,
 * arguments, variables, nested selections; no fragments or directives), validates it against
 * a typed schema the way the Admin API does (unknown fields and arguments, selections on
 * scalars, missing required variables are errors and nothing runs), then executes it and
 * returns only the selected fields.
 */

export type Value =
  | { kind: "var"; name: string }
  | { kind: "lit"; value: unknown }
  | { kind: "list"; items: Value[] }
  | { kind: "obj"; fields: Record<string, Value> };

export interface Field {
  alias?: string;
  name: string;
  args: Record<string, Value>;
  selections?: Field[];
  line: number;
  column: number;
}

export interface Operation {
  type: "query" | "mutation";
  name?: string;
  variables: { name: string; type: string; defaultValue?: Value }[];
  selections: Field[];
}

export class GqlError extends Error {
  constructor(
    message: string,
    readonly extensions: Record<string, unknown> = {},
    readonly locations?: { line: number; column: number }[],
  ) {
    super(message);
  }
}

// --- lexer -----------------------------------------------------------------------------------

interface Token {
  kind: "punct" | "name" | "string" | "number" | "eof";
  value: string;
  line: number;
  column: number;
}

function lex(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const push = (kind: Token["kind"], value: string, start: number) =>
    out.push({ kind, value, line, column: start - lineStart + 1 });
  while (i < src.length) {
    const c = src[i]!;
    if (c === "\n") {
      line++;
      i++;
      lineStart = i;
    } else if (c === " " || c === "\t" || c === "\r" || c === "," || c === "\ufeff") {
      i++;
    } else if (c === "#") {
      while (i < src.length && src[i] !== "\n") i++;
    } else if ("{}()[]:!$=@|&".includes(c)) {
      push("punct", c, i);
      i++;
    } else if (src.startsWith("...", i)) {
      push("punct", "...", i);
      i += 3;
    } else if (/[A-Za-z_]/.test(c)) {
      const start = i;
      while (i < src.length && /[A-Za-z0-9_]/.test(src[i]!)) i++;
      push("name", src.slice(start, i), start);
    } else if (/[-0-9]/.test(c)) {
      const start = i;
      i++;
      while (i < src.length && /[0-9.eE+-]/.test(src[i]!)) i++;
      push("number", src.slice(start, i), start);
    } else if (c === '"') {
      const start = i;
      if (src.startsWith('"""', i)) {
        const end = src.indexOf('"""', i + 3);
        if (end < 0) throw new GqlError("Parse error: unterminated string");
        push("string", src.slice(i + 3, end), start);
        i = end + 3;
      } else {
        let j = i + 1;
        let s = "";
        while (j < src.length && src[j] !== '"') {
          if (src[j] === "\\") {
            s += JSON.parse(`"${src.slice(j, j + (src[j + 1] === "u" ? 6 : 2))}"`);
            j += src[j + 1] === "u" ? 6 : 2;
          } else s += src[j++];
        }
        if (j >= src.length) throw new GqlError("Parse error: unterminated string");
        push("string", s, start);
        i = j + 1;
      }
    } else {
      throw new GqlError(`Parse error on "${c}" (${line}:${i - lineStart + 1})`);
    }
  }
  out.push({ kind: "eof", value: "", line, column: i - lineStart + 1 });
  return out;
}

// --- parser ----------------------------------------------------------------------------------

/** Parses a document with exactly one operation (or picks `operationName`). */
export function parse(src: string, operationName?: string): Operation {
  const t = lex(src);
  let p = 0;
  const peek = () => t[p]!;
  const next = () => t[p++]!;
  const fail = (tok: Token, what: string): never => {
    throw new GqlError(
      `Parse error on "${tok.value || "end of file"}" (${tok.kind.toUpperCase()}) at [${tok.line}, ${tok.column}]${what ? `: expected ${what}` : ""}`,
      { code: "PARSE_ERROR" },
      [{ line: tok.line, column: tok.column }],
    );
  };
  const expect = (value: string) => {
    const tok = next();
    if (tok.value !== value || (tok.kind !== "punct" && tok.kind !== "name")) fail(tok, value);
  };
  const name = () => {
    const tok = next();
    if (tok.kind !== "name") fail(tok, "a name");
    return tok.value;
  };
  const typeRef = (): string => {
    let s: string;
    if (peek().value === "[") {
      next();
      s = `[${typeRef()}]`;
      expect("]");
    } else s = name();
    if (peek().value === "!" && peek().kind === "punct") {
      next();
      s += "!";
    }
    return s;
  };
  const value = (): Value => {
    const tok = next();
    if (tok.kind === "punct" && tok.value === "$") return { kind: "var", name: name() };
    if (tok.kind === "string") return { kind: "lit", value: tok.value };
    if (tok.kind === "number") return { kind: "lit", value: Number(tok.value) };
    if (tok.kind === "name") {
      if (tok.value === "true") return { kind: "lit", value: true };
      if (tok.value === "false") return { kind: "lit", value: false };
      if (tok.value === "null") return { kind: "lit", value: null };
      return { kind: "lit", value: tok.value }; // enum value
    }
    if (tok.value === "[") {
      const items: Value[] = [];
      while (peek().value !== "]") items.push(value());
      next();
      return { kind: "list", items };
    }
    if (tok.value === "{") {
      const fields: Record<string, Value> = {};
      while (peek().value !== "}") {
        const k = name();
        expect(":");
        fields[k] = value();
      }
      next();
      return { kind: "obj", fields };
    }
    return fail(tok, "a value");
  };
  const selectionSet = (): Field[] => {
    expect("{");
    const fields: Field[] = [];
    while (peek().value !== "}" || peek().kind !== "punct") {
      const tok = peek();
      if (tok.kind === "eof") fail(tok, "}");
      if (tok.value === "..." && tok.kind === "punct") {
        throw new GqlError("The shop simulator does not support fragments", {
          code: "PARSE_ERROR",
        });
      }
      let fieldName = name();
      let alias: string | undefined;
      if (peek().value === ":" && peek().kind === "punct") {
        next();
        alias = fieldName;
        fieldName = name();
      }
      const args: Record<string, Value> = {};
      if (peek().value === "(" && peek().kind === "punct") {
        next();
        while (peek().value !== ")") {
          const k = name();
          expect(":");
          args[k] = value();
        }
        next();
      }
      const f: Field = { alias, name: fieldName, args, line: tok.line, column: tok.column };
      if (peek().value === "{" && peek().kind === "punct") f.selections = selectionSet();
      fields.push(f);
    }
    next();
    return fields;
  };

  const ops: Operation[] = [];
  while (peek().kind !== "eof") {
    const tok = peek();
    if (tok.value === "{") {
      ops.push({ type: "query", variables: [], selections: selectionSet() });
      continue;
    }
    const type = name();
    if (type === "fragment") throw new GqlError("The shop simulator does not support fragments");
    if (type !== "query" && type !== "mutation") fail(tok, "query or mutation");
    let opName: string | undefined;
    if (peek().kind === "name") opName = name();
    const variables: Operation["variables"] = [];
    if (peek().value === "(") {
      next();
      while (peek().value !== ")") {
        expect("$");
        const vName = name();
        expect(":");
        const vType = typeRef();
        let defaultValue: Value | undefined;
        if (peek().value === "=") {
          next();
          defaultValue = value();
        }
        variables.push({ name: vName, type: vType, defaultValue });
      }
      next();
    }
    ops.push({
      type: type as Operation["type"],
      name: opName,
      variables,
      selections: selectionSet(),
    });
  }
  if (ops.length === 0) throw new GqlError("No operations in the document");
  if (operationName) {
    const op = ops.find((o) => o.name === operationName);
    if (!op) throw new GqlError(`No operation named "${operationName}"`);
    return op;
  }
  if (ops.length > 1)
    throw new GqlError("An operation name is required when sending multiple operations.");
  return ops[0]!;
}

// --- schema, validation, execution --------------------------------------------------------------

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- GraphQL values are untyped JSON
export type Resolver<Ctx> = (parent: any, args: Record<string, any>, ctx: Ctx) => unknown;

export interface FieldDef<Ctx> {
  /** `String`, `Int!`, `[LineItem!]!`, an object type name, … */
  type: string;
  /** Argument name → type (`ID!`, `Int`, …). */
  args?: Record<string, string>;
  resolve?: Resolver<Ctx>;
}

export type Schema<Ctx> = Record<string, Record<string, FieldDef<Ctx>>>;

const SCALARS = new Set([
  "String",
  "Int",
  "Float",
  "Boolean",
  "ID",
  "DateTime",
  "Money",
  "Decimal",
  "URL",
  "JSON",
  "UnsignedInt64",
  "FormattedString",
  "HTML",
]);

const named = (type: string) => type.replace(/[[\]!]/g, "");

export function isLeafType<Ctx>(schema: Schema<Ctx>, type: string): boolean {
  const n = named(type);
  return SCALARS.has(n) || !(n in schema);
}

/** Validates the operation against the schema; returns every problem found. */
export function validate<Ctx>(
  schema: Schema<Ctx>,
  op: Operation,
  variables: Record<string, unknown>,
): GqlError[] {
  const errors: GqlError[] = [];
  const declared = new Map(op.variables.map((v) => [v.name, v]));
  for (const v of op.variables) {
    const given = variables[v.name];
    if (v.type.endsWith("!") && (given === undefined || given === null) && !v.defaultValue) {
      errors.push(
        new GqlError(`Variable $${v.name} of type ${v.type} was provided invalid value`, {
          code: "INVALID_VARIABLE",
          value: given ?? null,
          problems: [{ path: [], explanation: "Expected value to not be null" }],
        }),
      );
    }
  }
  const usedVars = (val: Value, f: Field) => {
    if (val.kind === "var" && !declared.has(val.name)) {
      errors.push(
        new GqlError(
          `Variable $${val.name} is used by ${op.name ?? "anonymous query"} but not declared`,
          { code: "variableNotDefined", variableName: val.name },
          [{ line: f.line, column: f.column }],
        ),
      );
    } else if (val.kind === "list") val.items.forEach((x) => usedVars(x, f));
    else if (val.kind === "obj") Object.values(val.fields).forEach((x) => usedVars(x, f));
  };
  const walk = (fields: Field[], typeName: string) => {
    const type = schema[typeName];
    for (const f of fields) {
      if (f.name === "__typename") continue;
      const def = type?.[f.name];
      const loc = [{ line: f.line, column: f.column }];
      if (!def) {
        errors.push(
          new GqlError(
            `Field '${f.name}' doesn't exist on type '${typeName}'`,
            { code: "undefinedField", typeName, fieldName: f.name },
            loc,
          ),
        );
        continue;
      }
      for (const [a, v] of Object.entries(f.args)) {
        if (!def.args || !(a in def.args)) {
          errors.push(
            new GqlError(
              `Field '${f.name}' doesn't accept argument '${a}'`,
              { code: "argumentNotAccepted", name: f.name, typeName: "Field", argumentName: a },
              loc,
            ),
          );
        }
        usedVars(v, f);
      }
      for (const [a, t] of Object.entries(def.args ?? {})) {
        if (t.endsWith("!") && !(a in f.args)) {
          errors.push(
            new GqlError(
              `Field '${f.name}' is missing required arguments: ${a}`,
              { code: "missingRequiredArguments", className: "Field", name: f.name, arguments: a },
              loc,
            ),
          );
        }
      }
      const leaf = isLeafType(schema, def.type);
      if (leaf && f.selections) {
        errors.push(
          new GqlError(
            `Selections can't be made on scalars (field '${f.name}' returns ${named(def.type)} but has selections [${f.selections.map((s) => s.name).join(", ")}])`,
            { code: "selectionMismatch" },
            loc,
          ),
        );
      } else if (!leaf && !f.selections) {
        errors.push(
          new GqlError(
            `Field must have selections (field '${f.name}' returns ${named(def.type)} but has no selections. Did you mean '${f.name} { ... }'?)`,
            { code: "selectionMismatch" },
            loc,
          ),
        );
      } else if (!leaf && f.selections) {
        walk(f.selections, named(def.type));
      }
    }
  };
  walk(op.selections, op.type === "query" ? "QueryRoot" : "Mutation");
  return errors;
}

export function resolveValue(v: Value, variables: Record<string, unknown>): unknown {
  switch (v.kind) {
    case "var":
      return variables[v.name] ?? null;
    case "lit":
      return v.value;
    case "list":
      return v.items.map((x) => resolveValue(x, variables));
    case "obj":
      return Object.fromEntries(
        Object.entries(v.fields).map(([k, x]) => [k, resolveValue(x, variables)]),
      );
  }
}

/** Executes a validated operation; a GqlError thrown by a resolver becomes a top-level error. */
export function execute<Ctx>(
  schema: Schema<Ctx>,
  op: Operation,
  variables: Record<string, unknown>,
  root: unknown,
  ctx: Ctx,
): { data: unknown; errors?: GqlError[] } {
  const vars: Record<string, unknown> = { ...variables };
  for (const d of op.variables) {
    if (vars[d.name] === undefined && d.defaultValue)
      vars[d.name] = resolveValue(d.defaultValue, {});
  }
  const errors: GqlError[] = [];
  const project = (
    value: unknown,
    type: string,
    fields: Field[] | undefined,
    path: (string | number)[],
  ): unknown => {
    if (value === null || value === undefined) return null;
    if (type.startsWith("[")) {
      const inner = type.replace(/!$/, "").slice(1, -1);
      return (value as unknown[]).map((v, i) => project(v, inner, fields, [...path, i]));
    }
    const n = named(type);
    if (!fields) return value;
    const out: Record<string, unknown> = {};
    for (const f of fields) {
      const key = f.alias ?? f.name;
      if (f.name === "__typename") {
        out[key] = (value as { __typename?: string }).__typename ?? n;
        continue;
      }
      const def = schema[n]![f.name]!;
      const args = Object.fromEntries(
        Object.entries(f.args).map(([k, v]) => [k, resolveValue(v, vars)]),
      );
      try {
        const raw = def.resolve
          ? def.resolve(value, args, ctx)
          : (value as Record<string, unknown>)[f.name];
        out[key] = project(raw, def.type, f.selections, [...path, key]);
      } catch (e) {
        if (!(e instanceof GqlError)) throw e;
        errors.push(
          new GqlError(e.message, { ...e.extensions }, [{ line: f.line, column: f.column }]),
        );
        Object.assign(errors[errors.length - 1]!, { path: [...path, key] });
        out[key] = null;
      }
    }
    return out;
  };
  const data = project(root, op.type === "query" ? "QueryRoot" : "Mutation", op.selections, []);
  return errors.length ? { data, errors } : { data };
}
