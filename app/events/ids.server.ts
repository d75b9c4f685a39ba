/**
 * Shopify's ids in webhook payloads are 64-bit integers written as JSON numbers; above 2^53 a
 * JavaScript number cannot hold them (788032119674292922 parses as 788032119674292900). The
 * app reads the raw body itself and keeps every such integer as its exact digits (a string),
 * and reads ids through `payloadId`, which takes a number, a digit string or a GID alike.
 */

import type { Reviver } from "../svc/json";

const INTEGER_LITERAL = /^-?\d+$/;

/**
 * JSON.parse, except that an integer too large for a double to hold exactly becomes the string
 * of its digits (Node ≥ 21 hands the reviver each primitive's source text). Smaller numbers,
 * decimals (prices are strings anyway) and everything else parse as usual.
 * The reviver recurses: on input nested thousands deep it overflows the stack. At an edge,
 * parse with `parseJsonBounded(text, { lossless: true })` (json-limits.server.ts) instead.
 */
export function parseJsonLossless(text: string): unknown {
  const reviver: Reviver = (_key, value, context) =>
    typeof value === "number" &&
    !Number.isSafeInteger(value) &&
    context?.source !== undefined &&
    INTEGER_LITERAL.test(context.source)
      ? context.source
      : value;
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
}

/**
 * The numeric id in a payload value: a safe integer, a digit string, or a GID
 * (`gid://shopify/Order/820982911946154508`, with or without a query). Undefined otherwise.
 */
export function payloadId(value: unknown): string | undefined {
  if (typeof value === "number")
    return Number.isSafeInteger(value) && value > 0 ? String(value) : undefined;
  if (typeof value !== "string") return undefined;
  if (/^\d+$/.test(value)) return value;
  return /^gid:\/\/shopify\/[A-Za-z]+\/(\d+)(?:\?.*)?$/.exec(value)?.[1];
}
