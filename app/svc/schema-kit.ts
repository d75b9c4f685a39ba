/** zod building blocks for tolerant parsing of service responses (DESIGN §8). */
import { z } from "zod";
import { isDecimal, type Money, toMoney } from "./decimal";

/** A string, also accepting numbers (ids sometimes come as numbers). null/absent allowed. */
export const str = z
  .union([z.string(), z.number(), z.bigint()])
  .transform((v) => String(v))
  .nullish();
/** A required string (number accepted). */
export const reqStr = z.union([z.string(), z.number()]).transform((v) => String(v));

/** A number, also accepting numeric text. */
export const num = z
  .union([z.number(), z.string().regex(/^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/)])
  .transform((v) => Number(v))
  .nullish();

/** A boolean, also accepting 0/1 and "true"/"false". */
export const bool = z
  .union([z.boolean(), z.literal(0), z.literal(1), z.enum(["true", "false", "0", "1"])])
  .transform((v) => v === true || v === 1 || v === "true" || v === "1")
  .nullish();

/** Money: string or number, kept exact as a canonical decimal string. */
export const money = z
  .union([z.string(), z.number()])
  .refine((v) => (typeof v === "string" && v.trim() === "") || isDecimal(v), "not a decimal")
  .transform((v): Money | null => (typeof v === "string" && v.trim() === "" ? null : toMoney(v)))
  .nullish();

/** A timestamp given as millisecond number, numeric text, ISO 8601 or `yyyy-MM-dd HH:mm:ss` (UTC). */
export const timestamp = z
  .union([z.number(), z.string()])
  .transform((v, ctx): Date | null => {
    if (typeof v === "string" && v.trim() === "") return null;
    const d = toDate(v);
    if (!d) {
      ctx.addIssue({ code: "custom", message: "not a timestamp" });
      return z.NEVER;
    }
    return d;
  })
  .nullish();

export function toDate(v: number | string): Date | null {
  if (typeof v === "number") return new Date(v);
  const t = v.trim();
  if (/^\d+$/.test(t)) return new Date(Number(t));
  const plain = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d+)?)$/.exec(t);
  const d = plain ? new Date(`${plain[1]}T${plain[2]}Z`) : new Date(t);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** An array that tolerates null (→ []). */
export const arr = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullish()
    .transform((v) => v ?? []);

export const obj = z.looseObject;

/**
 * Either pagination shape: A (`pageNumber`, `pageSize`, `totalRecords`, `totalPages`, `content`)
 * or B (`pageNum`, `pageSize`, `total`, `list`), normalised.
 */
export function page<T extends z.ZodType>(item: T) {
  return z
    .looseObject({
      pageNumber: num,
      pageNum: num,
      pageSize: num,
      totalRecords: num,
      totalPages: num,
      total: num,
      content: z.array(item).nullish(),
      list: z.array(item).nullish(),
    })
    .nullish()
    .transform((d) => ({
      items: (d?.content ?? d?.list ?? []) as z.output<T>[],
      pageNumber: d?.pageNumber ?? d?.pageNum ?? undefined,
      pageSize: d?.pageSize ?? undefined,
      total: d?.totalRecords ?? d?.total ?? undefined,
      totalPages: d?.totalPages ?? undefined,
    }));
}

export interface Page<T> {
  items: T[];
  pageNumber?: number;
  pageSize?: number;
  total?: number;
  totalPages?: number;
}
