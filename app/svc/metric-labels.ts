/**
 * The service's calls as metric labels (app/metrics/registry.server.ts counts them): the
 * contract's envelope codes by name, any other code as "other" so that a misbehaving service
 * cannot grow the series without bound.
 */
import { ERROR_CLASSES } from "./errors";

/** Envelope codes of the contract (and 0/200 success); any other code is "other". */
export function svcCodeLabel(code: number): string {
  return code === 0 || code === 200 || ERROR_CLASSES.has(code) ? String(code) : "other";
}

/** The result label of a failed call (an SvcError's class and code). */
export function svcErrorResult(error: {
  name: string;
  code?: number;
  httpStatus?: number;
}): string {
  if (error.name === "SvcTimeoutError") return "timeout";
  if (error.name === "SvcNetworkError") return "network";
  if (error.code !== undefined) return svcCodeLabel(error.code);
  if (error.httpStatus !== undefined && error.httpStatus >= 500) return "http_5xx";
  return "http_error";
}
