/**
 * What the order pipeline's use cases need from the outside world, passed as an argument so a
 * test can give them the simulators (or fakes) and a clock it controls.
 */
import type { PrismaClient } from "@prisma/client";
import type { ShopGateway } from "../shop/gateway.server";
import type { SvcClient } from "../svc/client.server";

export interface PipelineClock {
  now(): number;
}

export interface FulfilmentDeps {
  prisma: PrismaClient;
  /** A service client bound to a stored account (tokens and rate limits shared in the database). */
  svcFor(accountId: string): Promise<SvcClient>;
  /** The Shopify Admin gateway of a shop (its offline session). */
  shopFor(shopDomain: string): Promise<ShopGateway>;
  clock: PipelineClock;
  /** Tuning; every value has a production default. */
  options?: Partial<PipelineOptions>;
}

export interface PipelineOptions {
  /** How often a short balance is checked again (ms). */
  balanceRecheckMs: number;
  /** How long a pay run goes by the stored known balance before asking the service again (ms). */
  balanceTrustMs: number;
  /** Orders per getOrderDetailBatch call (≤ 100; the contract recommends 20–50). */
  queryBatchSize: number;
  /** A payment batch untouched this long is resumed by the reconciler (ms). */
  staleBatchMs: number;
  /** Held orders whose cause may have gone (paused, unconnected, no account) are re-checked after (ms). */
  heldRecheckMs: number;
  /** Fetch proof of delivery when an order is delivered. */
  proofOfDelivery: boolean;
  /** The exchange rates document (default: FX_RATES_URL). */
  fxRatesUrl?: string;
}

export const DEFAULT_OPTIONS: PipelineOptions = {
  balanceRecheckMs: 5 * 60_000,
  balanceTrustMs: 5 * 60_000,
  queryBatchSize: 50,
  staleBatchMs: 5 * 60_000,
  heldRecheckMs: 10 * 60_000,
  proofOfDelivery: true,
};

export function optionsOf(deps: FulfilmentDeps): PipelineOptions {
  return { ...DEFAULT_OPTIONS, ...deps.options };
}

/** Production wiring: the stored account's client and the shop's offline-session gateway. */
export async function productionDeps(prisma: PrismaClient): Promise<FulfilmentDeps> {
  const [{ svcClientForAccount }, { shopGatewayFor }] = await Promise.all([
    import("../svc/client.server"),
    import("../shop/index.server"),
  ]);
  // One job's deps: a client or gateway asked for twice in the job is read from the database once.
  return {
    prisma,
    svcFor: memo((accountId) => svcClientForAccount(accountId, { prisma })),
    shopFor: memo((shop) => shopGatewayFor(shop)),
    clock: { now: () => Date.now() },
  };
}

/** `make` once per key; a refusal is not kept (the next ask tries again). */
export function memo<T>(make: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const made = new Map<string, Promise<T>>();
  return (key) => {
    let p = made.get(key);
    if (!p) {
      p = make(key);
      made.set(key, p);
      p.catch(() => made.delete(key));
    }
    return p;
  };
}
