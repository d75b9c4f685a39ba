/**
 * The HTTP front: reads the request, applies latency and injected faults, authenticates,
 * rate-limits, runs the operation, wraps the result in the envelope and logs the call.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { authenticate } from "./auth";
import type { Ctx, Route, SimRuntime } from "./context";
import { Codes, SvcFault, errorEnvelope, okEnvelope, type Envelope } from "./envelope";
import type { Faults } from "./faults";
import { formatMoney } from "./money";
import { findRoute } from "./routes";
import type { Account, CallRecord } from "./state";
import { queryToJson, type Json } from "./validate";

export const MAX_BODY_BYTES = 1_000_000;

export interface FrontOptions {
  rt: SimRuntime;
  faults: Faults;
  latencyMs: () => number;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new SvcFault(Codes.PARAM_ERROR, "request body too large", 413);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed || res.writableEnded) return;
  const text = JSON.stringify(body, (_k, v: unknown) =>
    typeof v === "bigint" ? formatMoney(v) : v,
  );
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

function headerToken(req: IncomingMessage): string | undefined {
  const v = req.headers["svc-access-token"];
  return Array.isArray(v) ? v[0] : v;
}

export async function handleApi(
  front: FrontOptions,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const { rt, faults } = front;
  const { state } = rt;
  const method = req.method ?? "GET";
  const route = findRoute(method, url.pathname);
  if (route === undefined || route === "method") {
    const status = route === "method" ? 405 : 404;
    sendJson(res, status, {
      ...errorEnvelope(status, route === "method" ? "method not allowed" : "not found"),
      code: status,
    });
    return;
  }

  const record: CallRecord = {
    op: route.op,
    method,
    path: url.pathname,
    at: state.clock.now(),
    httpStatus: 200,
  };
  state.calls.push(record);
  const reply = (status: number, env: Envelope) => {
    record.httpStatus = status;
    record.code = env.code;
    record.response = env;
    sendJson(res, status, env);
  };

  let body: Json = {};
  try {
    const raw = await readBody(req);
    if (method === "POST") {
      if (raw.trim() !== "") {
        try {
          const parsed: unknown = JSON.parse(raw);
          if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
            throw new SvcFault(Codes.PARAM_ERROR, "request body must be a JSON object");
          }
          body = parsed as Json;
        } catch (e) {
          throw e instanceof SvcFault
            ? e
            : new SvcFault(Codes.PARAM_ERROR, "request body is not valid JSON");
        }
      }
    } else body = queryToJson(url.searchParams);
  } catch (e) {
    const f = e instanceof SvcFault ? e : new SvcFault(Codes.PARAM_ERROR, "bad request");
    reply(f.httpStatus, errorEnvelope(f.code, f.message, route.style));
    return;
  }
  record.body = body;
  const token = headerToken(req);
  const peek = authenticate(state, token);
  if (typeof peek !== "string") record.accountId = peek.accountId;

  const latency = front.latencyMs();
  if (latency > 0) await sleep(latency);

  const fault = faults.pickApiFault(route.op);
  if (fault) record.fault = fault;
  if (fault === "5xx") {
    record.httpStatus = 503;
    record.response = "Service Unavailable";
    if (!res.destroyed) {
      res.writeHead(503, { "content-type": "text/html" });
      res.end("<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>");
    }
    return;
  }
  if (fault === "busy")
    return reply(
      200,
      errorEnvelope(Codes.SYSTEM_BUSY, "system busy, please try again later", route.style),
    );
  if (fault === "limited")
    return reply(200, errorEnvelope(Codes.TOO_MANY_REQUESTS, "too many requests", route.style));

  const { status, env } = await runOperation(rt, route, body, req, token, record);

  if (fault === "timeout") {
    // The operation has run; the reply is held past the client's patience.
    await sleep(faults.timeoutMs);
    if (faults.timeoutDrop || res.destroyed || req.socket.destroyed) {
      record.httpStatus = 0;
      record.code = undefined;
      req.socket.destroy();
      return;
    }
  }
  reply(status, env);
}

async function runOperation(
  rt: SimRuntime,
  route: Route,
  body: Json,
  req: IncomingMessage,
  token: string | undefined,
  record: CallRecord,
): Promise<{ status: number; env: Envelope }> {
  const { state } = rt;
  try {
    let account: Account | undefined;
    if (route.auth === "token") {
      const result = authenticate(state, token);
      if (typeof result === "string") {
        const code = token ? (route.authErrorCode ?? Codes.AUTH_FAILED) : Codes.AUTH_FAILED;
        throw new SvcFault(code, `authentication failed: ${result}`);
      }
      account = result;
    }
    const limitFor = (a: Account) => {
      if (!rt.options.enforceRateLimits) return;
      const perSecond = route.limit === "query" ? a.queryCallsPerSecond : a.callsPerSecond;
      if (!rt.limiter.tryAcquire(a.accountId, route.op, perSecond)) {
        throw new SvcFault(
          Codes.TOO_MANY_REQUESTS,
          `too many requests: ${route.op} allows ${perSecond} per second`,
        );
      }
    };
    if (account && route.limit !== "self") limitFor(account);
    const ctx: Ctx = {
      rt,
      state,
      account: account ?? (undefined as unknown as Account), // auth "none" handlers set their own
      accessToken: token,
      body,
      headers: req.headers,
      rateLimit: limitFor,
      setAccount(a: Account) {
        ctx.account = a;
        record.accountId = a.accountId;
      },
    };
    const data = await route.handler(ctx);
    return { status: 200, env: okEnvelope(data ?? null, route.style) };
  } catch (e) {
    if (e instanceof SvcFault)
      return { status: e.httpStatus, env: errorEnvelope(e.code, e.message, route.style) };
    const message = e instanceof Error ? e.message : String(e);
    console.error(`[service-sim] ${route.op} failed:`, e);
    return {
      status: 200,
      env: errorEnvelope(Codes.SYSTEM_BUSY, `internal error: ${message}`, route.style),
    };
  }
}
