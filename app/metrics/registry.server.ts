/**
 * The process's metric registry and the counters and histograms the instrumented modules feed
 * (HTTP, jobs, service calls, the rate limiter, Shopify Admin calls). Importing it has no side
 * effect beyond prom-client's own objects: no database, no configuration, so the transport, the
 * limiter and the worker can import it without import cycles.
 *
 * Labels are low-cardinality by construction: operation names, job kinds and routes come from
 * the code, and every label fed from outside (an envelope code, a job kind read from the
 * database, a route) is mapped into a bounded set ("other" for the rest). No label ever carries
 * a shop domain, an order id or anything from a URL: shops grow with installs, and their
 * per-shop state is in the app's database and pages; the logs carry the shop of every line.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

const registers = [registry];

// ---------------------------------------------------------------------------------------------
// Bounded label values

/** Job kinds this process knows (its handlers); others are reported as "other". */
const knownJobKinds = new Set<string>();

export function registerJobKinds(kinds: Iterable<string>): void {
  for (const k of kinds) knownJobKinds.add(k);
}

export function jobKindLabel(kind: string): string {
  return knownJobKinds.has(kind) ? kind : "other";
}

export function knownJobKindList(): string[] {
  return [...knownJobKinds];
}

const MAX_ROUTES = 100;
const seenRoutes = new Set<string>();

/** The route as given (a template such as "/webhooks/svc/:secret"), up to 100 distinct ones. */
export function routeLabel(route: string): string {
  if (seenRoutes.has(route)) return route;
  if (seenRoutes.size >= MAX_ROUTES || route.length > 120) return "other";
  seenRoutes.add(route);
  return route;
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export function methodLabel(method: string): string {
  const m = method.toUpperCase();
  return METHODS.has(m) ? m : "other";
}

export function statusLabel(status: number): string {
  return Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : "other";
}

// ---------------------------------------------------------------------------------------------
// HTTP

export const httpRequests = new Counter({
  name: "dropship_http_requests_total",
  help: "HTTP requests answered by this process, by route template, method and status.",
  labelNames: ["route", "method", "status"] as const,
  registers,
});

export const httpDuration = new Histogram({
  name: "dropship_http_request_duration_seconds",
  help: "Time from a request's arrival to its response, by route template and method.",
  labelNames: ["route", "method"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers,
});

export const webhookAck = new Histogram({
  name: "dropship_webhook_ack_duration_seconds",
  help:
    "Time to acknowledge a webhook (2xx answers of the /webhooks routes only; refused " +
    "requests count in dropship_http_requests_total by status). Fine buckets around 25 ms.",
  labelNames: ["route"] as const,
  buckets: [
    0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.075, 0.1, 0.25, 0.5,
    1, 2.5,
  ],
  registers,
});

// ---------------------------------------------------------------------------------------------
// Jobs (this process's worker)

export type JobOutcome =
  | "completed"
  /** Failed; runs again after a backoff. */
  | "retried"
  /** Failed for good (last attempt, or a permanent error). */
  | "dead"
  /** The handler asked to run later (RetryLater, a wait): not a failure. */
  | "rescheduled"
  /** Another worker took the job over (this one lost its lease). */
  | "lease_lost"
  /** The failure could not be recorded. */
  | "unknown";

export const jobRuns = new Counter({
  name: "dropship_jobs_total",
  help:
    "Job runs finished by this process's worker, by kind and outcome (completed, retried = " +
    "failed and will run again, dead = failed for good, rescheduled = asked to wait, lease_lost).",
  labelNames: ["kind", "outcome"] as const,
  registers,
});

export const jobFailures = new Counter({
  name: "dropship_job_failures_total",
  help: "Failed job runs of this process's worker (retried and dead together), by kind.",
  labelNames: ["kind"] as const,
  registers,
});

export const jobDuration = new Histogram({
  name: "dropship_job_duration_seconds",
  help: "Run time of a job's handler and its outcome's recording, by kind and outcome.",
  labelNames: ["kind", "outcome"] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers,
});

export const jobStartDelay = new Histogram({
  name: "dropship_job_start_delay_seconds",
  help: "Time from a job being due (runAt) to a worker of this process starting it, by kind.",
  labelNames: ["kind"] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800],
  registers,
});

/** Times one job run; `done` records its outcome. */
export function startJobTimer(job: { kind: string; runAt: Date }) {
  const kind = jobKindLabel(job.kind);
  jobStartDelay.observe({ kind }, Math.max(0, Date.now() - job.runAt.getTime()) / 1000);
  const end = jobDuration.startTimer({ kind });
  return {
    done(outcome: JobOutcome): void {
      end({ outcome });
      jobRuns.inc({ kind, outcome });
      if (outcome === "retried" || outcome === "dead") jobFailures.inc({ kind });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The fulfilment service

export const svcCalls = new Counter({
  name: "dropship_svc_calls_total",
  help:
    "HTTP calls (each attempt) to the fulfilment service, by operation and result: the " +
    "envelope code (200 or 0 = success, 1600200 = rate-limit refusal, …; unknown codes = " +
    "other), http_5xx, http_error (no envelope), timeout or network.",
  labelNames: ["operation", "result"] as const,
  registers,
});

export const svcCallDuration = new Histogram({
  name: "dropship_svc_call_duration_seconds",
  help: "Duration of one call (attempt) to the fulfilment service, by operation.",
  labelNames: ["operation"] as const,
  buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers,
});

export const limiterWait = new Histogram({
  name: "dropship_svc_limiter_wait_seconds",
  help:
    "Time a call waited for a slot of the account's shared rate limiter before leaving, by " +
    'bucket ("query", "default", or "op:<operation>" when counted per operation).',
  labelNames: ["bucket"] as const,
  buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
  registers,
});

export const rateLimited = new Counter({
  name: "dropship_svc_rate_limited_total",
  help: "1600200 (too many requests) replies from the fulfilment service, by limiter bucket.",
  labelNames: ["bucket"] as const,
  registers,
});

export function recordSvcCall(operation: string, result: string, seconds: number): void {
  svcCalls.inc({ operation, result });
  svcCallDuration.observe({ operation }, seconds);
}

// ---------------------------------------------------------------------------------------------
// Shopify Admin API

export const shopifyCalls = new Counter({
  name: "dropship_shopify_admin_calls_total",
  help:
    "Shopify Admin GraphQL calls (each attempt), by operation and outcome (ok, THROTTLED, " +
    "AUTH, UNAVAILABLE, GRAPHQL, NOT_FOUND, NO_SESSION, BAD_RESPONSE, redirect).",
  labelNames: ["operation", "outcome"] as const,
  registers,
});

export const shopifyCallDuration = new Histogram({
  name: "dropship_shopify_admin_call_duration_seconds",
  help: "Duration of one Shopify Admin GraphQL call (attempt), by operation.",
  labelNames: ["operation"] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers,
});

const SHOP_OUTCOMES = new Set([
  "ok",
  "redirect",
  "AUTH",
  "NO_SESSION",
  "THROTTLED",
  "UNAVAILABLE",
  "GRAPHQL",
  "USER_ERRORS",
  "NOT_FOUND",
  "FULFILLMENT_PLAN",
  "FULFILLMENT_NOT_READY",
  "BAD_RESPONSE",
]);

export function recordShopifyCall(operation: string, outcome: string, seconds: number): void {
  // Operation names come from the app's own GraphQL documents: bounded.
  const label = SHOP_OUTCOMES.has(outcome) ? outcome : "other";
  shopifyCalls.inc({ operation, outcome: label });
  shopifyCallDuration.observe({ operation }, seconds);
}
