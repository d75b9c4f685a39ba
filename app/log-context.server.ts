/**
 * What every log line of a piece of work carries: the request id of a web request, the job of
 * a worker, and the shop and order where there is one. Kept in an AsyncLocalStorage, so code
 * deep inside a use case logs with its context without passing it around; the logger reads it
 * on every line (app/logger.server.ts).
 */
import { AsyncLocalStorage } from "node:async_hooks";

export interface LogContext {
  requestId?: string;
  jobId?: string;
  jobKind?: string;
  shop?: string;
  orderId?: string;
}

const storage = new AsyncLocalStorage<LogContext>();

/** Runs `fn` with these fields added to the current context (inner values win). */
export function withLogContext<T>(fields: LogContext, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...fields }, fn);
}

/**
 * Adds fields to the context of the work already running (a request learns its shop after
 * authentication). A no-op outside any context.
 */
export function addLogContext(fields: LogContext): void {
  const store = storage.getStore();
  if (store) Object.assign(store, fields);
}

/** The current context's fields, without undefined ones (for the logger's mixin). */
export function currentLogContext(): LogContext {
  const store = storage.getStore();
  if (!store) return {};
  const out: LogContext = {};
  for (const [k, v] of Object.entries(store)) if (v !== undefined) out[k as keyof LogContext] = v;
  return out;
}
