/**
 * Typed errors of the fulfilment service client. Every envelope `code` of the contract (Parts
 * 1–3, section 7) and of DESIGN §8 maps to one class; unknown codes become a plain `SvcError`.
 *
 * Messages never carry secrets: the transport redacts every token and key it knows of before an
 * error is built (see `redactSecrets`), and no error keeps the request or response body.
 */

export interface SvcErrorInit {
  code?: number;
  message: string;
  requestId?: string;
  operation: string;
  httpStatus?: number;
  /** True when the request may have reached the server and had an effect. */
  outcomeUnknown?: boolean;
}

export class SvcError extends Error {
  readonly code: number | undefined;
  readonly requestId: string | undefined;
  readonly operation: string;
  readonly httpStatus: number | undefined;
  /** True when the request may have reached the server and had an effect (a create may exist). */
  readonly outcomeUnknown: boolean;
  /** True when the same request may succeed later without any change. */
  readonly retryable: boolean = false;

  constructor(init: SvcErrorInit) {
    super(
      `${init.operation}: ${init.message}${init.code !== undefined ? ` (code ${init.code})` : ""}`,
    );
    this.name = new.target.name;
    this.code = init.code;
    this.requestId = init.requestId;
    this.operation = init.operation;
    this.httpStatus = init.httpStatus;
    this.outcomeUnknown = init.outcomeUnknown ?? false;
  }

  /** A log-safe summary (no stack, no cause). */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      code: this.code,
      requestId: this.requestId,
      operation: this.operation,
      httpStatus: this.httpStatus,
      outcomeUnknown: this.outcomeUnknown,
      retryable: this.retryable,
    };
  }
}

/** 1600001, 1600003, 1601000: authentication failed, refresh failed, user/token/code not found. */
export class SvcAuthError extends SvcError {}
/** An affiliated account whose refresh token expired: the merchant must authorize again. */
export class SvcReauthorizationRequiredError extends SvcAuthError {}
/** getAccessToken was called for this account less than 5 minutes ago (by any process). */
export class SvcTokenCooldownError extends SvcAuthError {
  constructor(
    init: SvcErrorInit,
    readonly retryAfterMs: number,
  ) {
    super(init);
  }

  /**
   * Not a failure but a wait (a job that meets it waits this long, its attempt given back,
   * app/worker/worker.server.ts): the next token request is allowed then, or the other process's
   * token has landed.
   */
  get waitMs(): number {
    return Math.max(1000, this.retryAfterMs);
  }
}
/** 1600200: too many requests. */
export class SvcRateLimitError extends SvcError {
  override readonly retryable = true;
}
/** 1600201: quota used up (daily caps); not worth retrying today. */
export class SvcQuotaError extends SvcError {}
/** 1600100, 1600300: parameter error. */
export class SvcParamError extends SvcError {}
/** Refused by the client before sending: a required field is missing or too long. */
export class SvcValidationError extends SvcParamError {
  constructor(
    operation: string,
    readonly field: string,
    problem: string,
  ) {
    super({ operation, message: `${field} ${problem}` });
  }
}
/** 1605001: invalid logistics method. */
export class SvcLogisticsError extends SvcParamError {}
/** 1607001: invalid webhook callback address. */
export class SvcWebhookAddressError extends SvcParamError {}
/** 1606000: webhook setting exists. */
export class SvcWebhookExistsError extends SvcError {}
/** 1600000: system busy / internal retrieval failure; never means "no data". */
export class SvcBusyError extends SvcError {
  override readonly retryable = true;
}
/** 803, 1005, 1608001: not found (or not the account's). */
export class SvcNotFoundError extends SvcError {}
/** 1602002, 1602003: product or variant removed. */
export class SvcProductRemovedError extends SvcNotFoundError {}
/** Payment failures: 1603101 payment failed. */
export class SvcPaymentError extends SvcError {}
/** 1604000: balance insufficient. */
export class SvcInsufficientBalanceError extends SvcPaymentError {}
/** 1604001: balance payment restricted. */
export class SvcPaymentRestrictedError extends SvcPaymentError {}
/** 1603003: duplicate order (the orderNumber exists). */
export class SvcDuplicateOrderError extends SvcError {}
/** 1603001: cart or confirmation failure. */
export class SvcCartError extends SvcError {}
/** 8002, 819, 820: the order's state does not allow the change. */
export class SvcOrderStateError extends SvcError {}
/** 811, 818: not a sandbox order / another account's sandbox order. */
export class SvcForbiddenError extends SvcError {}
/** 821: tracking update failed to persist; retry. */
export class SvcTransientError extends SvcError {
  override readonly retryable = true;
}
/** 9063: the dispute's status does not accept new messages. */
export class SvcDisputeStateError extends SvcError {}
/** HTTP 5xx (or another non-envelope HTTP failure). */
export class SvcServerError extends SvcError {
  override readonly retryable = true;
}
/** The response did not match the expected shape. */
export class SvcResponseError extends SvcError {}
/** Connection or socket failure. `outcomeUnknown` says whether the request may have arrived. */
export class SvcNetworkError extends SvcError {
  override readonly retryable = true;
}
/** No complete answer within the time limit; the request may have arrived. */
export class SvcTimeoutError extends SvcNetworkError {}

type ErrorClass = new (init: SvcErrorInit) => SvcError;

/** Code → class, contract Parts 1–3 §7 and DESIGN §8. */
export const ERROR_CLASSES: ReadonlyMap<number, ErrorClass> = new Map<number, ErrorClass>([
  [1600000, SvcBusyError],
  [1600001, SvcAuthError],
  [1600003, SvcAuthError],
  [1600100, SvcParamError],
  [1600200, SvcRateLimitError],
  [1600201, SvcQuotaError],
  [1600300, SvcParamError],
  [1601000, SvcAuthError],
  [1602002, SvcProductRemovedError],
  [1602003, SvcProductRemovedError],
  [1603001, SvcCartError],
  [1603003, SvcDuplicateOrderError],
  [1603101, SvcPaymentError],
  [1604000, SvcInsufficientBalanceError],
  [1604001, SvcPaymentRestrictedError],
  [1605001, SvcLogisticsError],
  [1606000, SvcWebhookExistsError],
  [1607001, SvcWebhookAddressError],
  [1608001, SvcNotFoundError],
  [1005, SvcNotFoundError],
  [803, SvcNotFoundError],
  [8002, SvcOrderStateError],
  [811, SvcForbiddenError],
  [818, SvcForbiddenError],
  [819, SvcOrderStateError],
  [820, SvcOrderStateError],
  [821, SvcTransientError],
  [9063, SvcDisputeStateError],
]);

export function errorForCode(init: SvcErrorInit & { code: number }): SvcError {
  const Cls = ERROR_CLASSES.get(init.code) ?? SvcError;
  return new Cls(init);
}

/** Replaces every occurrence of a known secret in a text. Secrets shorter than 4 are ignored. */
export function redactSecrets(text: string, secrets: Iterable<string | undefined | null>): string {
  let out = text;
  for (const s of secrets) {
    if (s && s.length >= 4) out = out.split(s).join("[redacted]");
  }
  return out;
}
