/**
 * The typed client of the fulfilment service: one class per concern sharing one transport
 * (stripe-node style), and `svcClientForAccount`, which wires an account's token manager and
 * shared rate limiter.
 *
 * Operations of the contract left out because it does not show their path or shape: saving
 * shop products and batch saving shop variants (Part 2 §4.10); the optional logistics query,
 * uploadWaybillInfo, updateWaybillInfo, getOrderDetail, order list, logistic trackInfo, stock by
 * product id and freight calculation (Part 3 §4.0, §4.5); the dispute notification subscription
 * (Part 1 §6.2); the assistant tool server (Part 1 §4.12, not an HTTP API of this client).
 */
import type { PrismaClient } from "@prisma/client";
import type { Dispatcher } from "undici";
import type { Logger } from "pino";
import { config } from "../config.server";
import { logger as appLogger } from "../logger.server";
import { accountById } from "./accounts.server";
import { AuthResource } from "./auth.server";
import { CatalogResource } from "./catalog.server";
import { ConnectionsResource } from "./connections.server";
import { type Clock, systemClock } from "./clock";
import { DisputesResource } from "./disputes.server";
import { SvcAuthError } from "./errors";
import { DbRateLimiter, type RateScope } from "./limiter.server";
import { LogisticsResource } from "./logistics.server";
import { OrdersResource, PaymentResource } from "./orders.server";
import { InventoryResource, WarehouseResource } from "./storage.server";
import { WebhooksResource } from "./webhooks.server";
import { TokenManager, type TokenManagerOptions } from "./tokens.server";
import { Transport, type RetryOptions, type TransportOptions } from "./transport.server";

export class SvcClient {
  readonly auth: AuthResource;
  readonly catalog: CatalogResource;
  readonly connections: ConnectionsResource;
  readonly orders: OrdersResource;
  readonly payment: PaymentResource;
  readonly logistics: LogisticsResource;
  readonly disputes: DisputesResource;
  readonly inventory: InventoryResource;
  readonly warehouses: WarehouseResource;
  readonly webhooks: WebhooksResource;

  constructor(
    readonly transport: Transport,
    readonly tokens?: TokenManager,
  ) {
    this.auth = new AuthResource(transport);
    this.catalog = new CatalogResource(transport);
    this.connections = new ConnectionsResource(transport);
    this.orders = new OrdersResource(transport);
    this.payment = new PaymentResource(transport);
    this.logistics = new LogisticsResource(transport, config.SVC_LOGISTICS_OPTIONS_PATH);
    this.disputes = new DisputesResource(transport);
    this.inventory = new InventoryResource(transport);
    this.warehouses = new WarehouseResource(transport);
    this.webhooks = new WebhooksResource(transport);
  }

  /** Logs out at the service (both tokens become invalid) and forgets the stored tokens. */
  async logout(): Promise<void> {
    if (!this.tokens) throw new SvcAuthError({ operation: "logout", message: "no account bound" });
    const token = await this.tokens.currentToken();
    if (token) {
      try {
        await this.auth.logout({ token });
      } catch (error) {
        // An already invalid token is as logged out as it gets.
        if (!(error instanceof SvcAuthError)) throw error;
      }
    }
    await this.tokens.clearTokens();
  }
}

export interface SvcClientDeps {
  prisma: PrismaClient;
  clock?: Clock;
  dispatcher?: Dispatcher;
  logger?: TransportOptions["logger"] | Logger;
  connectTimeoutMs?: number;
  timeoutMs?: number;
  retry?: RetryOptions;
  /** Sleep between retries (default: the clock's). */
  retrySleep?: (ms: number) => Promise<void>;
  random?: () => number;
  platformToken?: TransportOptions["platformToken"];
  tokens?: TokenManagerOptions;
  /** Safety margin added to each rate-limit interval (ms). */
  rateMarginMs?: number;
  /** Rate buckets per operation or per account (default: SVC_RATE_SCOPE). */
  rateScope?: RateScope;
  /** Disable the shared limiter (not for production). */
  noLimiter?: boolean;
}

/** A client bound to a stored service account: tokens and rate limits shared through the database. */
export async function svcClientForAccount(
  accountId: string,
  deps: SvcClientDeps,
): Promise<SvcClient> {
  const account = await accountById(deps.prisma, accountId);
  if (!account)
    throw new SvcAuthError({
      operation: "svcClientForAccount",
      message: "service account not found",
    });
  const clock = deps.clock ?? systemClock;
  const limiter = deps.noLimiter
    ? undefined
    : new DbRateLimiter(deps.prisma, {
        accountId,
        callsPerSecond: account.callsPerSecond,
        queryCallsPerSecond: account.queryCallsPerSecond,
        clock,
        marginMs: deps.rateMarginMs,
        scope: deps.rateScope ?? config.SVC_RATE_SCOPE,
      });
  const base = new Transport({
    baseUrl: account.baseUrl,
    limiter,
    dispatcher: deps.dispatcher,
    connectTimeoutMs: deps.connectTimeoutMs,
    timeoutMs: deps.timeoutMs,
    retry: deps.retry,
    sleep: deps.retrySleep ?? ((ms) => clock.sleep(ms)),
    random: deps.random,
    // Log lines carry the account id, operation, code and requestId, never a token or a body.
    logger: deps.logger ?? appLogger.child({ svcAccountId: accountId }),
    platformToken: deps.platformToken,
  });
  const tokens = new TokenManager(deps.prisma, accountId, new AuthResource(base), {
    clock,
    initialRow: account,
    ...deps.tokens,
  });
  return new SvcClient(base.with({ tokens }), tokens);
}

/** A client without an account (e.g. to try an API key before saving it). */
export function svcClient(options: TransportOptions): SvcClient {
  return new SvcClient(new Transport(options));
}
