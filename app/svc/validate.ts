/**
 * Client-side checks of a request against the contract's required fields and lengths, before
 * anything is sent: a clear `SvcValidationError` naming the field (path) and no call made.
 */
import { SvcValidationError } from "./errors";
import { isDecimal } from "./decimal";

export type FieldSpec =
  | { type: "string"; required?: boolean; max?: number; notBlank?: boolean }
  | { type: "int"; required?: boolean; max?: number; min?: number; maxValue?: number }
  | { type: "decimal"; required?: boolean; max?: number }
  | { type: "boolean"; required?: boolean }
  | {
      type: "stringArray";
      required?: boolean;
      maxItems?: number;
      minItems?: number;
      itemMax?: number;
    }
  | { type: "array"; required?: boolean; minItems?: number; maxItems?: number; item: ObjectSpec }
  | { type: "object"; required?: boolean; item: ObjectSpec }
  | { type: "any"; required?: boolean };

export type ObjectSpec = Record<string, FieldSpec>;

function isAbsent(v: unknown): boolean {
  return v === undefined || v === null;
}

export function validateRequest(
  operation: string,
  spec: ObjectSpec,
  value: unknown,
  path = "",
): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new SvcValidationError(operation, path || "body", "must be an object");
  }
  const rec = value as Record<string, unknown>;
  for (const [name, f] of Object.entries(spec)) {
    validateField(operation, f, rec[name], path ? `${path}.${name}` : name);
  }
}

function validateField(op: string, f: FieldSpec, v: unknown, path: string): void {
  if (isAbsent(v) || (f.type === "string" && v === "")) {
    if (f.required) throw new SvcValidationError(op, path, "is required");
    return;
  }
  const fail = (problem: string): never => {
    throw new SvcValidationError(op, path, problem);
  };
  switch (f.type) {
    case "string":
      if (typeof v !== "string") fail("must be a string");
      if (f.max !== undefined && [...(v as string)].length > f.max)
        fail(`is longer than ${f.max} characters`);
      if (f.notBlank && (v as string).trim() === "") fail("must not be blank");
      return;
    case "int":
      if (typeof v !== "number" || !Number.isSafeInteger(v)) {
        // Long ids beyond 2^53 are accepted as digit strings.
        if (!(typeof v === "string" && /^-?\d+$/.test(v))) fail("must be an integer");
      }
      if (f.max !== undefined && String(v).replace("-", "").length > f.max)
        fail(`has more than ${f.max} digits`);
      if (f.min !== undefined && Number(v) < f.min) fail(`must be at least ${f.min}`);
      if (f.maxValue !== undefined && Number(v) > f.maxValue) fail(`must be at most ${f.maxValue}`);
      return;
    case "decimal":
      if (!isDecimal(v)) fail("must be a decimal (string or number)");
      if (f.max !== undefined && String(v).length > f.max)
        fail(`is longer than ${f.max} characters`);
      return;
    case "boolean":
      if (typeof v !== "boolean") fail("must be a boolean");
      return;
    case "stringArray": {
      if (!Array.isArray(v)) return fail("must be a list");
      const a = v as unknown[];
      if (f.minItems !== undefined && a.length < f.minItems)
        fail(`must have at least ${f.minItems} entries`);
      if (f.maxItems !== undefined && a.length > f.maxItems)
        fail(`must have at most ${f.maxItems} entries`);
      a.forEach((s, i) => {
        if (typeof s !== "string" || s === "") fail(`[${i}] must be a non-empty string`);
        if (f.itemMax !== undefined && [...(s as string)].length > f.itemMax) {
          throw new SvcValidationError(
            op,
            `${path}[${i}]`,
            `is longer than ${f.itemMax} characters`,
          );
        }
      });
      return;
    }
    case "array": {
      if (!Array.isArray(v)) return fail("must be a list");
      const a = v as unknown[];
      if (f.minItems !== undefined && a.length < f.minItems)
        fail(`must have at least ${f.minItems} entries`);
      if (f.maxItems !== undefined && a.length > f.maxItems)
        fail(`must have at most ${f.maxItems} entries`);
      a.forEach((item, i) => validateRequest(op, f.item, item, `${path}[${i}]`));
      return;
    }
    case "object":
      validateRequest(op, f.item, v, path);
      return;
    case "any":
      return;
  }
}

/** Drops undefined values (so they are not sent) — null is kept as given. */
export function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
