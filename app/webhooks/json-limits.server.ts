/**
 * Bounded input at the edges: request bodies read with a byte limit that stops reading as soon
 * as it is passed, and JSON parsed with a size and a nesting limit.
 *
 * Why a nesting limit: JSON.parse itself copes with any depth, but everything recursive after it
 * does not. A body nested 5,000 deep parses, then JSON.parse's reviver (the lossless id parse)
 * or JSON.stringify (storing the payload) overflows the stack, a RangeError that became a 500.
 * The depth is measured first by a linear scan of the text, which has no recursion to overflow.
 */
import { parseJsonLossless } from "../events/ids.server";

/** Nesting deeper than any payload of Shopify's or the service's (orders go about 6 deep). */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/** Why an input was refused, with the HTTP status that says so. */
export class BodyLimitError extends Error {
  constructor(
    readonly kind: "too_large" | "too_deep" | "invalid_json",
    message: string,
  ) {
    super(message);
    this.name = "BodyLimitError";
  }

  /** 413 for a body over the size limit, 400 for the rest. */
  get status(): 400 | 413 {
    return this.kind === "too_large" ? 413 : 400;
  }

  /** A plain-text reply; the connection closes so that an unread rest is never read. */
  toResponse(): Response {
    return new Response(this.message, {
      status: this.status,
      headers: {
        "Content-Type": "text/plain; charset=utf-8",
        ...(this.kind === "too_large" ? { Connection: "close" } : {}),
      },
    });
  }
}

export interface JsonLimits {
  /** Deepest nesting of arrays and objects allowed (the top-level value is depth 1). */
  maxDepth?: number;
  /** Largest text allowed, in UTF-8 bytes. */
  maxBytes?: number;
  /** Keep integers above 2^53 as their exact digits (see parseJsonLossless). */
  lossless?: boolean;
}

/**
 * JSON.parse with limits: throws BodyLimitError ("too_large", "too_deep" or "invalid_json")
 * instead of parsing a body whose later handling could fail on it.
 */
export function parseJsonBounded(text: string, limits: JsonLimits = {}): unknown {
  const maxDepth = limits.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  if (Buffer.byteLength(text) > (limits.maxBytes ?? Infinity)) {
    throw new BodyLimitError("too_large", `body is larger than ${limits.maxBytes} bytes`);
  }
  if (jsonDepthExceeds(text, maxDepth)) {
    throw new BodyLimitError("too_deep", `JSON is nested deeper than ${maxDepth} levels`);
  }
  try {
    return limits.lossless ? parseJsonLossless(text) : JSON.parse(text);
  } catch {
    throw new BodyLimitError("invalid_json", "body is not JSON");
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether arrays and objects in the text nest deeper than `maxDepth`, brackets inside strings
 * not counted. Malformed text is left for JSON.parse to refuse.
 */
export function jsonDepthExceeds(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > maxDepth) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/**
 * The request's body, read chunk by chunk up to `maxBytes`: a Content-Length that declares more
 * is refused before anything is read, and a body that turns out longer is refused as soon as
 * the limit is passed (the rest is never read). Throws BodyLimitError.
 */
export async function readBytesLimited(request: Request, maxBytes: number): Promise<Buffer> {
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > maxBytes) {
    await request.body?.cancel().catch(() => undefined);
    throw new BodyLimitError("too_large", `body is larger than ${maxBytes} bytes`);
  }
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new BodyLimitError("too_large", `body is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** readBytesLimited, as UTF-8 text. */
export async function readTextLimited(request: Request, maxBytes: number): Promise<string> {
  return (await readBytesLimited(request, maxBytes)).toString("utf8");
}
