/**
 * Serving `/metrics`:
 * - on the app's own port, only to `Authorization: Bearer <METRICS_TOKEN>` (compared in
 *   constant time); without METRICS_TOKEN the path is not handled at all, so the app answers it
 *   as any unknown path (404) and does not advertise it; a missing or wrong token gets 401;
 * - on a separate listener (`METRICS_PORT`), for worker processes (they have no HTTP server)
 *   and for a scraper inside the private network; it asks for the token too when one is set.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface MetricsHttpOptions {
  /** The bearer token a scrape must present; undefined: see `open`. */
  token?: string;
  /** Without a token: answer everyone (separate listener) rather than not at all (main port). */
  open?: boolean;
  render: () => Promise<{ contentType: string; body: string }>;
  onError?: (error: unknown) => void;
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/** True when the request carries `Authorization: Bearer <token>` (constant time). */
export function hasBearer(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization;
  if (typeof header !== "string") return false;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) return false;
  // Digests have one length whatever was sent: the comparison reveals nothing by its time.
  return timingSafeEqual(digest(m[1]!), digest(token));
}

function pathOf(req: IncomingMessage): string {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

/**
 * A handler for an HTTP server: answers `/metrics` and returns true, or returns false for
 * every other request (and for `/metrics` itself on the main port without a token).
 */
export function metricsHttpHandler(opts: MetricsHttpOptions) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (pathOf(req) !== "/metrics") return false;
    if (opts.token === undefined && !opts.open) return false;
    if (opts.token !== undefined && !hasBearer(req, opts.token)) {
      res
        .writeHead(401, {
          "content-type": "text/plain; charset=utf-8",
          "www-authenticate": 'Bearer realm="metrics"',
          "cache-control": "no-store",
        })
        .end("unauthorized\n");
      return true;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain" }).end();
      return true;
    }
    try {
      const { contentType, body } = await opts.render();
      res.writeHead(200, { "content-type": contentType, "cache-control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : body);
    } catch (error) {
      opts.onError?.(error);
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end("metrics unavailable\n");
    }
    return true;
  };
}

export interface MetricsServer {
  server: Server;
  port: number;
  url: string;
  close(): Promise<void>;
}

/** A listener that answers `/metrics` (404 for anything else). Port 0 picks a free port. */
export async function listenMetrics(
  opts: MetricsHttpOptions & { port: number; host: string },
): Promise<MetricsServer> {
  const handle = metricsHttpHandler({ ...opts, open: true });
  const server = createServer((req, res) => {
    handle(req, res)
      .then((handled) => {
        if (!handled) res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      })
      .catch((error: unknown) => {
        opts.onError?.(error);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
  });
  // A scraper keeps its connection; nothing here is slow, so short time-outs are fine.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = opts.host === "0.0.0.0" || opts.host === "::" ? "127.0.0.1" : opts.host;
  return {
    server,
    port,
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
