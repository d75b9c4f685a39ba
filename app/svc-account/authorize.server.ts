/**
 * The affiliated-merchant (authorization-code) flow of Part 1 §6.3: a `state` stored in
 * `AuthState` (bound to a shop, single use, expiring), the service's authorization page, and the
 * code receiver's use case that exchanges the code and stores the shop's tokens.
 */
import { randomBytes } from "node:crypto";
import type { PrismaClient } from "@prisma/client";
import { enqueue } from "../jobs/enqueue.server";
import {
  type AuthResource,
  type CodeReceiverReply,
  codeReceiverRequestSchema,
  tokenColumns,
  type TokenRecord,
} from "../svc/auth.server";
import { type Clock, systemClock } from "../svc/clock";
import { SvcError } from "../svc/errors";
import { SVC_ACCOUNT_JOB } from "./kinds";

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
