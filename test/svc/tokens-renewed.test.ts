/**
 * A token look-up never concludes "authorize again" from a row older than the merchant's
 * renewal (issue 35): a client made while the account had no usable credential (a job's
 * client, made before the merchant authorized again or reconnected) reads the current row
 * before giving up, and uses the renewed token.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { decryptSecret } from "../../app/crypto.server";
import { AuthResource } from "../../app/svc/auth.server";
import * as E from "../../app/svc/errors";
import { NO_TOKENS, TokenManager } from "../../app/svc/tokens.server";
import { closeSvcPools, Transport } from "../../app/svc/transport.server";
import { accountFixture, prisma, simClock, startServiceSim, type ServiceSim } from "./sim-helpers";

// A loaded machine (mutation runs beside other suites) can stretch the first call of a file.
vi.setConfig({ testTimeout: 90_000 });

let sim: ServiceSim;
beforeAll(async () => {
  sim = await startServiceSim({ catalogSize: 5 });
});
afterAll(async () => {
  await closeSvcPools();
  await sim.close();
});

const auth = () =>
  new AuthResource(
    new Transport({ baseUrl: sim.url, timeoutMs: 10_000, retry: { maxAttempts: 1 } }),
  );

async function renewedAccount() {
  const fx = await accountFixture(sim, { callsPerSecond: 10 });
  await fx.client.payment.getBalance(); // tokens stored
  // An authorization-code account (no key): its tokens come only from the merchant's login.
  const renewed = await prisma.svcAccount.update({
    where: { id: fx.accountId },
    data: { authMethod: "authorizationCode", apiKeyEnc: null },
  });
  // What a client made before the renewal saw: no credential at all.
  const stale = { ...renewed, ...NO_TOKENS };
  return { fx, renewed, stale };
}

describe("a renewed authorization", () => {
  it("is used by a client made before it, instead of 'authorize again'", async () => {
    const { fx, renewed, stale } = await renewedAccount();
    const tm = new TokenManager(prisma, fx.accountId, auth(), {
      clock: simClock(sim),
      initialRow: stale,
    });
    expect(await tm.getToken()).toBe(decryptSecret(renewed.accessTokenEnc!));
  });

  it("a row still without a credential must authorize again (read once more, no call)", async () => {
    const { fx, stale } = await renewedAccount();
    await prisma.svcAccount.update({ where: { id: fx.accountId }, data: NO_TOKENS });
    const calls = sim.calls({}).length;
    const tm = new TokenManager(prisma, fx.accountId, auth(), {
      clock: simClock(sim),
      initialRow: stale,
    });
    await expect(tm.getToken()).rejects.toBeInstanceOf(E.SvcReauthorizationRequiredError);
    expect(sim.calls({}).length).toBe(calls);
  });
});
