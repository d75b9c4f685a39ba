/** Token rules against the simulator, with the database shared by "processes" (client instances). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decryptSecret } from "../../app/crypto.server";
import * as E from "../../app/svc/errors";
import { closeSvcPools } from "../../app/svc/transport.server";
import { accountFixture, prisma, startServiceSim, type ServiceSim } from "./sim-helpers";

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
let sim: ServiceSim;

beforeAll(async () => {
  sim = await startServiceSim({ catalogSize: 20 });
});
afterAll(async () => {
  await closeSvcPools();
  await sim.close();
});

async function stored(accountId: string) {
  const row = await prisma.svcAccount.findUniqueOrThrow({ where: { id: accountId } });
  return {
    row,
    access: row.accessTokenEnc ? decryptSecret(row.accessTokenEnc) : undefined,
    refresh: row.refreshTokenEnc ? decryptSecret(row.refreshTokenEnc) : undefined,
  };
}
const count = (op: string, accountId: string) => sim.calls({ op, accountId }).length;

describe("tokens per account", () => {
  it("stores tokens encrypted with the returned expiry dates, and gets the same token within 24 hours", async () => {
    const fx = await accountFixture(sim, { callsPerSecond: 10 });
    await fx.client.payment.getBalance();
    const first = await stored(fx.accountId);
    expect(first.row.apiKeyEnc).not.toContain(fx.apiKey);
    expect(first.row.accessTokenEnc).not.toContain(first.access);
    // The stored expiry is the one the service returned (15 days in the simulator), not assumed.
    expect(
      Math.abs(first.row.accessTokenExpiresAt!.getTime() - (sim.clock.now() + 15 * DAY)),
    ).toBeLessThan(10_000);
    // Lost tokens (e.g. a restore) 6 minutes later: getAccessToken again returns the same token.
    await fx.client.tokens!.clearTokens();
    sim.clock.advance(6 * MIN);
    await fx.client.payment.getBalance();
    const second = await stored(fx.accountId);
    expect(second.access).toBe(first.access);
    expect(count("getAccessToken", fx.simAccountId)).toBe(2);
  });

  it("uses the cached token without calling the service again", async () => {
    const fx = await accountFixture(sim, { callsPerSecond: 10 });
    await fx.client.payment.getBalance();
    await fx.client.payment.getBalance();
    const other = await fx.newClient();
    await other.payment.getBalance();
    expect(count("getAccessToken", fx.simAccountId)).toBe(1);
    expect(count("refreshAccessToken", fx.simAccountId)).toBe(0);
  });

  it("refreshes before and after expiry, moving the simulator's and the client's clock", async () => {
    const fx = await accountFixture(sim, { callsPerSecond: 10 });
    await fx.client.payment.getBalance();
    const t0 = await stored(fx.accountId);
    // 30 minutes before expiry (inside the 1-hour margin): refreshed ahead of time.
    sim.clock.set(t0.row.accessTokenExpiresAt!.getTime() - 30 * MIN);
    await fx.client.payment.getBalance();
    expect(count("refreshAccessToken", fx.simAccountId)).toBe(1);
    const t1 = await stored(fx.accountId);
    expect(t1.row.accessTokenExpiresAt!.getTime()).toBeGreaterThan(
      t0.row.accessTokenExpiresAt!.getTime(),
    );
    // Past expiry: the next call refreshes (a new token after the 24-hour window) and succeeds.
    sim.clock.set(t1.row.accessTokenExpiresAt!.getTime() + MIN);
    const b = await fx.client.payment.getBalance();
    expect(b.amount).toBeDefined();
    expect(count("refreshAccessToken", fx.simAccountId)).toBe(2);
    expect(count("getAccessToken", fx.simAccountId)).toBe(1);
    expect(
      sim.calls({ accountId: fx.simAccountId }).filter((c) => c.code === 1600001),
    ).toHaveLength(0);
  });

  it("falls back to getAccessToken when the refresh token has expired", async () => {
    const fx = await accountFixture(sim, { callsPerSecond: 10 });
    await fx.client.payment.getBalance();
    const t0 = await stored(fx.accountId);
    sim.clock.set(t0.row.refreshTokenExpiresAt!.getTime() + MIN);
    await fx.client.payment.getBalance();
    const t1 = await stored(fx.accountId);
    expect(t1.access).not.toBe(t0.access);
    expect(count("getAccessToken", fx.simAccountId)).toBe(2);
    expect(count("refreshAccessToken", fx.simAccountId)).toBe(0);
  });

  it("logout invalidates: the old token is refused, and a new one comes only after 5 minutes", async () => {
    const fx = await accountFixture(sim, {
      callsPerSecond: 10,
      deps: { tokens: { waitForOtherMs: 200 } },
    });
    await fx.client.payment.getBalance();
    const before = await stored(fx.accountId);
    await fx.client.logout();
    expect((await stored(fx.accountId)).access).toBeUndefined();
    await expect(
      fx.client.transport.call(
        {
          name: "getBalance",
          method: "GET",
          path: "/shopping/pay/getBalance",
          auth: "token",
          bucket: "default",
          retry: "safe",
        },
        { token: before.access },
        (await import("zod")).z.unknown(),
      ),
    ).rejects.toBeInstanceOf(E.SvcAuthError);
    const e = await fx.client.payment.getBalance().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(E.SvcTokenCooldownError);
    expect((e as E.SvcTokenCooldownError).retryAfterMs).toBeGreaterThan(0);
    expect(count("getAccessToken", fx.simAccountId)).toBe(1);
    sim.clock.advance(5 * MIN + 1000);
    await fx.client.payment.getBalance();
    const after = await stored(fx.accountId);
    expect(after.access).toBeDefined();
    expect(after.access).not.toBe(before.access);
    expect(count("getAccessToken", fx.simAccountId)).toBe(2);
  });

  it("a token revoked elsewhere is replaced (1600001 → refresh or new token) and the call succeeds", async () => {
    const fx = await accountFixture(sim, { callsPerSecond: 10 });
    await fx.client.payment.getBalance();
    const t0 = await stored(fx.accountId);
    // Another party logs the token out at the service, behind this app's back.
    await fx.client.auth.logout({ token: t0.access });
    sim.clock.advance(5 * MIN + 1000);
    await fx.client.payment.getBalance();
    expect((await stored(fx.accountId)).access).not.toBe(t0.access);
  });

  it("three processes, concurrent first calls: one getAccessToken in all", async () => {
    const fx = await accountFixture(sim, {
      callsPerSecond: 5,
      deps: { tokens: { waitForOtherMs: 3000 } },
    });
    const clients = [fx.client, await fx.newClient(), await fx.newClient()];
    const results = await Promise.all(
      clients.flatMap((c) => [c.payment.getBalance(), c.catalog.categories()]),
    );
    expect(results).toHaveLength(6);
    expect(count("getAccessToken", fx.simAccountId)).toBe(1);
    // Tokens gone again (e.g. logout) within 5 minutes: still at most one request per 5 minutes.
    // Gone for every process (whether a process kept the token in memory depends on whether its
    // first call found it stored or waited for it: timing).
    for (const c of clients) await c.tokens!.clearTokens();
    const again = await Promise.allSettled(clients.map((c) => c.payment.getBalance()));
    expect(
      again.every((r) => r.status === "rejected" && r.reason instanceof E.SvcTokenCooldownError),
    ).toBe(true);
    expect(count("getAccessToken", fx.simAccountId)).toBe(1);
    sim.clock.advance(5 * MIN + 1000);
    await Promise.all(clients.map((c) => c.payment.getBalance()));
    expect(count("getAccessToken", fx.simAccountId)).toBe(2);
    expect(
      sim.calls({ op: "getAccessToken", accountId: fx.simAccountId }).every((c) => c.code === 200),
    ).toBe(true);
  }, 60_000);

  it("an affiliated account whose refresh token expired needs a new authorization", async () => {
    const fx = await accountFixture(sim, { callsPerSecond: 10 });
    await fx.client.payment.getBalance();
    await prisma.svcAccount.update({
      where: { id: fx.accountId },
      data: { authMethod: "authorizationCode", apiKeyEnc: null },
    });
    const t0 = await stored(fx.accountId);
    sim.clock.set(t0.row.refreshTokenExpiresAt!.getTime() + MIN);
    await expect(fx.client.payment.getBalance()).rejects.toBeInstanceOf(
      E.SvcReauthorizationRequiredError,
    );
  });

  it("gives the 5-minute slot back when getAccessToken provably never left", async () => {
    const fx = await accountFixture(sim, {
      callsPerSecond: 10,
      deps: { retry: { maxAttempts: 1 } },
    });
    await prisma.svcAccount.update({
      where: { id: fx.accountId },
      data: { baseUrl: "http://127.0.0.1:1" },
    });
    const offline = await fx.newClient();
    await expect(offline.payment.getBalance()).rejects.toBeInstanceOf(E.SvcNetworkError);
    expect((await stored(fx.accountId)).row.lastTokenRequestAt).toBeNull();
    await prisma.svcAccount.update({ where: { id: fx.accountId }, data: { baseUrl: sim.url } });
    await (await fx.newClient()).payment.getBalance();
    expect(count("getAccessToken", fx.simAccountId)).toBe(1);
  });
});
