/**
 * The token manager's rules at their edges, against the service simulator and the database, with
 * a clock the test holds still: the refresh margin, expired refresh tokens, transient and refused
 * refreshes, the 5-minute getAccessToken slot and waiting for another process, concurrent calls,
 * a rejected token, tokens at rest, and no secret in any error.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Prisma, SvcAccount } from "@prisma/client";
import { decryptSecret, encryptSecret } from "../../app/crypto.server";
import { AuthResource, type TokenRecord } from "../../app/svc/auth.server";
import type { Clock } from "../../app/svc/clock";
import * as E from "../../app/svc/errors";
import {
  isSvcError,
  NO_TOKENS,
  NO_TOKENS_OR_WEBHOOK,
  saveApiKeyAccount,
  TOKEN_REQUEST_INTERVAL_MS,
  TokenManager,
  type TokenManagerOptions,
} from "../../app/svc/tokens.server";
import { closeSvcPools, Transport } from "../../app/svc/transport.server";
import { accountFixture, prisma, startServiceSim, type ServiceSim } from "./sim-helpers";

const MIN = 60_000;
const HOUR = 60 * MIN;
let sim: ServiceSim;

// A loaded machine (mutation runs beside other suites) can stretch a test of many calls.
vi.setConfig({ testTimeout: 90_000 });

beforeAll(async () => {
  sim = await startServiceSim({ catalogSize: 5 });
});
afterEach(() => sim.clearFaults());
afterAll(async () => {
  await closeSvcPools();
  await sim.close();
});

/** A clock that follows the simulator's until the test holds it still with `at`. */
function heldClock() {
  let held: number | undefined;
  const clock: Clock = {
    now: () => held ?? sim.clock.now(),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  };
  return { clock, at: (ms: number | undefined) => void (held = ms) };
}

function authOver(baseUrl: string) {
  return new AuthResource(
    new Transport({
      baseUrl,
      timeoutMs: 15_000,
      retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 20 },
    }),
  );
}

/** Another account with tokens and a recent getAccessToken: no step may touch it. */
async function bystander() {
  const other = await saveApiKeyAccount(prisma, { baseUrl: sim.url, apiKey: "api-key-bystander" });
  const before = await change(other.id, {
    accessTokenEnc: encryptSecret("access-bystander"),
    accessTokenExpiresAt: new Date(sim.clock.now() + HOUR),
    refreshTokenEnc: encryptSecret("refresh-bystander"),
    refreshTokenExpiresAt: new Date(sim.clock.now() + 24 * HOUR),
    lastTokenRequestAt: new Date(sim.clock.now() - 10 * MIN),
  });
  return async () => expect(await row(other.id)).toEqual(before);
}

async function setup(opts: TokenManagerOptions = {}, auth?: (real: AuthResource) => AuthResource) {
  const fx = await accountFixture(sim, { callsPerSecond: 50 });
  const untouched = await bystander();
  const { clock, at } = heldClock();
  const real = authOver(sim.url);
  const make = (o: TokenManagerOptions = {}) =>
    new TokenManager(prisma, fx.accountId, auth ? auth(real) : real, { clock, ...opts, ...o });
  return { fx, at, tm: make(), make, real, untouched };
}

const change = (id: string, data: Prisma.SvcAccountUpdateInput) =>
  prisma.svcAccount.update({ where: { id }, data });
const row = (id: string) => prisma.svcAccount.findUniqueOrThrow({ where: { id } });
const count = (op: string, simAccountId: string) =>
  sim.calls({ op, accountId: simAccountId }).length;
const plain = (enc: string | null) => (enc ? decryptSecret(enc) : undefined);

async function caught(p: Promise<unknown>): Promise<E.SvcError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!isSvcError(e)) throw new Error(`expected an SvcError, got ${String(e)}`);
  return e;
}

describe("when a stored token is used, refreshed or replaced", () => {
  it("uses the stored token until the refresh margin before its expiry; at the margin it refreshes", async () => {
    const { fx, at, tm, make } = await setup();
    const first = await tm.getToken();
    const r0 = await row(fx.accountId);
    const exp = r0.accessTokenExpiresAt!.getTime();
    expect(plain(r0.accessTokenEnc)).toBe(first);
    at(exp - HOUR - 1);
    expect(await tm.getToken()).toBe(first);
    expect(count("refreshAccessToken", fx.simAccountId)).toBe(0);
    // A margin of ten minutes: eleven minutes before expiry is still fine.
    at(exp - 11 * MIN);
    expect(await make({ refreshMarginMs: 10 * MIN }).getToken()).toBe(first);
    expect(count("refreshAccessToken", fx.simAccountId)).toBe(0);
    sim.clock.advance(MIN);
    at(exp - HOUR);
    await tm.getToken();
    expect(count("refreshAccessToken", fx.simAccountId)).toBe(1);
    expect(count("getAccessToken", fx.simAccountId)).toBe(1);
    // The refreshed expiry is the one returned (the simulator's 15 days from its own now).
    expect((await row(fx.accountId)).accessTokenExpiresAt!.getTime()).toBeGreaterThan(exp);
  });

  it("a refresh token is used up to the instant it expires, then the API key", async () => {
    const { fx, at, tm } = await setup();
    await tm.getToken();
    const r0 = await row(fx.accountId);
    sim.clock.advance(6 * MIN);
    at(r0.refreshTokenExpiresAt!.getTime() - 1);
    await tm.getToken();
    expect(count("refreshAccessToken", fx.simAccountId)).toBe(1);
    await change(fx.accountId, { ...pick(r0) });
    at(r0.refreshTokenExpiresAt!.getTime());
    await tm.getToken();
    expect(count("refreshAccessToken", fx.simAccountId)).toBe(1);
    expect(count("getAccessToken", fx.simAccountId)).toBe(2);
    // openId comes with getAccessToken and is kept.
    expect((await row(fx.accountId)).openId).toBe(sim.state.accounts.get(fx.simAccountId)?.openId);
  });

  it("a transient refresh failure: the access token inside its life serves; past it, a clean error", async () => {
    const { fx, at, tm } = await setup();
    const first = await tm.getToken();
    const r0 = await row(fx.accountId);
    const refresh = plain(r0.refreshTokenEnc)!;
    sim.setFaults({ rate5xx: 1, ops: ["refreshAccessToken"] });
    at(r0.accessTokenExpiresAt!.getTime() - 30 * MIN);
    expect(await tm.getToken()).toBe(first);
    at(r0.accessTokenExpiresAt!.getTime());
    const e = await caught(tm.getToken());
    expect(e).toBeInstanceOf(E.SvcServerError);
    for (const s of [first, refresh, fx.apiKey]) expect(`${e.message} ${e.stack}`).not.toContain(s);
    // Nothing forgotten: the refresh token serves once the service is back.
    expect((await row(fx.accountId)).refreshTokenEnc).toBe(r0.refreshTokenEnc);
    sim.clearFaults();
    expect(await tm.getToken()).toBe(first);
    expect(count("getAccessToken", fx.simAccountId)).toBe(1);
  });

  it("a refused refresh token is forgotten; a valid access token still serves, then the API key", async () => {
    const { fx, at, tm, untouched } = await setup();
    const first = await tm.getToken();
    const r0 = await row(fx.accountId);
    const bogus = encryptSecret("refresh-unknown-0001");
    await change(fx.accountId, { refreshTokenEnc: bogus });
    at(r0.accessTokenExpiresAt!.getTime() - 30 * MIN);
    expect(await tm.getToken()).toBe(first);
    const r1 = await row(fx.accountId);
    expect(r1.refreshTokenEnc).toBeNull();
    expect(r1.refreshTokenExpiresAt).toBeNull();
    expect(r1.accessTokenEnc).toBe(r0.accessTokenEnc);
    // Past its life, the API key (5 minutes after the last getAccessToken).
    sim.clock.advance(6 * MIN);
    at(r0.accessTokenExpiresAt!.getTime() + MIN);
    await tm.getToken();
    expect(count("getAccessToken", fx.simAccountId)).toBe(2);
    expect(count("refreshAccessToken", fx.simAccountId)).toBe(0);
    await untouched();
  });

  it("a refresh token without its date, or a date without a token, is not used", async () => {
    const { fx, at, tm } = await setup();
    await tm.getToken();
    const r0 = await row(fx.accountId);
    sim.clock.advance(6 * MIN);
    at(r0.accessTokenExpiresAt!.getTime() + MIN);
    await change(fx.accountId, { refreshTokenExpiresAt: null });
    await tm.getToken();
    sim.clock.advance(6 * MIN);
    at(r0.accessTokenExpiresAt!.getTime() + 7 * MIN);
    await change(fx.accountId, { accessTokenExpiresAt: new Date(0), refreshTokenEnc: null });
    await tm.getToken();
    expect(count("refreshAccessToken", fx.simAccountId)).toBe(0);
    expect(count("getAccessToken", fx.simAccountId)).toBe(3);
  });

  it("a refresh token the contract's check refuses (over 80 characters) counts as refused, unsent", async () => {
    const { fx, at, tm } = await setup();
    await tm.getToken();
    const r0 = await row(fx.accountId);
    await change(fx.accountId, { refreshTokenEnc: encryptSecret("r".repeat(81)) });
    at(r0.accessTokenExpiresAt!.getTime() - 30 * MIN);
    await tm.getToken();
    expect((await row(fx.accountId)).refreshTokenEnc).toBeNull();
    expect(count("refreshAccessToken", fx.simAccountId)).toBe(0);
  });

  it("a refused refresh after another process stored new tokens: the new ones serve, untouched", async () => {
    const other: TokenRecord = {
      accessToken: "access-other-process-01",
      refreshToken: "refresh-other-process-01",
      accessTokenExpiryDate: new Date(sim.clock.now() + 20 * 24 * HOUR),
      refreshTokenExpiryDate: new Date(sim.clock.now() + 100 * 24 * HOUR),
    };
    let accountId = "";
    const { fx, at, tm } = await setup({}, (real) =>
      Object.assign(Object.create(real) as AuthResource, {
        refreshAccessToken: async (rt: string) => {
          // While this process's refresh is under way, another one refreshes and stores.
          await change(accountId, {
            accessTokenEnc: encryptSecret(other.accessToken),
            accessTokenExpiresAt: other.accessTokenExpiryDate,
            refreshTokenEnc: encryptSecret(other.refreshToken),
            refreshTokenExpiresAt: other.refreshTokenExpiryDate,
          });
          return real.refreshAccessToken(`${rt}-spent`);
        },
      }),
    );
    accountId = fx.accountId;
    await tm.getToken();
    const r0 = await row(fx.accountId);
    at(r0.accessTokenExpiresAt!.getTime() + MIN);
    expect(await tm.getToken()).toBe(other.accessToken);
    expect(plain((await row(fx.accountId)).refreshTokenEnc)).toBe(other.refreshToken);
    expect(count("getAccessToken", fx.simAccountId)).toBe(1);
  });

  it("an authorization-code account whose refresh is refused must authorize again", async () => {
    const { fx, at, tm } = await setup();
    await tm.getToken();
    const r0 = await row(fx.accountId);
    await change(fx.accountId, {
      authMethod: "authorizationCode",
      apiKeyEnc: null,
      refreshTokenEnc: encryptSecret("refresh-unknown-0002"),
    });
    at(r0.accessTokenExpiresAt!.getTime());
    const e = await caught(tm.getToken());
    expect(e).toBeInstanceOf(E.SvcReauthorizationRequiredError);
    expect(e.operation).toBe("token");
    expect((await row(fx.accountId)).refreshTokenEnc).toBeNull();
    expect(count("getAccessToken", fx.simAccountId)).toBe(1);
  });

  it("refuses an account that does not exist", async () => {
    const tm = new TokenManager(prisma, "no-such-account", authOver(sim.url));
    const e = await caught(tm.getToken());
    expect(e).toBeInstanceOf(E.SvcAuthError);
    expect(e.operation).toBe("token");
  });
});

function pick(r: SvcAccount) {
  return {
    accessTokenEnc: r.accessTokenEnc,
    accessTokenExpiresAt: r.accessTokenExpiresAt,
    refreshTokenEnc: r.refreshTokenEnc,
    refreshTokenExpiresAt: r.refreshTokenExpiresAt,
  };
}

describe("getAccessToken at most once per 5 minutes", () => {
  async function withoutTokens(lastTokenRequestAt: Date | null) {
    const s = await setup({ waitForOtherMs: 100, pollMs: 10 });
    await change(s.fx.accountId, { ...NO_TOKENS, lastTokenRequestAt });
    return s;
  }

  it("exactly 5 minutes after the last request it asks again; a millisecond sooner it says how long to wait", async () => {
    const now = sim.clock.now();
    const early = await withoutTokens(new Date(now - TOKEN_REQUEST_INTERVAL_MS + 1));
    early.at(now);
    const e = await caught(early.tm.getToken());
    expect(e).toBeInstanceOf(E.SvcTokenCooldownError);
    expect((e as E.SvcTokenCooldownError).retryAfterMs).toBe(1);
    expect(e.operation).toBe("getAccessToken");
    expect(count("getAccessToken", early.fx.simAccountId)).toBe(0);

    const due = await withoutTokens(new Date(now - TOKEN_REQUEST_INTERVAL_MS));
    due.at(now);
    await due.tm.getToken();
    expect(count("getAccessToken", due.fx.simAccountId)).toBe(1);
    expect((await row(due.fx.accountId)).lastTokenRequestAt!.getTime()).toBe(now);
    await due.untouched();

    const never = await withoutTokens(null);
    never.at(now);
    await never.tm.getToken();
    expect(count("getAccessToken", never.fx.simAccountId)).toBe(1);
  });

  it("a request that never left gives the slot back as it was; one that may have arrived keeps it", async () => {
    const now = sim.clock.now();
    const before = new Date(now - 10 * MIN);
    const s = await withoutTokens(before);
    s.at(now);
    const offline = new TokenManager(prisma, s.fx.accountId, authOver("http://127.0.0.1:1"), {
      clock: { now: () => now, sleep: async () => undefined },
    });
    const e = await caught(offline.getToken());
    expect(e).toBeInstanceOf(E.SvcNetworkError);
    expect(e.message).not.toContain(s.fx.apiKey);
    expect((await row(s.fx.accountId)).lastTokenRequestAt).toEqual(before);
    await s.untouched();

    sim.setFaults({ rate5xx: 1, ops: ["getAccessToken"] });
    const lost = await caught(s.tm.getToken());
    expect(lost).toBeInstanceOf(E.SvcServerError);
    expect(lost.message).not.toContain(s.fx.apiKey);
    expect((await row(s.fx.accountId)).lastTokenRequestAt!.getTime()).toBe(now);

    // A key the service refused: it was heard, the slot stays taken.
    sim.clearFaults();
    const refused = await withoutTokens(before);
    refused.at(now);
    await change(refused.fx.accountId, { apiKeyEnc: encryptSecret("api-key-unknown-0001") });
    const no = await caught(refused.tm.getToken());
    expect(no).toBeInstanceOf(E.SvcAuthError);
    expect(no.message).not.toContain("api-key-unknown-0001");
    expect((await row(refused.fx.accountId)).lastTokenRequestAt!.getTime()).toBe(now);
  });

  it("waits up to waitForOtherMs after the other process's request, to the millisecond", async () => {
    const now = sim.clock.now();
    const s = await withoutTokens(new Date(now - 5_000));
    s.at(now);
    const pending = s.make({ waitForOtherMs: 5_000, pollMs: 10 }).getToken();
    await new Promise((r) => setTimeout(r, 200));
    await change(s.fx.accountId, {
      accessTokenEnc: encryptSecret("access-just-in-time"),
      accessTokenExpiresAt: new Date(now + HOUR),
    });
    expect(await pending).toBe("access-just-in-time");
  });

  it("waits for the token another process is getting, and uses it", async () => {
    const now = sim.clock.now();
    const s = await withoutTokens(new Date(now));
    s.at(now);
    const tm = s.make({ waitForOtherMs: 10_000, pollMs: 10 });
    const pending = tm.getToken();
    await new Promise((r) => setTimeout(r, 150));
    await change(s.fx.accountId, {
      accessTokenEnc: encryptSecret("access-from-the-winner"),
      accessTokenExpiresAt: new Date(now + HOUR),
    });
    expect(await pending).toBe("access-from-the-winner");
    expect(count("getAccessToken", s.fx.simAccountId)).toBe(0);
  });

  it("waits no longer than waitForOtherMs of real time, then says when to try again", async () => {
    const now = sim.clock.now();
    const s = await withoutTokens(new Date(now));
    s.at(now);
    // The other process's token lands long after this one stopped waiting.
    const late = setTimeout(
      () =>
        // (A Prisma query runs only once awaited or then-ed.)
        void change(s.fx.accountId, {
          accessTokenEnc: encryptSecret("access-too-late"),
          accessTokenExpiresAt: new Date(now + HOUR),
        }).then(() => undefined),
      5_000,
    );
    const started = Date.now();
    const e = await caught(s.make({ waitForOtherMs: 300, pollMs: 10 }).getToken());
    clearTimeout(late);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(e).toBeInstanceOf(E.SvcTokenCooldownError);
    expect((e as E.SvcTokenCooldownError).retryAfterMs).toBe(TOKEN_REQUEST_INTERVAL_MS);
  });

  it("stops waiting when the other process gave its slot back (its request never left)", async () => {
    const now = sim.clock.now();
    const s = await withoutTokens(new Date(now));
    s.at(now);
    const pending = s.make({ waitForOtherMs: 60_000, pollMs: 10 }).getToken();
    await new Promise((r) => setTimeout(r, 100));
    await change(s.fx.accountId, { lastTokenRequestAt: null });
    const e = await caught(pending);
    expect(e).toBeInstanceOf(E.SvcTokenCooldownError);
  }, 45_000);

  it("does not wait for a request older than waitForOtherMs: it cannot be in flight any more", async () => {
    const now = sim.clock.now();
    const s = await withoutTokens(new Date(now - 2 * MIN));
    s.at(now);
    const e = await caught(s.make({ waitForOtherMs: 60_000, pollMs: 10 }).getToken());
    expect((e as E.SvcTokenCooldownError).retryAfterMs).toBe(3 * MIN);
  }, 45_000);
});

describe("concurrent calls and a rejected token", () => {
  it("two concurrent first calls share one getAccessToken", async () => {
    const { fx, tm } = await setup({ waitForOtherMs: 5_000, pollMs: 10 });
    const [a, b] = await Promise.all([tm.getToken(), tm.getToken()]);
    expect(a).toBe(b);
    expect(count("getAccessToken", fx.simAccountId)).toBe(1);
  });

  it("two concurrent calls after expiry share one refresh", async () => {
    const { fx, at, tm } = await setup();
    await tm.getToken();
    const r0 = await row(fx.accountId);
    at(r0.accessTokenExpiresAt!.getTime() + MIN);
    const [a, b] = await Promise.all([tm.getToken(), tm.getToken()]);
    expect(a).toBe(b);
    expect(count("refreshAccessToken", fx.simAccountId)).toBe(1);
  });

  it("forgets the rejected token only if it is still the stored one", async () => {
    const { fx, tm, untouched } = await setup();
    const token = await tm.getToken();
    const r0 = await row(fx.accountId);
    await tm.onTokenRejected("some-other-token");
    expect((await row(fx.accountId)).accessTokenEnc).toBe(r0.accessTokenEnc);
    await tm.onTokenRejected(token);
    const r1 = await row(fx.accountId);
    expect(r1.accessTokenEnc).toBeNull();
    expect(r1.accessTokenExpiresAt).toBeNull();
    expect(r1.refreshTokenEnc).toBe(r0.refreshTokenEnc);
    await untouched();
    await tm.onTokenRejected(token);
    // A stored value that does not decrypt is left alone.
    await change(fx.accountId, {
      accessTokenEnc: "not-a-sealed-value",
      accessTokenExpiresAt: new Date(),
    });
    await tm.onTokenRejected("x");
    expect((await row(fx.accountId)).accessTokenEnc).toBe("not-a-sealed-value");
  });

  it("a client reads the account once: its row to start with, then the token it found, until that is rejected", async () => {
    const { fx, tm } = await setup();
    const token = await tm.getToken(); // obtains and stores one
    let reads = 0;
    const counted = prisma.$extends({
      query: {
        svcAccount: {
          findUnique: ({ args, query }) => {
            reads++;
            return query(args);
          },
        },
      },
    }) as unknown as typeof prisma;
    const fresh = new TokenManager(counted, fx.accountId, authOver(sim.url), {
      clock: { now: () => sim.clock.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
      initialRow: await row(fx.accountId),
    });
    expect([await fresh.getToken(), await fresh.getToken(), await fresh.getToken()]).toEqual([
      token,
      token,
      token,
    ]);
    expect(reads).toBe(0);
    // Rejected: forgotten (here and in the row); the next call looks again and obtains one.
    await fresh.onTokenRejected(token);
    expect(reads).toBe(1);
    expect((await row(fx.accountId)).accessTokenEnc).toBeNull();
    const next = await fresh.getToken();
    expect(plain((await row(fx.accountId)).accessTokenEnc)).toBe(next);
    expect(reads).toBeGreaterThanOrEqual(2);
    const after = reads;
    expect(await fresh.getToken()).toBe(next);
    expect(reads).toBe(after);
    // clearTokens forgets the one it holds too.
    await fresh.clearTokens();
    await expect(fresh.currentToken()).resolves.toBeUndefined();
    expect(reads).toBe(after + 1);
  });

  it("currentToken gives the stored token while it lives, without any call; clearTokens forgets all", async () => {
    const { fx, at, tm } = await setup();
    expect(await tm.currentToken()).toBeUndefined();
    const token = await tm.getToken();
    const r0 = await row(fx.accountId);
    at(r0.accessTokenExpiresAt!.getTime() - 1);
    expect(await tm.currentToken()).toBe(token);
    at(r0.accessTokenExpiresAt!.getTime());
    expect(await tm.currentToken()).toBeUndefined();
    at(undefined);
    await change(fx.accountId, { accessTokenExpiresAt: null });
    expect(await tm.currentToken()).toBeUndefined();
    await change(fx.accountId, {
      accessTokenEnc: null,
      accessTokenExpiresAt: r0.accessTokenExpiresAt,
    });
    expect(await tm.currentToken()).toBeUndefined();
    await tm.clearTokens();
    expect(pick(await row(fx.accountId))).toEqual(NO_TOKENS);
    expect(sim.calls({ accountId: fx.simAccountId })).toHaveLength(1);
  });
});

describe("secrets", () => {
  it("knows the key and the tokens it handled (the last twenty), for redaction", async () => {
    let n = 0;
    const { fx, at, tm } = await setup({}, () =>
      Object.assign(Object.create(authOver(sim.url)) as AuthResource, {
        getAccessToken: async () => rec(++n),
        refreshAccessToken: async () => rec(++n),
      }),
    );
    function rec(i: number): TokenRecord {
      return {
        openId: `open-${i}`,
        accessToken: `access-${i}-xxxx`,
        refreshToken: `refresh-${i}-xxxx`,
        accessTokenExpiryDate: new Date(sim.clock.now() + i * HOUR + 2 * HOUR),
        refreshTokenExpiryDate: new Date(sim.clock.now() + 1000 * HOUR),
      };
    }
    await tm.getToken();
    await tm.getToken();
    expect(tm.secrets()).toEqual([fx.apiKey, "access-1-xxxx", "refresh-1-xxxx"]);
    for (let i = 2; i <= 12; i++) {
      at((await row(fx.accountId)).accessTokenExpiresAt!.getTime());
      expect(await tm.getToken()).toBe(`access-${i}-xxxx`);
    }
    const known = tm.secrets();
    expect(known).toHaveLength(20);
    expect(new Set(known).size).toBe(20);
    // The open id is the one getAccessToken gave, whatever a refresh says.
    expect((await row(fx.accountId)).openId).toBe("open-1");
    expect(known).toEqual(expect.arrayContaining(["access-12-xxxx", "refresh-12-xxxx"]));
    expect(known).not.toContain(fx.apiKey);
  });

  it("a new process knows the stored tokens it reads, even when the refresh then fails", async () => {
    const { fx, at, tm, make } = await setup();
    const access = await tm.getToken();
    const r0 = await row(fx.accountId);
    const refresh = plain(r0.refreshTokenEnc)!;
    const reader = make();
    expect(await reader.getToken()).toBe(access);
    expect(reader.secrets()).toEqual([access]);
    sim.setFaults({ rate5xx: 1, ops: ["refreshAccessToken"] });
    const refresher = make();
    at(r0.accessTokenExpiresAt!.getTime() + MIN);
    await caught(refresher.getToken());
    expect(refresher.secrets()).toEqual([refresh]);
  });

  it("forgetting an account's tokens and webhook leaves no secret but the key", async () => {
    const { fx, tm } = await setup();
    await tm.getToken();
    const filled = await change(fx.accountId, {
      webhookSecretEnc: encryptSecret("hook-secret"),
      webhookSecretHash: "ab".repeat(32),
      webhookRegisteredAt: new Date(),
    });
    const secretColumns = Object.keys(filled).filter(
      (k) => /(Enc|Hash|ExpiresAt|RegisteredAt)$/.test(k) && k !== "apiKeyEnc",
    );
    expect(secretColumns.every((k) => filled[k as keyof SvcAccount] !== null)).toBe(true);
    const cleared = await change(fx.accountId, NO_TOKENS_OR_WEBHOOK);
    for (const k of secretColumns) expect(cleared[k as keyof SvcAccount]).toBeNull();
    expect(plain(cleared.apiKeyEnc)).toBe(fx.apiKey);
  });

  it("stores the key and the tokens encrypted; saving a key again replaces it and forgets the tokens", async () => {
    const shopDomain = `tok-${Date.now()}.myshopify.com`;
    const a = await saveApiKeyAccount(prisma, {
      baseUrl: sim.url,
      apiKey: "api-key-first-0001",
      shopDomain,
      callsPerSecond: 7,
      queryCallsPerSecond: 9,
    });
    expect(a.apiKeyEnc).not.toContain("api-key-first-0001");
    expect(plain(a.apiKeyEnc)).toBe("api-key-first-0001");
    expect(a).toMatchObject({ authMethod: "apiKey", callsPerSecond: 7, queryCallsPerSecond: 9 });
    await change(a.id, { accessTokenEnc: encryptSecret("t"), accessTokenExpiresAt: new Date() });
    const b = await saveApiKeyAccount(prisma, {
      baseUrl: sim.url,
      apiKey: "api-key-second-0002",
      shopDomain,
    });
    expect(b.id).toBe(a.id);
    expect(plain(b.apiKeyEnc)).toBe("api-key-second-0002");
    expect(pick(b)).toEqual(NO_TOKENS);
    expect(b).toMatchObject({ callsPerSecond: 7, queryCallsPerSecond: 9 });
    const c = await saveApiKeyAccount(prisma, { baseUrl: sim.url, apiKey: "api-key-third-0003" });
    expect(c.id).not.toBe(a.id);
    expect(c.shopDomain).toBeNull();
  });
});
