/**
 * Who sent a request and under which id: the request id (the caller's X-Request-Id when it is
 * sane, else a new one), the client's address and protocol (believing X-Forwarded-* only
 * through the configured number of proxies), and the one log line written per request.
 *
 * The log line carries method, route pattern, redacted path, status, duration, client address
 * and the request id (from the log context). Never headers: Authorization, Cookie,
 * X-Shopify-Hmac-Sha256 and the service's `sign` are credentials.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import type { ServerLogger } from "./runtime";

const SANE_REQUEST_ID = /^[A-Za-z0-9._:@-]{8,128}$/;

export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers["x-request-id"];
  return typeof given === "string" && SANE_REQUEST_ID.test(given) ? given : randomUUID();
}

function forwarded(req: IncomingMessage, name: string): string[] {
  const raw = req.headers[name];
  const joined = Array.isArray(raw) ? raw.join(",") : (raw ?? "");
  return joined
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/**
 * The client's address. With `hops` trusted proxies, the address the outermost of them saw:
 * walking back from the socket through X-Forwarded-For, one entry per trusted hop.
 */
export function clientAddress(req: IncomingMessage, hops: number): string {
  const own = req.socket.remoteAddress ?? "";
  if (hops <= 0) return own;
  const chain = [own, ...forwarded(req, "x-forwarded-for").reverse()];
  return chain[Math.min(hops, chain.length - 1)] ?? own;
}

/** "https" or "http": the socket's own, or the trusted proxy's X-Forwarded-Proto. */
export function clientProtocol(req: IncomingMessage, hops: number): "http" | "https" {
  const own = (req.socket as TLSSocket).encrypted ? "https" : "http";
  if (hops <= 0) return own;
  const list = forwarded(req, "x-forwarded-proto").map((s) => s.toLowerCase());
  const value = list[Math.max(0, list.length - hops)];
  return value === "https" || value === "http" ? value : own;
}

/** The Host header when it is a plain host[:port], else "localhost" (for the Request URL). */
export function hostOf(req: IncomingMessage): string {
  const host = req.headers.host ?? "";
  return /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(host) ? host : "localhost";
}

export interface RequestLine {
  method: string;
  route: string;
  path: string;
  status: number;
  ms: number;
  ip: string;
  /** The client went away before the answer was complete. */
  aborted?: boolean;
}

/** Health checks, metrics scrapes and static files at debug level; errors at error level. */
export function logRequest(logger: ServerLogger, line: RequestLine): void {
  const quiet = line.route === "static" || line.route === "/healthz" || line.route === "/readyz";
  const fields = { ...line, ms: Math.round(line.ms * 10) / 10 };
  if (line.status >= 500) logger.error(fields, "request failed");
  else if (quiet || line.route === "/metrics") logger.debug(fields, "request");
  else logger.info(fields, "request");
}
