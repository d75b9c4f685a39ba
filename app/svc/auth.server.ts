/**
 * Part 1 §4.1–4.5 and §6.3: the authentication operations, the token record, the code
 * receiver's request and reply, and the token columns of an account. The affiliated-merchant
 * flow that uses them (the `state`, the exchange) is app/svc-account/authorize.server.ts.
 */
import { z } from "zod";
import { encryptSecret } from "../crypto.server";
import { obj, reqStr, str, timestamp } from "./schema-kit";
import type { OperationDef, Transport } from "./transport.server";
import { validateRequest, compact, type ObjectSpec } from "./validate";

const op = (
  name: string,
  path: string,
  auth: "token" | "none",
  retry: "safe" | "never",
): OperationDef => ({
  name,
  method: "POST",
  path,
  auth,
  bucket: "default",
  retry,
});

export const AUTH_OPS = {
  getAccessToken: op("getAccessToken", "/authentication/getAccessToken", "none", "never"),
  refreshAccessToken: op(
    "refreshAccessToken",
    "/authentication/refreshAccessToken",
    "none",
    "safe",
  ),
  logout: op("logout", "/authentication/logout", "token", "never"),
  getAuthorizeUrl: {
    ...op("getAuthorizeUrl", "/authentication/getAuthorizeUrl", "token", "never"),
    tokenRejectedCodes: [1600001, 1601000],
  },
  exchangeAccessToken: op(
    "exchangeAccessToken",
    "/authentication/exchangeAccessToken",
    "token",
    "never",
  ),
} as const;

/** Token record (Part 1 §2.3). */
export const tokenRecordSchema = obj({
  openId: str,
  accessToken: reqStr,
  accessTokenExpiryDate: timestamp,
  refreshToken: reqStr,
  refreshTokenExpiryDate: timestamp,
  createDate: timestamp,
});
export type TokenRecord = z.output<typeof tokenRecordSchema>;

export interface GetAuthorizeUrlRequest {
  email?: string;
  redirectUri?: string;
  callbackUri?: string;
  userName?: string;
  state?: string;
  openId?: string | number;
}

const authorizeUrlSpec: ObjectSpec = {
  email: { type: "string", max: 100 },
  redirectUri: { type: "string", max: 200 },
  callbackUri: { type: "string", max: 200 },
  userName: { type: "string", max: 40 },
  state: { type: "string", max: 40 },
  openId: { type: "int", max: 40 },
};

/** The receiver's reply (Part 1 §6.3): result '0' = success. */
export interface CodeReceiverReply {
  result: string;
  message: string;
}
export const codeReceiverRequestSchema = z.looseObject({
  code: z.string().min(1).max(100),
  state: z.string().min(1),
});

export class AuthResource {
  constructor(private readonly t: Transport) {}

  async getAccessToken(apiKey: string): Promise<TokenRecord> {
    validateRequest(
      "getAccessToken",
      { apiKey: { type: "string", required: true, max: 200 } },
      { apiKey },
    );
    return this.t.call(AUTH_OPS.getAccessToken, { body: { apiKey } }, tokenRecordSchema);
  }

  async refreshAccessToken(refreshToken: string): Promise<TokenRecord> {
    validateRequest(
      "refreshAccessToken",
      { refreshToken: { type: "string", required: true, max: 80 } },
      { refreshToken },
    );
    return this.t.call(AUTH_OPS.refreshAccessToken, { body: { refreshToken } }, tokenRecordSchema);
  }

  /** Invalidates both tokens at the service (the token manager's logout also clears storage). */
  async logout(opts: { token?: string } = {}): Promise<boolean> {
    return this.t.call(
      AUTH_OPS.logout,
      { token: opts.token },
      z.unknown().transform((v) => v !== false),
    );
  }

  async getAuthorizeUrl(req: GetAuthorizeUrlRequest): Promise<string> {
    validateRequest("getAuthorizeUrl", authorizeUrlSpec, req);
    return this.t.call(
      AUTH_OPS.getAuthorizeUrl,
      { body: compact({ ...req }) },
      z.union([
        z.string(),
        z.looseObject({ svcRedirectUri: z.string() }).transform((o) => o.svcRedirectUri),
      ]),
    );
  }

  async exchangeAccessToken(code: string): Promise<TokenRecord> {
    validateRequest(
      "exchangeAccessToken",
      { code: { type: "string", required: true, max: 100 } },
      { code },
    );
    return this.t.call(
      AUTH_OPS.exchangeAccessToken,
      { body: { code }, secrets: [code] },
      tokenRecordSchema,
    );
  }
}

/** Fallback lifetimes when the service omits an expiry date (the shortest stated ones). */
const FALLBACK_ACCESS_MS = 15 * 24 * 3600_000;
const FALLBACK_REFRESH_MS = 180 * 24 * 3600_000;

/** The SvcAccount columns of a token record, encrypted, with the returned expiry dates. */
export function tokenColumns(t: TokenRecord, now: number) {
  return {
    accessTokenEnc: encryptSecret(t.accessToken),
    accessTokenExpiresAt: t.accessTokenExpiryDate ?? new Date(now + FALLBACK_ACCESS_MS),
    refreshTokenEnc: encryptSecret(t.refreshToken),
    refreshTokenExpiresAt: t.refreshTokenExpiryDate ?? new Date(now + FALLBACK_REFRESH_MS),
  };
}
