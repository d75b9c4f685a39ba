/**
 * JSON parsing that never loses a digit: a number whose source text is not reproduced exactly
 * by `String(value)` (a long id beyond 2^53, money like `12.50` or `0.1000000000000000055`) is
 * returned as its source text. The schemas accept numbers given as numbers or as text.
 */
/** JSON.parse's reviver with the source text of primitives (Node 22+). */
export type Reviver = (
  this: unknown,
  key: string,
  value: unknown,
  context?: { source?: string },
) => unknown;

const reviver: Reviver = (_key, value, context) => {
  if (typeof value === "number" && context?.source !== undefined) {
    if (String(value) !== context.source) return context.source;
  }
  return value;
};

export function parseJsonLossless(text: string): unknown {
  return (JSON.parse as (t: string, r: Reviver) => unknown)(text, reviver);
}
