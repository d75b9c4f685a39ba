/** Shared setup of the contract tests: the service simulator, a stored account and clients. */
import { Writable } from "node:stream";
import pino from "pino";
import { prisma } from "../../app/db.server";
import {
  svcClientForAccount,
  type SvcClient,
  type SvcClientDeps,
} from "../../app/svc/client.server";
import type { Clock } from "../../app/svc/clock";
import { saveApiKeyAccount } from "../../app/svc/tokens.server";
import { startServiceSim, type ServiceSim } from "../sim/service/index";

export type { ServiceSim };
export { prisma, startServiceSim };

/** The client's clock follows the simulator's (real time plus the same movable offset). */
export function simClock(sim: ServiceSim): Clock {
  return {
    now: () => sim.clock.now(),
    sleep: (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms))),
  };
}

export interface Fixture {
  sim: ServiceSim;
  accountId: string;
  apiKey: string;
  simAccountId: string;
  client: SvcClient;
  newClient(over?: Partial<SvcClientDeps>): Promise<SvcClient>;
}

export async function accountFixture(
  sim: ServiceSim,
  opts: {
    balance?: string;
    callsPerSecond?: number;
    queryCallsPerSecond?: number;
    deps?: Partial<SvcClientDeps>;
  } = {},
): Promise<Fixture> {
  const simAccount = sim.createAccount({
    balance: opts.balance ?? "1000.00",
    callsPerSecond: opts.callsPerSecond,
    queryCallsPerSecond: opts.queryCallsPerSecond,
  });
  const row = await saveApiKeyAccount(prisma, {
    baseUrl: sim.url,
    apiKey: simAccount.apiKey,
    callsPerSecond: opts.callsPerSecond,
    queryCallsPerSecond: opts.queryCallsPerSecond,
  });
  const newClient = (over: Partial<SvcClientDeps> = {}) =>
    svcClientForAccount(row.id, {
      prisma,
      clock: simClock(sim),
      timeoutMs: 3_000,
      retry: { maxAttempts: 5, baseDelayMs: 20, maxDelayMs: 200 },
      retrySleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      ...opts.deps,
      ...over,
    });
  return {
    sim,
    accountId: row.id,
    apiKey: simAccount.apiKey,
    simAccountId: simAccount.accountId,
    client: await newClient(),
    newClient,
  };
}

/** A pino logger writing into an array (level trace). */
export function captureLogger() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { lines, logger: pino({ level: "trace" }, sink) };
}

export async function expectCode(
  p: Promise<unknown>,
  code: number,
  Cls?: abstract new (...a: never[]) => Error,
) {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (e === undefined) throw new Error(`expected code ${code}, the call succeeded`);
  if (Cls && !(e instanceof Cls)) throw new Error(`expected ${Cls.name}, got ${String(e)}`);
  const c = (e as { code?: number }).code;
  if (c !== code) throw new Error(`expected code ${code}, got ${String(c)}: ${String(e)}`);
  return e;
}

export const sampleOrder = (
  orderNumber: string,
  vid: string,
  over: Record<string, unknown> = {},
) => ({
  orderNumber,
  shippingCountryCode: "US",
  shippingCountry: "United States",
  shippingProvince: "California",
  shippingCity: "Los Angeles",
  shippingCustomerName: "Jo Doe",
  shippingAddress: "1 Main St",
  shippingZip: "90001",
  shippingPhone: "5550100",
  logisticName: "SvcPacket Ordinary",
  fromCountryCode: "CN",
  isSandbox: 1 as const,
  products: [{ vid, quantity: 1 }],
  ...over,
});
