/**
 * The Shopify library's errors (GraphqlQueryError, HttpResponseError and its kin, network
 * failures) as the app's typed ShopErrors (app/shop/errors.ts): throttling with the wait the
 * cost figures call for, authorization, not found, unavailable. Messages never carry a secret.
 */
import {
  type GraphqlErrorItem,
  ShopAuthError,
  ShopError,
  ShopGraphqlError,
  ShopNoSessionError,
  ShopNotFoundError,
  ShopThrottledError,
  ShopUnavailableError,
  redact,
} from "./errors";

interface LibraryErrorShape {
  name?: string;
  message?: string;
  response?: { code?: number; statusText?: string; retryAfter?: number } | Response;
  body?: {
    errors?: { graphQLErrors?: unknown[]; networkStatusCode?: number };
    extensions?: {
      cost?: {
        requestedQueryCost?: number;
        throttleStatus?: { currentlyAvailable?: number; restoreRate?: number };
      };
    };
  };
}

export function mapLibraryError(
  error: unknown,
  ctx: { shop: string; operation: string; secrets: (string | undefined)[] },
): ShopError {
  if (error instanceof ShopError) return error;
  const e = (error ?? {}) as LibraryErrorShape;
  const name = e.name ?? (error as object)?.constructor?.name ?? "Error";
  const base = { shop: ctx.shop, operation: ctx.operation, cause: undefined as unknown };

  if (name === "SessionNotFoundError") {
    return new ShopNoSessionError("NO_SESSION", {
      ...base,
      message: "no offline session is stored for this shop (is the app installed?)",
    });
  }

  // GraphqlQueryError: HTTP 200 with top-level `errors`.
  const gqlErrors = e.body?.errors?.graphQLErrors;
  if (Array.isArray(gqlErrors)) return graphqlError(gqlErrors, e, base, ctx.secrets);
  return httpError(e, error, name, base, ctx.secrets);
}

type ErrorBase = { shop: string; operation: string; cause: unknown };

/** Top-level GraphQL `errors` (HTTP 200): throttled, access denied, or the errors themselves. */
function graphqlError(
  gqlErrors: unknown[],
  e: LibraryErrorShape,
  base: ErrorBase,
  secrets: (string | undefined)[],
): ShopError {
  const errors: GraphqlErrorItem[] = gqlErrors.map((g) => {
    const item = (g ?? {}) as {
      message?: unknown;
      extensions?: { code?: unknown };
      path?: unknown;
    };
    return {
      message: redact(String(item.message ?? "unknown error"), secrets),
      code: typeof item.extensions?.code === "string" ? item.extensions.code : undefined,
      path: Array.isArray(item.path) ? (item.path as (string | number)[]) : undefined,
    };
  });
  if (errors.some((x) => x.code === "THROTTLED")) {
    const cost = e.body?.extensions?.cost;
    const available = cost?.throttleStatus?.currentlyAvailable ?? 0;
    const rate = cost?.throttleStatus?.restoreRate ?? 50;
    const need = (cost?.requestedQueryCost ?? rate) - available;
    return new ShopThrottledError({
      ...base,
      message: "throttled (query cost limit)",
      status: 200,
      retryAfterMs: Math.max(100, Math.ceil((Math.max(need, 0) / Math.max(rate, 1)) * 1000)),
    });
  }
  if (errors.some((x) => x.code === "ACCESS_DENIED")) {
    return new ShopAuthError("AUTH", {
      ...base,
      status: 200,
      message: `access denied: ${errors.map((x) => x.message).join("; ")} (missing scope?)`,
    });
  }
  return new ShopGraphqlError({
    ...base,
    status: 200,
    message: errors.map((x) => x.message).join("; "),
    errors,
  });
}

/** HttpResponseError and its kin (`response.code` is the HTTP status), network failures, the rest. */
function httpError(
  e: LibraryErrorShape,
  error: unknown,
  name: string,
  base: ErrorBase,
  secrets: (string | undefined)[],
): ShopError {
  // HttpResponseError and subclasses: `response.code` is the HTTP status.
  const resp = e.response as
    | { code?: number; statusText?: string; retryAfter?: number }
    | undefined;
  const status = typeof resp?.code === "number" ? resp.code : undefined;
  if (status === 401 || status === 403) {
    return new ShopAuthError("AUTH", {
      ...base,
      status,
      message:
        status === 401
          ? "the stored access token was rejected (401); the shop must reinstall or re-authorize the app"
          : "forbidden (403); the app lacks a required scope or permission",
    });
  }
  if (status === 429 || name === "HttpThrottlingError") {
    return new ShopThrottledError({
      ...base,
      status,
      message: "throttled (HTTP 429)",
      retryAfterMs: resp?.retryAfter ? resp.retryAfter * 1000 : 1000,
    });
  }
  if (status === 404) {
    return new ShopNotFoundError("NOT_FOUND", { ...base, status, message: "not found (404)" });
  }
  if ((status !== undefined && status >= 500) || name === "HttpMaxRetriesError") {
    return new ShopUnavailableError("UNAVAILABLE", {
      ...base,
      status,
      message: `Shopify is unavailable (${status ?? "max retries"})`,
    });
  }
  if (status !== undefined) {
    return new ShopError("GRAPHQL", {
      ...base,
      status,
      message: `HTTP ${status} ${resp?.statusText ?? ""}`.trim(),
    });
  }
  // Network failures (HttpRequestError, fetch errors) and anything unforeseen.
  return new ShopUnavailableError("UNAVAILABLE", {
    ...base,
    message: `request failed: ${redact(String(e.message ?? error), secrets).slice(0, 300)}`,
  });
}
