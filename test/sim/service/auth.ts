/**
 * Accounts and tokens (Part 1 §3.1, §4.1–4.5, §5): API-key tokens reused for 24 hours,
 * refresh, logout, access-token expiry on the simulator clock, and the authorization-code flow
 * for affiliated merchants.
 */
import { randomBytes } from "node:crypto";
import { formatIsoOffset } from "./clock";
import type { Ctx } from "./context";
import { Codes, SvcFault } from "./envelope";
import { parseMoney } from "./money";
import {
  nextSeq,
  type Account,
  type AuthorizeRequest,
  type SimState,
  type TokenRecord,
} from "./state";
import { str } from "./validate";

export const DAY_MS = 24 * 3_600_000;
export const TOKEN_REUSE_MS = DAY_MS;
export const ACCESS_TTL_MS = 15 * DAY_MS;
export const REFRESH_TTL_MS = 180 * DAY_MS;

export interface CreateAccountOptions {
  apiKey?: string;
  balance?: string;
  callsPerSecond?: number;
  queryCallsPerSecond?: number;
  email?: string;
}

export function createAccount(
  state: SimState,
  opts: CreateAccountOptions = {},
  kind: Account["kind"] = "independent",
): Account {
  const n = nextSeq(state);
  const accountId = `ACC${String(n).padStart(6, "0")}`;
  const apiKey =
    kind === "independent"
      ? (opts.apiKey ?? `SVCAPI@${accountId}@${randomBytes(12).toString("hex")}`)
      : undefined;
  if (apiKey && [...state.accounts.values()].some((a) => a.apiKey === apiKey)) {
    throw new Error(`apiKey ${apiKey} is already used`);
  }
  const account: Account = {
    accountId,
    apiKey,
    openId: String(1_000_000_000_000 + n * 7919),
    email: opts.email ?? `${accountId.toLowerCase()}@merchant.test`,
    kind,
    balance: parseMoney(opts.balance ?? "0"),
    bonus: 0n,
    frozen: 0n,
    callsPerSecond: opts.callsPerSecond ?? 1,
    queryCallsPerSecond: opts.queryCallsPerSecond ?? 2,
    shopId: `SHOP${String(n).padStart(6, "0")}`,
    shopName: `API Store ${n}`,
    myProducts: new Set(),
    webhooks: { paused: false, attempts: 0, failures: 0 },
  };
  state.accounts.set(accountId, account);
  return account;
}

function issueTokens(state: SimState, account: Account): TokenRecord {
  const now = state.clock.now();
  const previous = state.currentToken.get(account.accountId);
  if (previous) revoke(state, previous);
  const rec: TokenRecord = {
    accountId: account.accountId,
    accessToken: `AT${randomBytes(24).toString("hex")}`,
    refreshToken: `RT${randomBytes(24).toString("hex")}`,
    createdAt: now,
    accessExpiresAt: now + ACCESS_TTL_MS,
    refreshExpiresAt: now + REFRESH_TTL_MS,
    revoked: false,
  };
  state.tokensByAccess.set(rec.accessToken, rec);
  state.tokensByRefresh.set(rec.refreshToken, rec);
  state.currentToken.set(account.accountId, rec);
  return rec;
}

function revoke(state: SimState, rec: TokenRecord): void {
  rec.revoked = true;
  state.tokensByAccess.delete(rec.accessToken);
  state.tokensByRefresh.delete(rec.refreshToken);
  if (state.currentToken.get(rec.accountId) === rec) state.currentToken.delete(rec.accountId);
}

function tokenRecord(rec: TokenRecord, openId?: string): Record<string, unknown> {
  return {
    ...(openId ? { openId: Number(openId) } : {}),
    accessToken: rec.accessToken,
    accessTokenExpiryDate: formatIsoOffset(rec.accessExpiresAt),
    refreshToken: rec.refreshToken,
    refreshTokenExpiryDate: formatIsoOffset(rec.refreshExpiresAt),
    createDate: formatIsoOffset(rec.createdAt),
  };
}

/** The account of a valid access token, or the reason it is refused. */
export function authenticate(state: SimState, token: string | undefined): Account | string {
  if (!token) return "Svc-Access-Token header is required";
  const rec = state.tokensByAccess.get(token);
  if (!rec || rec.revoked) return "access token is not valid";
  if (rec.accessExpiresAt <= state.clock.now()) return "access token expired";
  return state.accounts.get(rec.accountId) ?? "account not found";
}

export function getAccessToken(ctx: Ctx): unknown {
  const apiKey = str(ctx.body, "apiKey", { required: true, max: 200 });
  const account = [...ctx.state.accounts.values()].find((a) => a.apiKey === apiKey);
  if (!account) throw new SvcFault(Codes.USER_NOT_FOUND, "user not found");
  ctx.setAccount(account);
  const now = ctx.state.clock.now();
  const { enforceRateLimits, getAccessTokenIntervalMs } = ctx.rt.options;
  if (enforceRateLimits && account.lastGetAccessTokenAt !== undefined) {
    const since = now - account.lastGetAccessTokenAt;
    if (since >= 0 && since < getAccessTokenIntervalMs) {
      throw new SvcFault(
        Codes.TOO_MANY_REQUESTS,
        `getAccessToken may be called once per ${Math.round(getAccessTokenIntervalMs / 1000)} s; retry in ${Math.ceil((getAccessTokenIntervalMs - since) / 1000)} s`,
      );
    }
  }
  account.lastGetAccessTokenAt = now;
  const current = ctx.state.currentToken.get(account.accountId);
  const reusable =
    current &&
    !current.revoked &&
    now - current.createdAt < TOKEN_REUSE_MS &&
    current.refreshExpiresAt > now;
  const rec = reusable ? current : issueTokens(ctx.state, account);
  return tokenRecord(rec, account.openId);
}

export function refreshAccessToken(ctx: Ctx): unknown {
  const token = str(ctx.body, "refreshToken", { required: true, max: 80 });
  const rec = ctx.state.tokensByRefresh.get(token);
  const now = ctx.state.clock.now();
  if (!rec || rec.revoked)
    throw new SvcFault(Codes.REFRESH_FAILED, "refresh token failure: token not valid");
  if (rec.refreshExpiresAt <= now)
    throw new SvcFault(Codes.REFRESH_FAILED, "refresh token failure: token expired");
  const account = ctx.state.accounts.get(rec.accountId);
  if (!account)
    throw new SvcFault(Codes.REFRESH_FAILED, "refresh token failure: account not found");
  ctx.setAccount(account);
  ctx.rateLimit(account);
  if (now - rec.createdAt < TOKEN_REUSE_MS) {
    rec.accessExpiresAt = now + ACCESS_TTL_MS; // same tokens, refreshed expiry
    return tokenRecord(rec);
  }
  return tokenRecord(issueTokens(ctx.state, account));
}

export function logout(ctx: Ctx): boolean {
  const rec = ctx.accessToken ? ctx.state.tokensByAccess.get(ctx.accessToken) : undefined;
  if (!rec) throw new SvcFault(Codes.AUTH_FAILED, "authentication failed");
  revoke(ctx.state, rec);
  return true;
}

export function getAuthorizeUrl(ctx: Ctx): string {
  const b = ctx.body;
  if (ctx.account.kind !== "independent") {
    throw new SvcFault(
      Codes.USER_NOT_FOUND,
      "access token not valid: only an independent merchant can authorise",
    );
  }
  const req: AuthorizeRequest = {
    secret: randomBytes(16).toString("hex"),
    parentAccountId: ctx.account.accountId,
    email: str(b, "email", { max: 100 }),
    redirectUri: str(b, "redirectUri", { max: 200 }),
    // The contract marks no field required; the flow cannot deliver a code without this one.
    callbackUri: str(b, "callbackUri", { max: 200, required: true }),
    userName: str(b, "userName", { max: 40 }),
    state: str(b, "state", { max: 40 }),
    codeUsed: false,
  };
  str(b, "openId", { max: 40 });
  ctx.state.authorizeRequests.set(req.secret, req);
  return `${ctx.rt.baseUrl()}/__sim/authorize?secret=${req.secret}`;
}

/**
 * What the user does on the service's page: log in or register (an affiliated account is
 * created, or reused for the same e-mail), after which the service posts `{code, state}` to the
 * partner's receiver. Returns the code, the receiver's reply and where the browser goes next.
 */
export async function completeAuthorization(
  state: SimState,
  secret: string,
  email?: string,
): Promise<{
  code: string;
  state?: string;
  redirectUri?: string;
  receiverStatus: number | string;
  receiverBody: unknown;
}> {
  const req = state.authorizeRequests.get(secret);
  if (!req) throw new Error("unknown authorization secret");
  const mail = email ?? req.email;
  let affiliated = [...state.accounts.values()].find(
    (a) =>
      a.kind === "affiliated" &&
      a.parentAccountId === req.parentAccountId &&
      mail !== undefined &&
      a.email === mail,
  );
  if (!affiliated) {
    affiliated = createAccount(state, { email: mail }, "affiliated");
    affiliated.parentAccountId = req.parentAccountId;
  }
  req.affiliatedAccountId = affiliated.accountId;
  req.code = randomBytes(20).toString("hex");
  req.codeUsed = false;
  let receiverStatus: number | string;
  let receiverBody: unknown;
  try {
    const res = await fetch(req.callbackUri, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code: req.code, state: req.state }),
      signal: AbortSignal.timeout(5000),
    });
    receiverStatus = res.status;
    const text = await res.text();
    try {
      receiverBody = JSON.parse(text);
    } catch {
      receiverBody = text;
    }
  } catch (e) {
    receiverStatus = e instanceof Error ? e.message : "error";
  }
  return {
    code: req.code,
    state: req.state,
    redirectUri: req.redirectUri,
    receiverStatus,
    receiverBody,
  };
}

export function exchangeAccessToken(ctx: Ctx): unknown {
  const code = str(ctx.body, "code", { required: true, max: 100 });
  const req = [...ctx.state.authorizeRequests.values()].find((r) => r.code === code);
  if (
    !req ||
    req.codeUsed ||
    req.parentAccountId !== ctx.account.accountId ||
    !req.affiliatedAccountId
  ) {
    throw new SvcFault(Codes.USER_NOT_FOUND, "authorization code not found");
  }
  const affiliated = ctx.state.accounts.get(req.affiliatedAccountId);
  if (!affiliated) throw new SvcFault(Codes.USER_NOT_FOUND, "authorization code not found");
  req.codeUsed = true;
  return tokenRecord(issueTokens(ctx.state, affiliated), affiliated.openId);
}
