/**
 * Operator metrics in Prometheus's text format (prom-client), one registry per process.
 *
 * INTERFACE (fixed; the server and the instrumented modules call these):
 * - observeRequest: every HTTP request the server answered (route is a low-cardinality label
 *   such as "/webhooks/svc/:secret", never a real path with a secret in it);
 * - renderMetrics: the text a scrape gets;
 * - handleMetricsHttp: called first by the app's HTTP server for every request; answers
 *   `/metrics` (when and as configured) and returns true, else returns false.
 * The metric definitions and collectors are filled in by the metrics work (issue 13).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Registry, collectDefaultMetrics } from "prom-client";

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export interface RequestObservation {
  route: string;
  method: string;
  status: number;
  seconds: number;
}

export function observeRequest(_obs: RequestObservation): void {}

export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}

export async function handleMetricsHttp(
  _req: IncomingMessage,
  _res: ServerResponse,
): Promise<boolean> {
  return false;
}
