/** HTTP clients for the server tests: big streamed bodies, raw requests, plain calls. */
import { once } from "node:events";
import { request } from "node:http";

const CHUNK = Buffer.alloc(64 * 1024, 0x61);

export interface Outcome {
  /** The status the server answered, or 0 when the connection failed before any answer. */
  status: number;
  error?: string;
}

/**
 * POSTs `bytes` bytes (declared with Content-Length, or chunked), `prefix` first (a multipart
 * part's head) then streamed from one shared buffer so the client holds no body in memory;
 * stops sending as soon as an answer arrives.
 */
export function sendBig(
  url: string,
  opts: { bytes: number; chunked: boolean; headers?: Record<string, string>; prefix?: Buffer },
): Promise<Outcome> {
  return new Promise((resolve) => {
    const u = new URL(url);
    const req = request({
      host: u.hostname,
      port: u.port,
      path: u.pathname + u.search,
      method: "POST",
      agent: false,
      headers: {
        "content-type": "application/json",
        ...(opts.chunked ? {} : { "content-length": String(opts.bytes) }),
        ...opts.headers,
      },
    });
    let done = false;
    const finish = (outcome: Outcome) => {
      if (done) return;
      done = true;
      req.destroy();
      resolve(outcome);
    };
    req.on("response", (res) => {
      res.resume();
      finish({ status: res.statusCode ?? 0 });
    });
    req.on("error", (e: NodeJS.ErrnoException) => finish({ status: 0, error: e.code }));
    const closed = new Promise((r) => req.once("close", r));
    void (async () => {
      let sent = 0;
      if (opts.prefix) {
        req.write(opts.prefix);
        sent += opts.prefix.length;
      }
      while (sent < opts.bytes && !done) {
        const room = req.write(CHUNK);
        sent += CHUNK.length;
        if (!room) await Promise.race([once(req, "drain").catch(() => {}), closed]);
      }
      if (!done) req.end();
    })();
  });
}

/** A request whose body arrives in pieces, with a pause: for timeouts and in-flight tests. */
export function sendSlowly(
  url: string,
  opts: { method?: string; first: string; declared: number; rest?: string; pauseMs: number },
): Promise<Outcome & { body: string }> {
  return new Promise((resolve) => {
    const u = new URL(url);
    const req = request({
      host: u.hostname,
      port: u.port,
      path: u.pathname + u.search,
      method: opts.method ?? "POST",
      agent: false,
      headers: { "content-length": String(opts.declared) },
    });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      res.on("error", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", (e: NodeJS.ErrnoException) => resolve({ status: 0, error: e.code, body: "" }));
    req.write(opts.first);
    if (opts.rest !== undefined) {
      const rest = opts.rest;
      setTimeout(() => req.end(rest), opts.pauseMs);
    }
  });
}
