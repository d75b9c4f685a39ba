/**
 * The app's HTTP server: node:http around Remix's request handler, with the edges a public
 * endpoint needs (used by `npm start` through server/main.ts, and by the sandbox).
 *
 * For every request, in order: a request id (in the log context and the X-Request-Id reply
 * header); `/metrics` (app/metrics.server.ts decides); the route's body limit checked against
 * the headers (413 at once, nothing read); files from public/; then Remix, given a body stream
 * that is cut at the limit. One log line per request with credentials redacted, one metrics
 * observation. Timeouts for headers, the whole request and idle keep-alive sockets. `close()`
 * drains: readiness turns "not ready", no new connections, in-flight requests are answered
 * (with Connection: close), idle sockets closed, and past a deadline everything is cut.
 */
import { createServer, STATUS_CODES, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { resolve } from "node:path";
import { createRequestHandler, type ServerBuild } from "@remix-run/node";
import {
  announcesBody,
  answerError,
  type BodyLimits,
  bodyLimitFor,
  bodyWithin,
  checkDeclaredBody,
  DEFAULT_BODY_LIMITS,
  lingerThenClose,
  limitedBody,
  refuse,
} from "./body-limit";
import { toFetchRequest, writeFetchResponse } from "./fetch-adapter";
import { clientAddress, clientProtocol, hostOf, logRequest, requestIdOf } from "./request-log";
import { routeMatcher } from "./routes";
import type { ServerRuntime } from "./runtime";
import { serveStatic } from "./static";

/** Paths Remix answers itself, outside the route table (lazy route discovery). */
const REMIX_INTERNAL = new Set(["/__manifest"]);

export interface AppServerOptions {
  runtime: ServerRuntime;
  /** Remix's mode: "development" shows error details in responses. Default: the build's. */
  mode?: string;
  /** Folder of static files (default ./public). */
  publicDir?: string;
  /** Number of trusted reverse proxies (0: none; X-Forwarded-* ignored and dropped). */
  trustProxy?: number;
  limits?: Partial<BodyLimits>;
  keepAliveTimeoutMs?: number;
  headersTimeoutMs?: number;
  /** The whole request, body included, must arrive within this (408 otherwise). */
  requestTimeoutMs?: number;
  /** How often node checks the two timeouts above (default 5 s). */
  timeoutCheckIntervalMs?: number;
  /**
   * Requests in progress at once (default: no limit); past it, 503 with Retry-After at once.
   * The probes (/healthz, /readyz) and /metrics are always answered.
   */
  maxInFlight?: number;
}

/** Answered whatever the load: a probe must tell how the process is, not how busy it is. */
const NEVER_SHED = new Set(["/healthz", "/readyz", "/metrics"]);

export interface AppServer {
  server: Server;
  /** Listens; resolves with the port (0 picks a free one). */
  listen(port: number, host?: string): Promise<number>;
  /** Drains and closes; past `deadlineMs` the remaining connections are cut. */
  close(deadlineMs?: number): Promise<void>;
}

export function createAppServer(build: ServerBuild, options: AppServerOptions): AppServer {
  const { runtime } = options;
  const log = runtime.logger;
  const handle = createRequestHandler(build, options.mode ?? build.mode);
  const match = routeMatcher(build);
  const publicDir = resolve(options.publicDir ?? "public");
  const hops = options.trustProxy ?? 0;
  const limits = { ...DEFAULT_BODY_LIMITS, ...options.limits };
  const maxInFlight = options.maxInFlight ?? Number.POSITIVE_INFINITY;
  let inFlight = 0;
  let closing: Promise<void> | undefined;

  const server = createServer({
    headersTimeout: options.headersTimeoutMs ?? 20_000,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    connectionsCheckingInterval: options.timeoutCheckIntervalMs ?? 5_000,
  });
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 65_000;

  server.on("request", (req, res) => {
    const started = performance.now();
    const requestId = requestIdOf(req);
    const method = req.method ?? "GET";
    const { route: matched, path } = match(req.url ?? "/");
    let route = matched;
    res.setHeader("X-Request-Id", requestId);
    if (closing) res.setHeader("Connection", "close");

    res.once("close", () => {
      const seconds = (performance.now() - started) / 1000;
      const status = res.headersSent ? res.statusCode : 499;
      runtime.withLogContext({ requestId }, () => {
        logRequest(log, {
          method,
          route,
          path,
          status,
          ms: seconds * 1000,
          ip: clientAddress(req, hops),
          ...(res.writableFinished ? {} : { aborted: true }),
        });
      });
      if (route !== "/metrics") runtime.observeRequest({ route, method, status, seconds });
      // Draining: a keep-alive socket that just became idle is closed now, not at its timeout.
      if (closing) setImmediate(() => server.closeIdleConnections());
    });

    const pathname = (req.url ?? "/").split("?")[0]!;
    if (!NEVER_SHED.has(pathname)) {
      if (inFlight >= maxInFlight) {
        // The socket stays open for the client's retry: node reads and drops the unread body.
        answerError(res, 503, "busy: try again shortly", { "Retry-After": "1" });
        return;
      }
      inFlight++;
      res.once("close", () => inFlight--);
    }

    runtime
      .withLogContext({ requestId }, async () => {
        if (await runtime.handleMetricsHttp(req, res)) {
          route = "/metrics";
          return;
        }
        const limit = bodyLimitFor(pathname, limits, req.headers["content-type"]);
        const refusal = checkDeclaredBody(req, limit);
        if (refusal) {
          refuse(req, res, refusal);
          return;
        }
        if (await serveStatic(req, res, publicDir)) {
          route = "static";
          return;
        }

        // No route has this path: a plain 404 here, rather than Remix's default error page,
        // which writes the full URL (and any credential in it) to stderr.
        if (route === "unmatched" && !REMIX_INTERNAL.has(pathname)) {
          if (announcesBody(req) && !(await bodyWithin(req, limit))) {
            refuse(req, res, { status: 413, message: "request body too large" });
            return;
          }
          res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" });
          res.end("Not found");
          return;
        }

        let tooLarge = false;
        const controller = new AbortController();
        res.once("close", () => controller.abort());
        const hasBody = method !== "GET" && method !== "HEAD" && announcesBody(req);
        const body = hasBody
          ? limitedBody(req, limit, () => {
              tooLarge = true;
              refuse(req, res, { status: 413, message: "request body too large" });
            })
          : null;
        const request = toFetchRequest(req, {
          url: `${clientProtocol(req, hops)}://${hostOf(req)}${req.url ?? "/"}`,
          body,
          signal: controller.signal,
          requestId,
          trustProxy: hops > 0,
        });
        const response = await handle(request);
        if (tooLarge || res.headersSent || res.destroyed) {
          await response.body?.cancel().catch(() => {});
          return;
        }
        // A body the route did not read to the end: answer, then close rather than reuse.
        const unread = hasBody && !req.complete;
        if (unread) lingerThenClose(req);
        const close = unread || closing !== undefined;
        await writeFetchResponse(req, res, response, close ? { Connection: "close" } : {});
      })
      .catch((error: unknown) => {
        runtime.withLogContext({ requestId }, () =>
          log.error({ err: errorText(error), route }, "request handler failed"),
        );
        if (!res.headersSent && !res.destroyed) {
          res.writeHead(500, { "Content-Type": "text/plain", Connection: "close" });
          res.end("Internal error");
        } else res.destroy();
      });
  });

  // Malformed requests and timeouts before a request exists: a short answer, then close.
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    const pending = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === "ECONNRESET" || !socket.writable || pending?.headersSent) {
      socket.destroy();
      return;
    }
    const status =
      error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? 408
        : error.code === "HPE_HEADER_OVERFLOW"
          ? 431
          : 400;
    log.debug({ code: error.code, status }, "client error");
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
    );
  });

  return {
    server,
    async listen(port, host) {
      await new Promise<void>((ok, fail) => {
        server.once("error", fail);
        server.listen(port, host, () => {
          server.off("error", fail);
          ok();
        });
      });
      return (server.address() as AddressInfo).port;
    },
    close(deadlineMs = 10_000) {
      closing ??= new Promise<void>((done) => {
        runtime.setDraining(true);
        if (!server.listening) return done();
        const timer = setTimeout(() => {
          log.warn({ deadlineMs }, "shutdown deadline: cutting the remaining connections");
          server.closeAllConnections();
        }, deadlineMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          done();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
