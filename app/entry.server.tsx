import { PassThrough } from "node:stream";
import {
  createReadableStreamFromReadable,
  type EntryContext,
  type HandleErrorFunction,
} from "@remix-run/node";
import { isRouteErrorResponse, RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import type { ServerRuntime } from "../server/runtime";
import { config } from "./config.server";
import { refuseUnlessMigrated } from "./health.server";
import { setDraining } from "./draining.server";
import {
  startInProcessWorkerIfConfigured,
  startRowCachesIfConfigured,
} from "./worker/runtime.server";
import { withLogContext } from "./log-context.server";
import { logger } from "./logger.server";
import { handleMetricsHttp, observeRequest } from "./metrics.server";
import { addDocumentResponseHeaders } from "./shopify.server";
import { onShutdown } from "./shutdown.server";

// The server build evaluates this module once at start.
startRowCachesIfConfigured();
startInProcessWorkerIfConfigured();

/**
 * What the HTTP server (server/app-server.ts) uses of the app, taken from this build so that
 * the server and the app share one log context, one metrics registry and one shutdown list.
 */
export const serverRuntime: ServerRuntime = {
  config,
  logger,
  withLogContext,
  observeRequest,
  handleMetricsHttp,
  setDraining,
  onShutdown,
  refuseUnlessMigrated: (what) => refuseUnlessMigrated(what),
};

/** Errors of loaders and actions: one log line (never the URL: it may carry a credential). */
export const handleError: HandleErrorFunction = (error, { request }) => {
  if (request.signal.aborted) return;
  // The server already answered 413 for a body over its route's limit.
  if (error instanceof Error && error.name === "BodyTooLargeError") return;
  // "No route matches URL …" and the like: the client's mistake, and its text holds the URL.
  if (isRouteErrorResponse(error)) {
    if (error.status >= 500) logger.error({ status: error.status }, "route error response");
    return;
  }
  logger.error(
    { err: error instanceof Error ? (error.stack ?? error.message) : String(error) },
    "unhandled error in a loader or action",
  );
};

const ABORT_DELAY = 5000;

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
) {
  addDocumentResponseHeaders(request, responseHeaders);
  const callbackName = isbot(request.headers.get("user-agent") ?? "")
    ? "onAllReady"
    : "onShellReady";

  return new Promise<Response>((resolve, reject) => {
    const { pipe, abort } = renderToPipeableStream(
      <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} />,
      {
        [callbackName]: () => {
          const body = new PassThrough();
          const stream = createReadableStreamFromReadable(body);
          responseHeaders.set("Content-Type", "text/html");
          resolve(new Response(stream, { headers: responseHeaders, status: responseStatusCode }));
          pipe(body);
        },
        onShellError(error) {
          reject(error);
        },
        onError(error) {
          responseStatusCode = 500;
          logger.error({ err: (error as Error)?.stack ?? String(error) }, "render failed");
        },
      },
    );
    setTimeout(abort, ABORT_DELAY);
  });
}
