/**
 * Node's request and response to the Fetch API's and back, for Remix's request handler.
 */
import { once } from "node:events";
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";

/** Headers only a trusted proxy may set; dropped when none is trusted, so nothing believes them. */
const PROXY_HEADERS = new Set(["x-forwarded-for", "x-forwarded-proto", "x-forwarded-host"]);

export function toFetchRequest(
  req: IncomingMessage,
  opts: {
    url: string;
    body: ReadableStream<Uint8Array> | null;
    signal: AbortSignal;
    requestId: string;
    trustProxy: boolean;
  },
): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || (!opts.trustProxy && PROXY_HEADERS.has(name))) continue;
    if (Array.isArray(value)) for (const one of value) headers.append(name, one);
    else headers.set(name, value);
  }
  headers.set("x-request-id", opts.requestId);
  const init: RequestInit & { duplex?: "half" } = {
    method: req.method,
    headers,
    signal: opts.signal,
  };
  if (opts.body) {
    init.body = opts.body;
    init.duplex = "half";
  }
  return new Request(opts.url, init);
}

/** Writes a Fetch Response to node's response, streaming the body with backpressure. */
export async function writeFetchResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
  extraHeaders: OutgoingHttpHeaders,
): Promise<void> {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of response.headers) {
    if (name !== "set-cookie") headers[name] = value;
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  res.writeHead(response.status, { ...headers, ...extraHeaders });
  if (!response.body || req.method === "HEAD") {
    res.end();
    await response.body?.cancel().catch(() => {});
    return;
  }
  const reader = response.body.getReader();
  try {
    for (;;) {
      if (res.destroyed) break;
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) {
        await Promise.race([once(res, "drain"), once(res, "close")]);
      }
    }
  } finally {
    if (res.destroyed) await reader.cancel().catch(() => {});
    else res.end();
  }
}
