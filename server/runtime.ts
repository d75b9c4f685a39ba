/**
 * What the HTTP server needs from the app: its logger, log context, metrics, draining flag and
 * shutdown steps. The server takes them from the Remix build (app/entry.server.tsx exports them
 * as `serverRuntime`) rather than importing app modules itself: the build holds its own copy of
 * every app module, and a second copy bundled into the server would keep a second log context,
 * metrics registry and shutdown list that the app never sees.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServerBuild } from "@remix-run/node";

type LogFn = (fields: Record<string, unknown>, message: string) => void;

export interface ServerLogger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
}

export interface ServerConfig {
  NODE_ENV: string;
  PORT: number;
  HOST?: string;
  TRUST_PROXY: number;
  HTTP_KEEP_ALIVE_TIMEOUT_MS: number;
  HTTP_HEADERS_TIMEOUT_MS: number;
  HTTP_MAX_IN_FLIGHT: number;
  HTTP_REQUEST_TIMEOUT_MS: number;
  SHOPIFY_WEBHOOK_MAX_BYTES: number;
  SHUTDOWN_TIMEOUT_MS: number;
}

export interface ServerRuntime {
  config: ServerConfig;
  logger: ServerLogger;
  /** Runs `fn` with the request id in the log context (every log line of the request has it). */
  withLogContext<T>(fields: { requestId: string }, fn: () => T): T;
  observeRequest(obs: { route: string; method: string; status: number; seconds: number }): void;
  /** Answers `/metrics` when configured to; false for every other request. */
  handleMetricsHttp(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  setDraining(value?: boolean): void;
  /**
   * Exits with one line when the database lacks a migration (run before listening), instead of
   * failing later on a missing table.
   */
  refuseUnlessMigrated(what: string): Promise<void>;
  /** Registers a shutdown step (lower order first: http 5, worker 10, database 90). */
  onShutdown(name: string, order: number, run: () => Promise<void>): void;
}

/** The runtime a Remix build of this app exports; a clear error for any other build. */
export function serverRuntimeOf(build: ServerBuild): ServerRuntime {
  const runtime = (build.entry.module as { serverRuntime?: ServerRuntime }).serverRuntime;
  if (!runtime) {
    throw new Error("This build's entry.server does not export serverRuntime: rebuild the app");
  }
  return runtime;
}
