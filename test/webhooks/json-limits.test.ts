/** Bounded JSON parsing and limited body reading (app/webhooks/json-limits.server.ts). */
import { describe, expect, it } from "vitest";
import {
  BodyLimitError,
  jsonDepthExceeds,
  parseJsonBounded,
  readBytesLimited,
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
    // What the old path did: the lossless reviver overflows the stack (5,000 levels did on the
    // main thread; 100,000 do on a worker's larger stack too, as under the mutation runner).
    const reviver = (_k: string, v: unknown) => v;
    expect(() => JSON.parse(nested(100_000), reviver)).toThrow(RangeError);
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
  const meter = { pulled: 0, cancelled: false };
  let left = opts.chunks;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (left-- <= 0) return controller.close();
        meter.pulled += opts.chunk.byteLength;
        controller.enqueue(opts.chunk);
      },
      cancel() {
        meter.cancelled = true;
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
    expect(meter.cancelled).toBe(true); // the connection's body is released, not left pending
  });

  it("an undeclared body stops being read as soon as it passes the limit", async () => {
    const { request, meter } = meteredRequest({ chunk: new Uint8Array(1024), chunks: 51_200 });
    await expect(readTextLimited(request, 8192)).rejects.toMatchObject({ kind: "too_large" });
    expect(meter.pulled).toBe(9 * 1024);
    expect(meter.cancelled).toBe(true);
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

describe("readBytesLimited, the edges", () => {
  it("a declared length at the limit is read; one over is refused unread", async () => {
    const at = meteredRequest({ chunk: new Uint8Array(1024), chunks: 8, contentLength: "8192" });
    expect((await readBytesLimited(at.request, 8192)).byteLength).toBe(8192);
    expect(at.meter.cancelled).toBe(false);
    const over = meteredRequest({ chunk: new Uint8Array(1024), chunks: 8, contentLength: "8193" });
    await expect(readBytesLimited(over.request, 8192)).rejects.toMatchObject({ kind: "too_large" });
    expect(over.meter.pulled).toBe(0);
  });

  it("a declared length that is not a number is not trusted: the body is still counted as read", async () => {
    // Each reads as a number over the limit to Number(), but is not plain digits.
    for (const contentLength of ["lots", "-1", "1e9", "+99999", "0x99999"]) {
      const { request, meter } = meteredRequest({
        chunk: new Uint8Array(1024),
        chunks: 100,
        contentLength,
      });
      await expect(readBytesLimited(request, 4096)).rejects.toMatchObject({ kind: "too_large" });
      expect(meter.pulled).toBe(5 * 1024);
    }
    // And one that understates the body does not let more through.
    const { request } = meteredRequest({
      chunk: new Uint8Array(1024),
      chunks: 100,
      contentLength: "10",
    });
    await expect(readBytesLimited(request, 4096)).rejects.toMatchObject({ kind: "too_large" });
  });

  it("a request without a body that declares a large one is refused as too large, not a crash", async () => {
    const request = new Request("http://app.test/x", { headers: { "content-length": "99999" } });
    await expect(readBytesLimited(request, 10)).rejects.toMatchObject({ kind: "too_large" });
  });

  it("no body is an empty one", async () => {
    const get = new Request("http://app.test/x");
    expect(await readBytesLimited(get, 10)).toEqual(Buffer.alloc(0));
    expect(await readTextLimited(new Request("http://app.test/x", { method: "POST" }), 10)).toBe(
      "",
    );
  });

  it("the bytes come back as sent, in order, across chunks", async () => {
    const parts = [Buffer.from([0, 1, 2]), Buffer.from([255, 254]), Buffer.from([7])];
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      pull: (c) => (i < parts.length ? c.enqueue(parts[i++]!) : c.close()),
    });
    const request = new Request("http://app.test/x", {
      method: "POST",
      body,
      duplex: "half",
    } as RequestInit);
    expect(await readBytesLimited(request, 6)).toEqual(Buffer.from([0, 1, 2, 255, 254, 7]));
  });
});

describe("BodyLimitError as a reply", () => {
  it("413 for a body too large, closing the connection; 400 for the rest, keeping it", async () => {
    const large = new BodyLimitError("too_large", "body is larger than 10 bytes").toResponse();
    expect([large.status, large.headers.get("connection"), await large.text()]).toEqual([
      413,
      "close",
      "body is larger than 10 bytes",
    ]);
    expect(large.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    for (const kind of ["too_deep", "invalid_json"] as const) {
      const res = new BodyLimitError(kind, "no").toResponse();
      expect([res.status, res.headers.get("connection"), await res.text()]).toEqual([
        400,
        null,
        "no",
      ]);
      expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    }
    const error = new BodyLimitError("too_deep", "deep");
    expect([error.name, error.message, error instanceof Error]).toEqual([
      "BodyLimitError",
      "deep",
      true,
    ]);
  });
});

describe("jsonDepthExceeds, counting", () => {
  it("closing brackets and braces end a level: siblings do not add up", () => {
    expect(jsonDepthExceeds("[[1],[2],[3],[4]]", 2)).toBe(false);
    expect(jsonDepthExceeds('{"a":{},"b":{},"c":{}}', 2)).toBe(false);
    expect(jsonDepthExceeds('[{"a":1},{"b":2},[3]]', 2)).toBe(false);
    expect(jsonDepthExceeds("[[[1]]]", 2)).toBe(true);
    expect(jsonDepthExceeds('{"a":{"b":{}}}', 2)).toBe(true);
    expect(jsonDepthExceeds('{"a":[{"b":1}]}', 2)).toBe(true);
    expect(jsonDepthExceeds("[]", 1)).toBe(false);
    expect(jsonDepthExceeds("[]", 0)).toBe(true);
    expect(jsonDepthExceeds("{}", 0)).toBe(true);
    expect(jsonDepthExceeds('"[[["', 0)).toBe(false);
  });

  it("a string ends at its closing quote: brackets after it count again", () => {
    expect(jsonDepthExceeds('["a", [[1]]]', 2)).toBe(true);
    expect(jsonDepthExceeds('{"k":"v","l":{"m":{}}}', 2)).toBe(true);
    // An escaped backslash does not escape the quote after it.
    expect(jsonDepthExceeds('["\\\\", [[1]]]', 2)).toBe(true);
  });
});

describe("parseJsonBounded, limits given and not", () => {
  it("without a byte limit any size parses; the default depth is 64", () => {
    const long = JSON.stringify({ s: "x".repeat(1_000_000) });
    expect((parseJsonBounded(long) as { s: string }).s).toHaveLength(1_000_000);
    expect(parseJsonBounded(nested(64), {})).toBeInstanceOf(Array);
    expect(limitError(() => parseJsonBounded(nested(65), { maxBytes: 1000 })).message).toBe(
      "JSON is nested deeper than 64 levels",
    );
    expect(parseJsonBounded(nested(3), { maxDepth: 3 })).toEqual([[[]]]);
  });

  it("the size is checked before the depth, and says the limit", () => {
    const error = limitError(() => parseJsonBounded(nested(100), { maxBytes: 10, maxDepth: 2 }));
    expect({ kind: error.kind, message: error.message }).toEqual({
      kind: "too_large",
      message: "body is larger than 10 bytes",
    });
  });

  it("a lossless parse that fails is invalid JSON too", () => {
    expect(
      limitError(() => parseJsonBounded('{"id":12345678901234567890', { lossless: true })).kind,
    ).toBe("invalid_json");
    expect(parseJsonBounded("[1, 2.5]", { lossless: true, maxDepth: 1 })).toEqual([1, 2.5]);
  });
});
