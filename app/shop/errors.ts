/**
 * Typed errors of the Shopify gateway. Every message is readable on its own (operation, shop,
 * what went wrong) and is scrubbed of access tokens before it is built.
 */

export interface ShopUserErrorItem {
  field: string[] | null;
  message: string;
  code?: string | null;
}

export interface GraphqlErrorItem {
  message: string;
  code?: string;
  path?: (string | number)[];
}

export type ShopErrorCode =
  | "AUTH"
  | "NO_SESSION"
  | "THROTTLED"
  | "UNAVAILABLE"
  | "GRAPHQL"
  | "USER_ERRORS"
  | "NOT_FOUND"
  | "FULFILLMENT_PLAN"
  | "FULFILLMENT_NOT_READY"
  | "BAD_RESPONSE";

export class ShopError extends Error {
  override name = "ShopError";
  readonly code: ShopErrorCode;
  readonly shop: string;
  readonly operation: string;
  /** The HTTP status of the Admin API response, when there was one. */
  readonly status?: number;

  constructor(
    code: ShopErrorCode,
    opts: { shop: string; operation: string; message: string; status?: number; cause?: unknown },
  ) {
    super(`Shopify ${opts.operation} for ${opts.shop}: ${opts.message}`, { cause: opts.cause });
    this.code = code;
    this.shop = opts.shop;
    this.operation = opts.operation;
    this.status = opts.status;
  }
}

/** 401/403: the offline token is revoked, expired or lacks a scope; reinstall or re-auth. */
export class ShopAuthError extends ShopError {
  override name = "ShopAuthError";
}

/** No offline session stored for the shop (not installed, or uninstalled). */
export class ShopNoSessionError extends ShopError {
  override name = "ShopNoSessionError";
}

/** Throttled past the gateway's own retries (GraphQL cost limit or HTTP 429). */
export class ShopThrottledError extends ShopError {
  override name = "ShopThrottledError";
  readonly retryAfterMs?: number;
  constructor(opts: ConstructorParameters<typeof ShopError>[1] & { retryAfterMs?: number }) {
    super("THROTTLED", opts);
    this.retryAfterMs = opts.retryAfterMs;
  }
}

/** 5xx or a network failure: safe to retry later. */
export class ShopUnavailableError extends ShopError {
  override name = "ShopUnavailableError";
}

/** Top-level GraphQL errors (a malformed query, an unknown field, an invalid variable). */
export class ShopGraphqlError extends ShopError {
  override name = "ShopGraphqlError";
  readonly errors: GraphqlErrorItem[];
  constructor(opts: ConstructorParameters<typeof ShopError>[1] & { errors: GraphqlErrorItem[] }) {
    super("GRAPHQL", opts);
    this.errors = opts.errors;
  }
}

/** A mutation answered with `userErrors` (bad input: over-fulfilment, unknown ids, …). */
export class ShopUserError extends ShopError {
  override name = "ShopUserError";
  readonly userErrors: ShopUserErrorItem[];
  constructor(
    opts: Omit<ConstructorParameters<typeof ShopError>[1], "message"> & {
      userErrors: ShopUserErrorItem[];
    },
  ) {
    super("USER_ERRORS", {
      ...opts,
      message: opts.userErrors
        .map((e) => (e.field?.length ? `${e.field.join(".")}: ${e.message}` : e.message))
        .join("; "),
    });
    this.userErrors = opts.userErrors;
  }
}

/** The order (or fulfilment) does not exist, or the app cannot see it. */
export class ShopNotFoundError extends ShopError {
  override name = "ShopNotFoundError";
}

/** The requested lines cannot be placed on the order's open fulfilment orders. */
export class ShopFulfillmentPlanError extends ShopError {
  override name = "ShopFulfillmentPlanError";
  readonly problems: { lineItemGid: string; requested: number; fulfillable: number }[];
  constructor(
    opts: Omit<ConstructorParameters<typeof ShopError>[1], "message"> & {
      problems: { lineItemGid: string; requested: number; fulfillable: number }[];
    },
  ) {
    super("FULFILLMENT_PLAN", {
      ...opts,
      message:
        "cannot fulfil " +
        opts.problems
          .map((p) => `${p.lineItemGid}: requested ${p.requested}, open ${p.fulfillable}`)
          .join("; "),
    });
    this.problems = opts.problems;
  }
}

/**
 * The lines sit on fulfilment orders Shopify does not let the app fulfil yet (ON_HOLD,
 * SCHEDULED, …): not a conflict. Retry later (`retryAt` when a scheduled one opens); nothing
 * was written.
 */
export class ShopFulfillmentNotReadyError extends ShopError {
  override name = "ShopFulfillmentNotReadyError";
  readonly notReady: {
    lineItemGid: string;
    fulfillmentOrderId: string;
    status: string;
    reason: string;
  }[];
  readonly retryAt: Date | null;
  constructor(
    opts: Omit<ConstructorParameters<typeof ShopError>[1], "message"> & {
      notReady: ShopFulfillmentNotReadyError["notReady"];
      retryAt?: Date | null;
    },
  ) {
    const reasons = [...new Set(opts.notReady.map((n) => n.reason))];
    super("FULFILLMENT_NOT_READY", {
      ...opts,
      message:
        `not fulfillable yet: ${opts.notReady.length} line(s) on fulfilment orders ${reasons.join("; ")}`.slice(
          0,
          400,
        ),
    });
    this.notReady = opts.notReady;
    this.retryAt = opts.retryAt ?? null;
  }
}

/** Removes secrets (the access token, and anything shaped like a Shopify token) from text. */
export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const s of secrets) {
    if (s && s.length >= 6) out = out.split(s).join("[redacted]");
  }
  return out.replace(/\bshp(at|ua|ca|pa|ss)_[A-Za-z0-9]+/g, "[redacted]");
}
