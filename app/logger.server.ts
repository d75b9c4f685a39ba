/**
 * The app's logger (pino, JSON lines). Secrets never belong in a log line: the redaction list
 * below is a second line of defence for fields that might carry one by mistake.
 */
import pino from "pino";
import { config } from "./config.server";
import { currentLogContext } from "./log-context.server";

export const REDACTED_KEYS = [
  "accessToken",
  "refreshToken",
  "apiKey",
  "apiSecret",
  "password",
  "token",
  "authorization",
  "Svc-Access-Token",
  "X-Shopify-Access-Token",
  "platformToken",
];

export const logger = pino({
  level: config.NODE_ENV === "test" && config.LOG_LEVEL === "info" ? "warn" : config.LOG_LEVEL,
  base: undefined,
  // The request id, job, shop and order of the work this line belongs to.
  mixin: () => currentLogContext(),
  redact: {
    paths: REDACTED_KEYS.flatMap((k) => [`"${k}"`, `*."${k}"`, `*.*."${k}"`]),
    censor: "[redacted]",
  },
});
