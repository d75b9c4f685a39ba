/**
 * Tokens per service account (`SvcAccount`), stored encrypted, shared by every process:
 *
 * - a valid access token is used until `refreshMarginMs` before its returned expiry date;
 * - then refreshAccessToken (while the refresh token is valid), trusting the returned dates;
 * - then, for an API-key account, getAccessToken — at most once per 5 minutes per account across
 *   all processes, enforced by a conditional UPDATE of `lastTokenRequestAt`; a process that loses
 *   that race waits for the winner's token to appear in the database;
 * - for an affiliated account whose refresh token expired: SvcReauthorizationRequiredError.
 */
import type { PrismaClient, SvcAccount } from "@prisma/client";
import { decryptSecret, encryptSecret } from "../crypto.server";
import { AuthResource, tokenColumns, type TokenRecord } from "./auth.server";
import { type Clock, systemClock } from "./clock";
import {
  SvcAuthError,
  SvcError,
  SvcNetworkError,
  SvcValidationError,
  SvcReauthorizationRequiredError,
  SvcTokenCooldownError,
} from "./errors";
import type { TokenProvider } from "./transport.server";

export const TOKEN_REQUEST_INTERVAL_MS = 5 * 60_000;

export interface TokenManagerOptions {
  clock?: Clock;
  /** Refresh this long before the access token's expiry (default 1 hour). */
  refreshMarginMs?: number;
  /** How long a process waits for another process's getAccessToken (real time, default 20 s). */
  waitForOtherMs?: number;
  pollMs?: number;
  /**
   * The account row the client was just made from: the first token look-up uses it instead of
   * reading the row again.
   */
  initialRow?: SvcAccount;
}

/** The SvcAccount columns that forget an account's tokens. */
export const NO_TOKENS = {
  accessTokenEnc: null,
  accessTokenExpiresAt: null,
  refreshTokenEnc: null,
  refreshTokenExpiresAt: null,
} as const;

/**
 * The columns that forget the account's webhook address (its secret) as well. (The legacy clear
 * `webhookSecret` column is neither read nor written: the secrets migration empties it.)
 */
export const NO_TOKENS_OR_WEBHOOK = {
  ...NO_TOKENS,
  webhookSecretEnc: null,
  webhookSecretHash: null,
  webhookRegisteredAt: null,
} as const;

export class TokenManager implements TokenProvider {
  private readonly clock: Clock;
  private known: string[] = [];
  private pending: Promise<string> | undefined;
  private seed: SvcAccount | undefined;
  /**
   * The token this client last found usable, and until when (its expiry less the refresh
   * margin): the client's further calls use it without a look-up; a rejection forgets it.
   */
  private current: { token: string; until: number } | undefined;

  constructor(
    private readonly prisma: PrismaClient,
    readonly accountId: string,
    /** Auth operations on a transport without a token provider (same base URL and limiter). */
    private readonly auth: AuthResource,
    private readonly opts: TokenManagerOptions = {},
  ) {
    this.clock = opts.clock ?? systemClock;
    this.seed = opts.initialRow;
  }

  secrets(): string[] {
    return this.known;
  }

  private remember(...values: string[]) {
    for (const v of values) if (!this.known.includes(v)) this.known.push(v);
    this.known = this.known.slice(-20);
  }

  private async row(): Promise<SvcAccount> {
    const row = await this.prisma.svcAccount.findUnique({ where: { id: this.accountId } });
    if (!row) {
      throw new SvcAuthError({
        operation: "token",
        // Stryker disable next-line StringLiteral: message
        message: "service account not found",
      });
    }
    return row;
  }

  /** How long before its expiry a token is refreshed (default an hour). */
  private margin(): number {
    return this.opts.refreshMarginMs ?? 3600_000;
  }

  private usable(row: SvcAccount, marginMs: number): string | undefined {
    if (!row.accessTokenEnc || !row.accessTokenExpiresAt) return undefined;
    if (row.accessTokenExpiresAt.getTime() - marginMs <= this.clock.now()) return undefined;
    const token = decryptSecret(row.accessTokenEnc);
    this.remember(token);
    return token;
  }

  /** Concurrent calls of this process share one look-up, and so at most one token request. */
  getToken(): Promise<string> {
    if (this.current && this.current.until > this.clock.now())
      return Promise.resolve(this.current.token);
    this.pending ??= this.obtain().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async obtain(reread?: SvcAccount): Promise<string> {
    const margin = this.margin();
    const row = reread ?? this.seed ?? (await this.row());
    this.seed = undefined;
    const fresh = this.usable(row, margin);
    if (fresh) {
      this.current = { token: fresh, until: row.accessTokenExpiresAt!.getTime() - margin };
      return fresh;
    }

    if (
      row.refreshTokenEnc &&
      row.refreshTokenExpiresAt &&
      row.refreshTokenExpiresAt.getTime() > this.clock.now()
    ) {
      const refreshToken = decryptSecret(row.refreshTokenEnc);
      this.remember(refreshToken);
      try {
        const rec = await this.auth.refreshAccessToken(refreshToken);
        return await this.store(rec);
      } catch (error) {
        // A refresh token the contract's request check refuses (longer than 80 characters) is
        // as unusable as one the service refuses.
        if (!(error instanceof SvcAuthError || error instanceof SvcValidationError)) {
          // Transient failure: an access token still inside its life is better than nothing.
          const still = this.usable(row, 0);
          if (still) return still;
          throw error;
        }
        // The refresh token was refused: another process may have stored new tokens meanwhile.
        const again = await this.row();
        const other = this.usable(again, 0);
        if (other && again.accessTokenEnc !== row.accessTokenEnc) return other;
        await this.prisma.svcAccount.updateMany({
          where: { id: this.accountId, refreshTokenEnc: row.refreshTokenEnc },
          data: { refreshTokenEnc: null, refreshTokenExpiresAt: null },
        });
      }
    }
    const still = this.usable(row, 0);
    if (still) return still;
    // Any account with an API key (a shop's, or the operator's partner account) can get tokens.
    if (row.apiKeyEnc) return this.obtainWithApiKey(row);
    // The row in hand may predate the merchant's renewal (a new authorization, a reconnect):
    // only the current row can say that the merchant must authorize again.
    if (!reread) return this.obtain(await this.row());
    throw new SvcReauthorizationRequiredError({
      operation: "token",
      // Stryker disable next-line StringLiteral: message
      message: "the authorization has expired; the merchant must authorize again",
    });
  }

  /** getAccessToken, at most once per 5 minutes per account across all processes. */
  private async obtainWithApiKey(row: SvcAccount): Promise<string> {
    const now = this.clock.now();
    const claimed = await this.prisma.svcAccount.updateMany({
      where: {
        id: this.accountId,
        OR: [
          { lastTokenRequestAt: null },
          { lastTokenRequestAt: { lte: new Date(now - TOKEN_REQUEST_INTERVAL_MS) } },
        ],
      },
      data: { lastTokenRequestAt: new Date(now) },
    });
    if (claimed.count === 1) {
      const apiKey = decryptSecret(row.apiKeyEnc!);
      this.remember(apiKey);
      let rec: TokenRecord;
      try {
        rec = await this.auth.getAccessToken(apiKey);
      } catch (error) {
        // Provably never sent (connection refused): give the slot back.
        if (error instanceof SvcNetworkError && !error.outcomeUnknown) {
          await this.prisma.svcAccount.updateMany({
            where: { id: this.accountId, lastTokenRequestAt: new Date(now) },
            data: { lastTokenRequestAt: row.lastTokenRequestAt },
          });
        }
        throw error;
      }
      return this.store(rec, true);
    }
    // Another process holds the slot: wait (in real time) for its token to land, as long as its
    // request can still be in flight.
    const waitMs = this.opts.waitForOtherMs ?? 20_000;
    const started = Date.now();
    for (;;) {
      const r = await this.row();
      const token = this.usable(r, 0);
      if (token) return token;
      const since = this.clock.now() - (r.lastTokenRequestAt?.getTime() ?? 0);
      if (since > waitMs || Date.now() - started > waitMs) break;
      await new Promise((res) => setTimeout(res, this.opts.pollMs ?? 50));
    }
    const last = (await this.row()).lastTokenRequestAt?.getTime() ?? now;
    throw new SvcTokenCooldownError(
      {
        operation: "getAccessToken",
        // Stryker disable next-line StringLiteral: message
        message: "a token was requested less than 5 minutes ago and none is available yet",
      },
      Math.max(0, last + TOKEN_REQUEST_INTERVAL_MS - this.clock.now()),
    );
  }

  private async store(rec: TokenRecord, withOpenId = false): Promise<string> {
    this.remember(rec.accessToken, rec.refreshToken);
    const columns = tokenColumns(rec, this.clock.now());
    await this.prisma.svcAccount.update({
      where: { id: this.accountId },
      data: { ...columns, ...(withOpenId && rec.openId ? { openId: rec.openId } : {}) },
    });
    this.current = {
      token: rec.accessToken,
      until: columns.accessTokenExpiresAt.getTime() - this.margin(),
    };
    return rec.accessToken;
  }

  async onTokenRejected(token: string): Promise<void> {
    this.current = undefined;
    this.seed = undefined;
    const row = await this.row();
    if (!row.accessTokenEnc) return;
    let stored: string;
    try {
      stored = decryptSecret(row.accessTokenEnc);
    } catch {
      stored = "";
    }
    if (stored !== token) return; // another process already replaced it
    await this.prisma.svcAccount.updateMany({
      where: { id: this.accountId, accessTokenEnc: row.accessTokenEnc },
      data: { accessTokenEnc: null, accessTokenExpiresAt: null },
    });
  }

  /** Clears the stored tokens (after a logout at the service). */
  async clearTokens(): Promise<void> {
    this.current = undefined;
    this.seed = undefined;
    await this.prisma.svcAccount.update({ where: { id: this.accountId }, data: NO_TOKENS });
  }

  /** The stored access token without any call (for logout). */
  async currentToken(): Promise<string | undefined> {
    return this.usable(await this.row(), 0);
  }
}

/** Creates (or updates) the API-key account of a shop; the key is stored encrypted. */
export async function saveApiKeyAccount(
  prisma: PrismaClient,
  input: {
    baseUrl: string;
    apiKey: string;
    shopDomain?: string | null;
    callsPerSecond?: number;
    queryCallsPerSecond?: number;
  },
): Promise<SvcAccount> {
  const data = {
    baseUrl: input.baseUrl,
    authMethod: "apiKey",
    apiKeyEnc: encryptSecret(input.apiKey),
    accessTokenEnc: null,
    accessTokenExpiresAt: null,
    refreshTokenEnc: null,
    refreshTokenExpiresAt: null,
    ...(input.callsPerSecond ? { callsPerSecond: input.callsPerSecond } : {}),
    ...(input.queryCallsPerSecond ? { queryCallsPerSecond: input.queryCallsPerSecond } : {}),
  };
  if (input.shopDomain) {
    return prisma.svcAccount.upsert({
      where: { shopDomain: input.shopDomain },
      create: { shopDomain: input.shopDomain, ...data },
      update: data,
    });
  }
  return prisma.svcAccount.create({ data });
}

export function isSvcError(e: unknown): e is SvcError {
  return e instanceof SvcError;
}
