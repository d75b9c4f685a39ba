/** The response envelope of Part 1 §2.1 and the service's error codes. */
import { randomBytes } from "node:crypto";

export const Codes = {
  OK: 200,
  VIDEO_OK: 0,
  SYSTEM_BUSY: 1600000,
  AUTH_FAILED: 1600001,
  REFRESH_FAILED: 1600003,
  PARAM_ERROR: 1600100,
  TOO_MANY_REQUESTS: 1600200,
  QUOTA_USED_UP: 1600201,
  BATCH_IDS_INVALID: 1600300,
  USER_NOT_FOUND: 1601000,
  PRODUCT_REMOVED: 1602002,
  VARIANT_REMOVED: 1602003,
  CART_FAILURE: 1603001,
  DUPLICATE_ORDER: 1603003,
  PAYMENT_FAILED: 1603101,
  BALANCE_INSUFFICIENT: 1604000,
  BALANCE_RESTRICTED: 1604001,
  INVALID_LOGISTICS: 1605001,
  WEBHOOK_ADDRESS_INVALID: 1607001,
  WAREHOUSE_NOT_FOUND: 1608001,
  DISPUTE_NOT_FOUND: 1005,
  DISPUTE_STATUS_NO_REPLY: 9063,
  ORDER_STATUS_CHANGED: 8002,
  ORDER_NOT_FOUND: 803,
  NOT_SANDBOX_ORDER: 811,
  SANDBOX_ORDER_FOREIGN: 818,
  SANDBOX_STATUS_FORBIDS: 819,
  NO_LOGISTICS_INFO: 820,
  TRACK_UPDATE_FAILED: 821,
} as const;

/** An error that handlers throw; the router turns it into an error envelope. */
export class SvcFault extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly httpStatus = 200,
  ) {
    super(message);
  }
}

export const paramError = (message: string) => new SvcFault(Codes.PARAM_ERROR, message);

export interface Envelope {
  code: number;
  result?: boolean;
  message: string;
  data: unknown;
  requestId: string;
  success?: boolean;
}

export function newRequestId(): string {
  return randomBytes(16).toString("hex");
}

/** How an operation shapes its success envelope (most carry `result`, a few `success`). */
export interface EnvelopeStyle {
  successCode?: number; // 0 for the video query
  withResult?: boolean; // default true
  withSuccess?: boolean; // default false
}

export function okEnvelope(data: unknown, style: EnvelopeStyle = {}): Envelope {
  // Key order as the service sends it: code, result, message, data, requestId, success.
  return {
    code: style.successCode ?? Codes.OK,
    ...(style.withResult !== false ? { result: true } : {}),
    message: "success",
    data,
    requestId: newRequestId(),
    ...(style.withSuccess ? { success: true } : {}),
  };
}

export function errorEnvelope(code: number, message: string, style: EnvelopeStyle = {}): Envelope {
  const env: Envelope = { code, result: false, message, data: null, requestId: newRequestId() };
  if (style.withSuccess) env.success = false;
  return env;
}
