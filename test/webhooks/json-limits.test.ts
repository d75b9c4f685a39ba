/** Bounded JSON parsing and limited body reading (app/webhooks/json-limits.server.ts). */
import { describe, expect, it } from "vitest";
import {
  BodyLimitError,
  jsonDepthExceeds,
  parseJsonBounded,
  readTextLimited,
} from "../../app/webhooks/json-limits.server";

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

function limitError(fn: () => unknown): BodyLimitError {
  try {
    fn();
  } catch (error) {
    if (error instanceof BodyLimitError) return error;
    throw error;
  }
  throw new Error("no BodyLimitError thrown");
}

describe("parseJsonBounded", () => {
  it("parses up to the depth limit and refuses one level more with a 400", () => {
    expect(parseJsonBounded(nested(64))).toBeInstanceOf(Array);
    const error = limitError(() => parseJsonBounded(nested(65)));
    expect({ kind: error.kind, status: error.status, message: error.message }).toEqual({
      kind: "too_deep",
      status: 400,
      message: "JSON is nested deeper than 64 levels",
    });
    expect(limitError(() => parseJsonBounded(nested(3), { maxDepth: 2 })).kind).toBe("too_deep");
  });

  it("refuses 100,000 levels with its own error, not a stack overflow, where the lossless parse overflowed", () => {
    const deep = `{"a":${nested(100_000)}}`;
    expect(limitError(() => parseJsonBounded(deep, { lossless: true })).kind).toBe("too_deep");
    // What the old path did with 5,000 levels: the lossless reviver overflows the stack.
    const reviver = (_k: string, v: unknown) => v;
    expect(() => JSON.parse(nested(5000), reviver)).toThrow(RangeError);
  });

  it("does not count brackets inside strings, escaped quotes included", () => {
    const text = JSON.stringify({ note: "[".repeat(500), quoted: 'a \\" [[[[ "', more: "{{{{" });
    expect(jsonDepthExceeds(text, 2)).toBe(false);
    expect(parseJsonBounded(text, { maxDepth: 1 })).toEqual(JSON.parse(text));
    // An escaped quote does not end the string: the brackets after it are still inside.
    expect(jsonDepthExceeds('["\\"[[[[[[", 1]', 1)).toBe(false);
    expect(jsonDepthExceeds('["\\\\", [[1]]]', 2)).toBe(true);
  });

  it("keeps integers above 2^53 as digits when asked, and parses as JSON.parse otherwise", () => {
    const text = '{"id":788032119674292922,"n":5}';
    expect(parseJsonBounded(text, { lossless: true })).toEqual({ id: "788032119674292922", n: 5 });
    expect(parseJsonBounded(text)).toEqual({ id: 788032119674292900, n: 5 });
  });

  it("refuses a text over the byte limit (413) and text that is not JSON (400)", () => {
    const big = limitError(() => parseJsonBounded(`"${"é".repeat(6)}"`, { maxBytes: 13 }));
    expect({ kind: big.kind, status: big.status }).toEqual({ kind: "too_large", status: 413 });
    expect(parseJsonBounded(`"${"é".repeat(5)}"`, { maxBytes: 12 })).toBe("ééééé");
    const bad = limitError(() => parseJsonBounded('{"a":'));
    expect({ kind: bad.kind, status: bad.status, message: bad.message }).toEqual({
      kind: "invalid_json",
      status: 400,
      message: "body is not JSON",
    });
  });
});

/** A request whose body is produced only as it is read, counting the bytes handed out. */
function meteredRequest(opts: { chunk: Uint8Array; chunks: number; contentLength?: string }) {
  const meter = { pulled: 0 };
  let left = opts.chunks;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (left-- <= 0) return controller.close();
        meter.pulled += opts.chunk.byteLength;
        controller.enqueue(opts.chunk);
      },
    },
    { highWaterMark: 0 },
  );
  const headers = opts.contentLength ? { "content-length": opts.contentLength } : undefined;
  const request = new Request("http://app.test/x", {
    method: "POST",
    body,
    headers,
    duplex: "half",
  } as RequestInit);
  return { request, meter };
}

describe("readTextLimited", () => {
  it("a declared length over the limit is refused before a byte is read", async () => {
    const { request, meter } = meteredRequest({
      chunk: new Uint8Array(1024),
      chunks: 51_200,
      contentLength: String(50 * 1024 * 1024),
    });
    await expect(readTextLimited(request, 8192)).rejects.toMatchObject({ kind: "too_large" });
    expect(meter.pulled).toBe(0);
  });

  it("an undeclared body stops being read as soon as it passes the limit", async () => {
    const { request, meter } = meteredRequest({ chunk: new Uint8Array(1024), chunks: 51_200 });
    await expect(readTextLimited(request, 8192)).rejects.toMatchObject({ kind: "too_large" });
    expect(meter.pulled).toBe(9 * 1024);
  });

  it("a body within the limit is read whole, characters split across chunks included", async () => {
    const bytes = Buffer.from(JSON.stringify({ code: "ü€", state: "s" }));
    const chunks = [bytes.subarray(0, 12), bytes.subarray(12)]; // inside the € (bytes 11-13)
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      pull: (c) => (i < chunks.length ? c.enqueue(chunks[i++]!) : c.close()),
    });
    const request = new Request("http://app.test/x", {
      method: "POST",
      body,
      duplex: "half",
    } as RequestInit);
    expect(JSON.parse(await readTextLimited(request, 8192))).toEqual({ code: "ü€", state: "s" });
    const exact = new Request("http://app.test/x", { method: "POST", body: "x".repeat(8192) });
    expect(await readTextLimited(exact, 8192)).toHaveLength(8192);
  });
});
