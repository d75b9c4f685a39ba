/**
 * Operator metrics in Prometheus's text format (prom-client), one registry per process.
 *
 * INTERFACE (fixed; the server and the instrumented modules call these):
 * - observeRequest: every HTTP request the server answered (route is a low-cardinality label
 *   such as "/webhooks/svc/:secret", never a real path with a secret in it);
 * - renderMetrics: the text a scrape gets;
 * - handleMetricsHttp: called first by the app's HTTP server for every request; answers
 *   `/metrics` (when and as configured) and returns true, else returns false.
 * And for processes without an HTTP server (workers): startMetricsServer (METRICS_PORT).
 *
 * What is measured: app/metrics/registry.server.ts (HTTP, jobs, service and Shopify calls,
 * the rate limiter; fed by the modules that do the work) and app/metrics/db-gauges.server.ts
 * (the queue and the orders, read from the database at scrape time).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { config } from "./config.server";
import { prisma } from "./db.server";
import { logger } from "./logger.server";
import { dbGauges } from "./metrics/db-gauges.server";
import { listenMetrics, type MetricsServer, metricsHttpHandler } from "./metrics/http.server";
import {
  httpDuration,
  httpRequests,
  methodLabel,
  registry,
  routeLabel,
  statusLabel,
  webhookAck,
} from "./metrics/registry.server";
import { onShutdown } from "./shutdown.server";

export { registry };
export type { MetricsServer };

export const databaseGauges = dbGauges(
  () => prisma,
  (error) =>
    logger.warn(
      { err: error instanceof Error ? error.message.slice(0, 300) : String(error) },
      "metrics: reading the queue and order gauges failed",
    ),
);

export interface RequestObservation {
  route: string;
  method: string;
  status: number;
  seconds: number;
}

export function observeRequest(obs: RequestObservation): void {
  const route = routeLabel(obs.route);
  const method = methodLabel(obs.method);
  httpRequests.inc({ route, method, status: statusLabel(obs.status) });
  httpDuration.observe({ route, method }, obs.seconds);
  if (route.startsWith("/webhooks/") && obs.status >= 200 && obs.status < 300) {
    webhookAck.observe({ route }, obs.seconds);
  }
}

export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}

const onRenderError = (error: unknown) =>
  logger.error(
    { err: error instanceof Error ? error.message.slice(0, 300) : String(error) },
    "metrics: rendering failed",
  );

const mainPortHandler = metricsHttpHandler({
  token: config.METRICS_TOKEN,
  render: renderMetrics,
  onError: onRenderError,
});

export async function handleMetricsHttp(
  req: IncomingMessage,
  res: ServerResponse,
): Promise<boolean> {
  return mainPortHandler(req, res);
}

let started: Promise<MetricsServer> | undefined;

/**
 * Starts the separate metrics listener on METRICS_PORT (once per process; 0 picks a free port,
 * which is logged). Returns undefined when METRICS_PORT is unset. Closed at shutdown.
 */
export function startMetricsServer(
  opts: { port?: number; host?: string } = {},
): Promise<MetricsServer> | undefined {
  const port = opts.port ?? config.METRICS_PORT;
  if (port === undefined) return undefined;
  started ??= listenMetrics({
    port,
    host: opts.host ?? config.METRICS_HOST,
    token: config.METRICS_TOKEN,
    render: renderMetrics,
    onError: onRenderError,
  }).then((server) => {
    logger.info({ metricsPort: server.port }, `metrics listening on port ${server.port}`);
    onShutdown("metrics", 30, () => server.close());
    return server;
  });
  return started;
}
