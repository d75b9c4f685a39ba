/**
 * Part 1 §4.1–4.5 and §6.3: authentication operations, and the affiliated-merchant
 * (authorization-code) flow with a `state` stored in `AuthState` (bound to a shop, single use,
 * expiring).
 */
import { randomBytes } from "node:crypto";
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { encryptSecret } from "../crypto.server";
import { enqueue } from "../jobs/queue.server";
import { SVC_ACCOUNT_JOB } from "../svc-account/kinds";
import { type Clock, systemClock } from "./clock";
import { SvcError } from "./errors";
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

// ---------------------------------------------------------------------------------------------
// Affiliated-merchant flow

export interface AuthFlowDeps {
  prisma: PrismaClient;
  /** The independent merchant's (partner's) auth resource: getAuthorizeUrl, exchangeAccessToken. */
  partnerAuth: AuthResource;
  clock?: Clock;
  /** How long a `state` stays valid (default 15 minutes). */
  stateTtlMs?: number;
}

export interface StartAuthorizationInput {
  shopDomain: string;
  callbackUri: string;
  redirectUri: string;
  email?: string;
  userName?: string;
  openId?: string | number;
}

/** Creates a single-use `state` bound to the shop, and returns the service's authorization page. */
export async function startAuthorization(
  deps: AuthFlowDeps,
  input: StartAuthorizationInput,
): Promise<{ url: string; state: string; expiresAt: Date }> {
  const clock = deps.clock ?? systemClock;
  const state = randomBytes(24).toString("base64url"); // 32 characters, within the 40 allowed
  const expiresAt = new Date(clock.now() + (deps.stateTtlMs ?? 15 * 60_000));
  await deps.prisma.authState.create({ data: { state, shopDomain: input.shopDomain, expiresAt } });
  const url = await deps.partnerAuth.getAuthorizeUrl({
    state,
    callbackUri: input.callbackUri,
    redirectUri: input.redirectUri,
    email: input.email,
    userName: input.userName,
    openId: input.openId,
  });
  return { url, state, expiresAt };
}

/**
 * What the code-receiver route calls with the posted `{code, state}`: consumes the state (single
 * use, unexpired; optionally it must belong to `expectedShop`), exchanges the code and stores
 * the encrypted tokens on the shop's account, and enqueues the registration of the service
 * webhooks in the same transaction (the code receiver then registers them at once,
 * app/svc-account/authorized.server.ts; the job is the retry when the service refused or missed
 * that). Never throws; the reply is the receiver's answer.
 */
export async function receiveAuthorizationCode(
  deps: AuthFlowDeps & { baseUrl: string },
  body: unknown,
  opts: { expectedShop?: string } = {},
): Promise<
  CodeReceiverReply & { accountId?: string; shopDomain?: string; previousOpenId?: string | null }
> {
  const clock = deps.clock ?? systemClock;
  const parsed = codeReceiverRequestSchema.safeParse(body);
  if (!parsed.success) return { result: "1", message: "code and state are required" };
  const { code, state } = parsed.data;
  const now = new Date(clock.now());
  const row = await deps.prisma.authState.findUnique({ where: { state } });
  if (!row || (opts.expectedShop && row.shopDomain !== opts.expectedShop)) {
    return { result: "1", message: "unknown state" };
  }
  // Single use, atomically: only one caller can flip usedAt.
  const claimed = await deps.prisma.authState.updateMany({
    where: { state, usedAt: null, expiresAt: { gt: now } },
    data: { usedAt: now },
  });
  if (claimed.count !== 1) return { result: "1", message: "state expired or already used" };
  let tokens: TokenRecord;
  try {
    tokens = await deps.partnerAuth.exchangeAccessToken(code);
  } catch (error) {
    return {
      result: "1",
      message: error instanceof SvcError ? `exchange failed: ${error.name}` : "exchange failed",
    };
  }
  const openId = tokens.openId ?? null;
  const data = {
    baseUrl: deps.baseUrl,
    authMethod: "authorizationCode",
    openId,
    apiKeyEnc: null,
    ...tokenColumns(tokens, clock.now()),
  };
  let previousOpenId: string | null = null;
  const account = await deps.prisma.$transaction(async (tx) => {
    const before = await tx.svcAccount.findUnique({
      where: { shopDomain: row.shopDomain },
      select: { openId: true },
    });
    previousOpenId = before?.openId ?? null;
    // Moved to another service account: the old callback address is not this account's.
    const moved =
      before?.openId && before.openId !== openId
        ? { webhookSecretEnc: null, webhookSecretHash: null, webhookRegisteredAt: null }
        : {};
    const saved = await tx.svcAccount.upsert({
      where: { shopDomain: row.shopDomain },
      create: { shopDomain: row.shopDomain, ...data },
      update: { ...data, ...moved },
    });
    await enqueue(tx, {
      kind: SVC_ACCOUNT_JOB.registerWebhooks,
      payload: { accountId: saved.id, reason: "authorized" },
      idempotencyKey: `svc-webhooks:authorized:${state}`,
      shopDomain: row.shopDomain,
      maxAttempts: 8,
    });
    return saved;
  });
  return {
    result: "0",
    message: "success",
    accountId: account.id,
    shopDomain: row.shopDomain,
    previousOpenId,
  };
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
