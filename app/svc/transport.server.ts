/**
 * The one transport every resource of the client shares (stripe-node style).
 *
 * - undici keep-alive `Pool` per base URL (or an injected dispatcher), a connect timeout and a
 *   total timeout on every call;
 * - adds `Svc-Access-Token` (from the token provider) and, on order creation, `platformToken`;
 * - takes a slot from the account's shared rate limiter before every attempt;
 * - unwraps the envelope (`code` 200, or 0 for videos), maps every other code to a typed error;
 * - retries with capped, jittered backoff only where it is safe: queries on network errors,
 *   5xx, 1600000 and 1600200; a non-idempotent operation only when the request provably never
 *   left (connection refused), never after an unknown outcome;
 * - a rejected token (1600001) is handed back to the token provider and the call re-tried once;
 * - never logs a token, a key or a body; error messages are redacted of every known secret.
 */
import { Pool, type Dispatcher } from "undici";
import type { z } from "zod";
import type { Logger } from "pino";
import {
  errorForCode,
  redactSecrets,
  SvcAuthError,
  SvcError,
  SvcNetworkError,
  SvcRateLimitError,
  SvcResponseError,
  SvcServerError,
  SvcTimeoutError,
} from "./errors";
import { parseJsonLossless } from "./json";
import { recordSvcCall } from "../metrics/registry.server";
import { svcCodeLabel, svcErrorResult } from "./metric-labels";

export type Bucket = "default" | "query";

export interface OperationDef {
  /** The contract's operation name, as used in errors and logs. */
  name: string;
  method: "GET" | "POST" | "DELETE";
  /** Path after `/api2.0/v1`. */
  path: string;
  auth: "token" | "none";
  bucket: Bucket;
  /** "safe": retried on transient failures; "never": not idempotent, never blindly retried. */
  retry: "safe" | "never";
  /** Sends the `platformToken` header (order creation). */
  platformToken?: boolean;
  /** Envelope codes meaning success (default [200]). */
  successCodes?: readonly number[];
  /**
   * Waits at least this long for the reply, whatever the client's time-out: for a write whose
   * lost reply cannot be recovered from any query (addCartConfirm's shipmentsId).
   */
  minTimeoutMs?: number;
  /** Codes meaning "this access token is not valid" (default [1600001]). */
  tokenRejectedCodes?: readonly number[];
}

export interface TokenProvider {
  getToken(): Promise<string>;
  /** The server rejected this token (1600001): forget it so the next getToken obtains another. */
  onTokenRejected(token: string): Promise<void>;
  /** Secrets the transport must redact (api key, refresh token…), for error messages. */
  secrets?(): string[];
}

export interface Limiter {
  /** Waits for a slot for this operation's call (`bucket` is the operation's kind of limit). */
  acquire(bucket: Bucket, operation: string): Promise<void>;
  onRateLimited(bucket: Bucket, operation: string): Promise<void>;
}

export interface RetryOptions {
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export interface TransportOptions {
  baseUrl: string;
  tokens?: TokenProvider;
  limiter?: Limiter;
  /** An undici dispatcher (Agent, Pool, MockAgent); default: a keep-alive Pool per base URL. */
  dispatcher?: Dispatcher;
  connectTimeoutMs?: number;
  /** Total time for one attempt, connect to last byte. */
  timeoutMs?: number;
  retry?: RetryOptions;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  logger?: Pick<Logger, "debug" | "info" | "warn">;
  /** The `platformToken` header for order creation, when configured. */
  platformToken?: string | (() => string | undefined | Promise<string | undefined>);
}

export interface CallInput {
  query?: Record<string, unknown>;
  body?: unknown;
  signal?: AbortSignal;
  /** Extra values to redact from errors (e.g. an api key sent in the body). */
  secrets?: Array<string | undefined>;
  /** Skip the token provider and send this token (used by the token manager itself). */
  token?: string;
}

export interface Envelope {
  code: number;
  message?: string;
  requestId?: string;
  data: unknown;
}

const pools = new Map<string, Pool>();

function poolFor(origin: string, connectTimeoutMs: number): Pool {
  const key = `${origin}|${connectTimeoutMs}`;
  let pool = pools.get(key);
  if (!pool) {
    pool = new Pool(origin, {
      connections: 16,
      pipelining: 1,
      keepAliveTimeout: 10_000,
      keepAliveMaxTimeout: 60_000,
      connect: { timeout: connectTimeoutMs },
    });
    pools.set(key, pool);
  }
  return pool;
}

/** Closes the shared pools (tests, shutdown). */
export async function closeSvcPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.close().catch(() => undefined)));
}

/** Failures before the request left (a connect time-out has its own error, below). */
const NOT_SENT_CODES = new Set<string | undefined>([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

const SECRET_BODY_KEYS = ["apiKey", "refreshToken", "accessToken", "code", "platformToken"];

export function encodeQuery(query: Record<string, unknown> | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) params.append(k, String(item));
    else params.append(k, String(v));
  }
  const s = params.toString();
  return s ? `?${s}` : "";
}

export class Transport {
  readonly baseUrl: string;
  private readonly origin: string;
  private readonly prefix: string;
  private readonly connectTimeoutMs: number;
  private readonly timeoutMs: number;
  private readonly retry: Required<RetryOptions>;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(readonly options: TransportOptions) {
    const url = new URL(options.baseUrl);
    this.baseUrl = options.baseUrl;
    this.origin = url.origin;
    this.prefix = `${url.pathname.replace(/\/+$/, "")}/api2.0/v1`;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retry = {
      maxAttempts: options.retry?.maxAttempts ?? 4,
      baseDelayMs: options.retry?.baseDelayMs ?? 200,
      maxDelayMs: options.retry?.maxDelayMs ?? 5_000,
    };
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.random = options.random ?? Math.random;
  }

  /** A copy of this transport with other options (same pool). */
  with(overrides: Partial<TransportOptions>): Transport {
    return new Transport({ ...this.options, ...overrides });
  }

  /** Calls an operation and parses its `data` with the schema. */
  async call<S extends z.ZodType>(
    op: OperationDef,
    input: CallInput,
    schema: S,
  ): Promise<z.output<S>> {
    const env = await this.request(op, input);
    const parsed = schema.safeParse(env.data);
    if (!parsed.success) {
      // Stryker disable StringLiteral: message (the separator of the listed problems)
      const where = parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.join(".") || "data"}: ${i.code}`)
        .join("; ");
      // Stryker restore StringLiteral
      throw new SvcResponseError({
        operation: op.name,
        message: `unexpected response shape (${where})`,
        requestId: env.requestId,
        code: env.code,
      });
    }
    return parsed.data;
  }

  /** Calls an operation with retries; resolves with the success envelope. */
  async request(op: OperationDef, input: CallInput): Promise<Envelope> {
    let attempt = 0;
    let tokenRetried = false;
    for (;;) {
      attempt++;
      // The token first: obtaining it may take a while, and a rate-limit slot must be used at once.
      let token: string | undefined;
      if (op.auth === "token") {
        token = input.token ?? (await this.requireTokens(op).getToken());
      }
      if (this.options.limiter) await this.options.limiter.acquire(op.bucket, op.name);
      const started = Date.now();
      try {
        const env = await this.once(op, input, token);
        recordSvcCall(op.name, svcCodeLabel(env.code), (Date.now() - started) / 1000);
        this.options.logger?.debug(
          {
            svcOp: op.name,
            attempt,
            ms: Date.now() - started,
            code: env.code,
            requestId: env.requestId,
          },
          // Stryker disable next-line StringLiteral: message
          "svc call",
        );
        return env;
      } catch (error) {
        const seconds = (Date.now() - started) / 1000;
        if (!(error instanceof SvcError)) {
          recordSvcCall(op.name, "error", seconds);
          throw error;
        }
        recordSvcCall(op.name, svcErrorResult(error), seconds);
        const log = {
          svcOp: op.name,
          attempt,
          ms: Date.now() - started,
          code: error.code,
          httpStatus: error.httpStatus,
          requestId: error.requestId,
          error: error.name,
          outcomeUnknown: error.outcomeUnknown,
        };
        if (error instanceof SvcRateLimitError && this.options.limiter) {
          await this.options.limiter.onRateLimited(op.bucket, op.name);
        }
        const tokenRejectedCodes: readonly (number | undefined)[] = op.tokenRejectedCodes ?? [
          1600001,
        ];
        if (
          tokenRejectedCodes.includes(error.code) &&
          token !== undefined &&
          input.token === undefined &&
          !tokenRetried &&
          this.options.tokens
        ) {
          tokenRetried = true;
          attempt--;
          await this.options.tokens.onTokenRejected(token);
          // Stryker disable next-line StringLiteral: message
          this.options.logger?.info(log, "svc token rejected, obtaining another");
          continue;
        }
        // The caller gave up (its signal aborted): every further attempt would be aborted too.
        if (
          attempt < this.retry.maxAttempts &&
          !input.signal?.aborted &&
          this.mayRetry(op, error)
        ) {
          const delay = this.backoff(attempt);
          // Stryker disable next-line StringLiteral: message
          this.options.logger?.warn({ ...log, retryInMs: delay }, "svc call failed, retrying");
          await this.sleep(delay);
          continue;
        }
        // Stryker disable next-line StringLiteral: message
        this.options.logger?.warn(log, "svc call failed");
        throw error;
      }
    }
  }

  private requireTokens(op: OperationDef): TokenProvider {
    if (!this.options.tokens) {
      throw new SvcAuthError({
        operation: op.name,
        // Stryker disable next-line StringLiteral: message
        message: "no access token provider configured",
      });
    }
    return this.options.tokens;
  }

  mayRetry(op: OperationDef, error: SvcError): boolean {
    if (op.retry === "safe") return error.retryable;
    // Not idempotent: only when the request provably never ran: it never reached the server,
    // or the service refused it as too many requests (1600200 is its limiter's answer, given
    // before the call runs; the retry waits for the bucket's pause).
    if (error instanceof SvcRateLimitError) return true;
    return error instanceof SvcNetworkError && !error.outcomeUnknown;
  }

  /** Capped exponential backoff with full jitter (at least a quarter of the step). */
  backoff(attempt: number): number {
    const cap = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(cap / 4 + (this.random() * (cap * 3)) / 4);
  }

  private async secretsFor(input: CallInput, token: string | undefined, platformToken?: string) {
    const secrets: Array<string | undefined> = [token, platformToken, ...(input.secrets ?? [])];
    if (input.body && typeof input.body === "object") {
      for (const k of SECRET_BODY_KEYS) {
        const v = (input.body as Record<string, unknown>)[k];
        if (typeof v === "string") secrets.push(v);
      }
    }
    secrets.push(...(this.options.tokens?.secrets?.() ?? []));
    return secrets;
  }

  private async platformToken(): Promise<string | undefined> {
    const p = this.options.platformToken;
    return typeof p === "function" ? await p() : p;
  }

  private async once(
    op: OperationDef,
    input: CallInput,
    token: string | undefined,
  ): Promise<Envelope> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (token !== undefined) headers["Svc-Access-Token"] = token;
    let platformToken: string | undefined;
    if (op.platformToken) {
      platformToken = await this.platformToken();
      if (platformToken !== undefined) headers["platformToken"] = platformToken;
    }
    let body: string | undefined;
    if (op.method !== "GET" && input.body !== undefined) {
      body = JSON.stringify(input.body);
      headers["content-type"] = "application/json";
    }
    const secrets = await this.secretsFor(input, token, platformToken);
    const timeoutMs = Math.max(this.timeoutMs, op.minTimeoutMs ?? 0);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = input.signal ? AbortSignal.any([input.signal, timeout]) : timeout;
    const dispatcher = this.options.dispatcher ?? poolFor(this.origin, this.connectTimeoutMs);
    let status: number;
    let text: string;
    try {
      const res = await dispatcher.request({
        origin: this.origin,
        path: `${this.prefix}${op.path}${encodeQuery(input.query)}`,
        method: op.method,
        headers,
        body,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (error) {
      throw this.networkError(op, error, timeout, secrets, timeoutMs);
    }
    let parsed: unknown;
    try {
      parsed = parseJsonLossless(text);
    } catch {
      // Not JSON (an empty body included): no envelope.
    }
    const env = readEnvelope(parsed);
    if (!env) {
      if (status >= 500) {
        throw new SvcServerError({
          operation: op.name,
          // Stryker disable next-line StringLiteral: message
          message: `HTTP ${status}`,
          httpStatus: status,
          outcomeUnknown: true,
        });
      }
      throw new SvcResponseError({
        operation: op.name,
        // Stryker disable next-line StringLiteral: message
        message: `HTTP ${status} without a service envelope`,
        httpStatus: status,
      });
    }
    const ok = (op.successCodes ?? [200]).includes(env.code);
    if (ok && status < 400) return env;
    if (ok && status >= 500) {
      throw new SvcServerError({
        operation: op.name,
        // Stryker disable next-line StringLiteral: message
        message: `HTTP ${status}`,
        httpStatus: status,
        outcomeUnknown: true,
      });
    }
    throw errorForCode({
      code: env.code,
      // Stryker disable next-line StringLiteral: message
      message: redactSecrets(env.message ?? "error", secrets).slice(0, 300),
      requestId: env.requestId,
      operation: op.name,
      httpStatus: status,
      // A busy reply to a write: the service may or may not have acted.
      outcomeUnknown: op.retry === "never" && env.code === 1600000,
    });
  }

  private networkError(
    op: OperationDef,
    error: unknown,
    timeout: AbortSignal,
    secrets: Array<string | undefined>,
    timeoutMs: number,
  ) {
    const e = error as { code?: string; name?: string; message?: string };
    const detail = redactSecrets(
      `${e.code ?? e.name ?? "error"}: ${e.message ?? ""}`,
      secrets,
    ).slice(0, 200);
    if (
      timeout.aborted ||
      e.name === "TimeoutError" ||
      e.code === "UND_ERR_HEADERS_TIMEOUT" ||
      e.code === "UND_ERR_BODY_TIMEOUT"
    ) {
      return new SvcTimeoutError({
        operation: op.name,
        // Stryker disable next-line StringLiteral: message
        message: `no answer within ${timeoutMs} ms`,
        outcomeUnknown: true,
      });
    }
    const notSent = NOT_SENT_CODES.has(e.code);
    if (e.code === "UND_ERR_CONNECT_TIMEOUT") {
      return new SvcTimeoutError({
        operation: op.name,
        // Stryker disable next-line StringLiteral: message
        message: `connect timeout (${detail})`,
        outcomeUnknown: false,
      });
    }
    return new SvcNetworkError({
      operation: op.name,
      // Stryker disable next-line StringLiteral: message
      message: `network failure (${detail})`,
      outcomeUnknown: !notSent,
    });
  }
}

/** Reads the envelope tolerantly: `code` as number or numeric text; `data` may be absent. */
export function readEnvelope(body: unknown): Envelope | undefined {
  // Any other value (text, a number, an array) has no `code`: no envelope either.
  if (!body) return undefined;
  const b = body as Record<string, unknown>;
  const code =
    typeof b.code === "number"
      ? b.code
      : typeof b.code === "string" && /^\d+$/.test(b.code)
        ? Number(b.code)
        : undefined;
  if (code === undefined) return undefined;
  return {
    code,
    message: b.message == null ? undefined : String(b.message),
    requestId: b.requestId == null ? undefined : String(b.requestId),
    data: b.data,
  };
}
