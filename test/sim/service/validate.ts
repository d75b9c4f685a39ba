/**
 * Hand validation of request fields with the contract's lengths. Every failure throws the
 * parameter error 1600100 with the field named in the message.
 */
import { isMoney, parseMoney, type Cents } from "./money";
import { paramError } from "./envelope";

export type Json = Record<string, unknown>;

export function asObject(value: unknown, what = "body"): Json {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw paramError(`${what} must be a JSON object`);
  }
  return value as Json;
}

interface StrOpts {
  max?: number;
  required?: boolean;
}

export function str(o: Json, field: string, opts: StrOpts & { required: true }): string;
export function str(o: Json, field: string, opts?: StrOpts): string | undefined;
export function str(o: Json, field: string, opts: StrOpts = {}): string | undefined {
  const v = o[field];
  if (v === undefined || v === null || v === "") {
    if (opts.required) throw paramError(`${field} must not be empty`);
    return undefined;
  }
  // Clients sometimes send ids as numbers; the service accepts them as text.
  const text = typeof v === "number" && Number.isFinite(v) ? String(v) : v;
  if (typeof text !== "string") throw paramError(`${field} must be a string`);
  if (opts.required && text.trim() === "") throw paramError(`${field} must not be blank`);
  if (opts.max !== undefined && text.length > opts.max) {
    throw paramError(`${field} length must not exceed ${opts.max}`);
  }
  return text;
}

interface IntOpts {
  required?: boolean;
  min?: number;
  max?: number;
}

export function int(o: Json, field: string, opts: IntOpts & { required: true }): number;
export function int(o: Json, field: string, opts?: IntOpts): number | undefined;
export function int(o: Json, field: string, opts: IntOpts = {}): number | undefined {
  const v = o[field];
  if (v === undefined || v === null || v === "") {
    if (opts.required) throw paramError(`${field} must not be null`);
    return undefined;
  }
  const n = typeof v === "string" && /^-?\d+$/.test(v.trim()) ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n))
    throw paramError(`${field} must be an integer`);
  if (opts.min !== undefined && n < opts.min) throw paramError(`${field} must be >= ${opts.min}`);
  if (opts.max !== undefined && n > opts.max) throw paramError(`${field} must be <= ${opts.max}`);
  return n;
}

export function bool(o: Json, field: string): boolean | undefined {
  const v = o[field];
  if (v === undefined || v === null || v === "") return undefined;
  if (v === true || v === "true") return true;
  if (v === false || v === "false") return false;
  throw paramError(`${field} must be a boolean`);
}

export function money(o: Json, field: string, required = false): Cents | undefined {
  const v = o[field];
  if (v === undefined || v === null || v === "") {
    if (required) throw paramError(`${field} must not be null`);
    return undefined;
  }
  if (!isMoney(v)) throw paramError(`${field} must be a decimal with at most 2 fraction digits`);
  return parseMoney(v as string | number);
}

export function list(
  o: Json,
  field: string,
  opts: { required?: boolean } = {},
): unknown[] | undefined {
  const v = o[field];
  if (v === undefined || v === null) {
    if (opts.required) throw paramError(`${field} must not be empty`);
    return undefined;
  }
  if (!Array.isArray(v)) throw paramError(`${field} must be a list`);
  if (opts.required && v.length === 0) throw paramError(`${field} must not be empty`);
  return v;
}

export function strList(
  o: Json,
  field: string,
  opts: { required?: boolean; max?: number } = {},
): string[] | undefined {
  const items = list(o, field, opts);
  if (!items) return undefined;
  return items.map((item, i) => {
    if (typeof item !== "string" && typeof item !== "number") {
      throw paramError(`${field}[${i}] must be a string`);
    }
    const s = String(item);
    if (opts.max !== undefined && s.length > opts.max) {
      throw paramError(`${field}[${i}] length must not exceed ${opts.max}`);
    }
    return s;
  });
}

/** Query strings: repeated keys or comma lists become arrays. */
export function queryToJson(params: URLSearchParams): Json {
  const out: Json = {};
  for (const key of new Set(params.keys())) {
    const all = params.getAll(key);
    out[key] = all.length > 1 ? all : all[0];
  }
  return out;
}

export function queryList(o: Json, field: string): string[] | undefined {
  const v = o[field];
  if (v === undefined || v === null || v === "") return undefined;
  const parts = Array.isArray(v) ? v.map(String) : String(v).split(",");
  return parts.map((p) => p.trim()).filter((p) => p !== "");
}
