/**
 * The shop's service account as the merchant sees and manages it: connect with an API key or
 * through the authorization-code flow, disconnect, register the service webhooks, and a status
 * in which every secret is masked.
 */
import { balanceSeen } from "../orders/recheck.server";
import type { PrismaClient, SvcAccount } from "@prisma/client";
import { config } from "../config.server";
import { decryptSecret, maskSecret } from "../crypto.server";
import { logger } from "../logger.server";
import { startAuthorization } from "./authorize.server";
import { partnerAuthFlow } from "./partner.server";
import { ConnectError, connectApiKey } from "./connect.server";
import {
  registerAccountWebhooks,
  releaseAccount,
  svcWebhookUrl,
  webhookProblem,
  webhookSecretOf,
} from "./webhooks.server";
import { SvcBusyError, SvcNetworkError, SvcServerError, SvcTransientError } from "../svc/errors";
import { SvcError, svcClient, svcClientForAccount, type SvcClient } from "../svc/index.server";

export { svcWebhookUrl };

export class AccountError extends Error {
  constructor(
    message: string,
    /** The form field the message belongs to, when it belongs to one. */
    readonly field?: string,
  ) {
    super(message);
    this.name = "AccountError";
  }
}

export async function accountOf(db: PrismaClient, shop: string): Promise<SvcAccount | null> {
  return db.svcAccount.findUnique({ where: { shopDomain: shop } });
}

export async function clientForShop(db: PrismaClient, shop: string): Promise<SvcClient | null> {
  const account = await accountOf(db, shop);
  if (!account) return null;
  return svcClientForAccount(account.id, { prisma: db, timeoutMs: 10_000 });
}

export interface AccountStatus {
  connected: boolean;
  authMethod: string | null;
  /** The API key, masked (last four characters at most). */
  apiKeyMasked: string;
  tokenExpiresAt: string | null;
  tokenValid: boolean;
  refreshExpiresAt: string | null;
  webhookRegisteredAt: string | null;
  /** Why the webhooks are not registered, when a registration failed (plain words). */
  webhookProblem: string | null;
  /** The callback address with its secret masked. */
  webhookUrlMasked: string | null;
  lastEventAt: string | null;
  lastEventTopic: string | null;
  canConnect: boolean;
  canAuthorize: boolean;
}

export async function accountStatus(db: PrismaClient, shop: string): Promise<AccountStatus> {
  const account = await accountOf(db, shop);
  const lastEvent = await db.webhookEvent.findFirst({
    where: { shopDomain: shop, source: "svc" },
    orderBy: { receivedAt: "desc" },
    select: { receivedAt: true, topic: true },
  });
  let apiKeyMasked = "";
  if (account?.apiKeyEnc) {
    try {
      apiKeyMasked = maskSecret(decryptSecret(account.apiKeyEnc));
    } catch {
      apiKeyMasked = maskSecret("unreadable");
    }
  }
  const now = Date.now();
  const connected = Boolean(
    account && (account.accessTokenEnc || account.refreshTokenEnc || account.apiKeyEnc),
  );
  return {
    connected,
    authMethod: account?.authMethod ?? null,
    apiKeyMasked,
    tokenExpiresAt: account?.accessTokenExpiresAt?.toISOString() ?? null,
    tokenValid: Boolean(
      account?.accessTokenEnc &&
        account.accessTokenExpiresAt &&
        account.accessTokenExpiresAt.getTime() > now,
    ),
    refreshExpiresAt: account?.refreshTokenExpiresAt?.toISOString() ?? null,
    webhookRegisteredAt: account?.webhookRegisteredAt?.toISOString() ?? null,
    webhookProblem: account && connected ? await webhookProblem(db, account) : null,
    webhookUrlMasked: account ? maskedWebhookUrl(account) : null,
    lastEventAt: lastEvent?.receivedAt.toISOString() ?? null,
    lastEventTopic: lastEvent?.topic ?? null,
    canConnect: Boolean(config.SVC_BASE_URL),
    canAuthorize: Boolean(config.SVC_BASE_URL && config.SVC_PARTNER_API_KEY),
  };
}

function maskedWebhookUrl(account: SvcAccount): string | null {
  if (!account.webhookSecretEnc) return null;
  return svcWebhookUrl(maskSecret(webhookSecretOf(account) ?? "unreadable"));
}

/**
 * The balance, or a sentence saying why it is not known (never throws). `outage`: the service
 * did not answer (down, overloaded, unreachable), as opposed to refusing the request.
 */
export async function balanceOf(
  db: PrismaClient,
  shop: string,
): Promise<{ amount: string | null; error: string | null; outage: boolean }> {
  try {
    const account = await accountOf(db, shop);
    if (!account) return { amount: null, error: "Not connected", outage: false };
    const client = await svcClientForAccount(account.id, { prisma: db, timeoutMs: 10_000 });
    const b = await client.payment.getBalance();
    // Seen after a top-up: orders held for a short balance go on now.
    await balanceSeen(db, account, String(b.amount), Date.now());
    return { amount: String(b.amount), error: null, outage: false };
  } catch (error) {
    return { amount: null, error: describeSvcError(error), outage: isOutage(error) };
  }
}

/** The service is down or unreachable (not: it refused, or the account is not connected). */
export function isOutage(error: unknown): boolean {
  if (error instanceof SvcError) {
    return (
      error instanceof SvcServerError ||
      error instanceof SvcNetworkError ||
      error instanceof SvcBusyError ||
      error instanceof SvcTransientError
    );
  }
  return !(error instanceof AccountError);
}

export function describeSvcError(error: unknown): string {
  if (error instanceof SvcError) return `${error.message} (${error.name})`;
  if (error instanceof AccountError) return error.message;
  logger.warn({ err: error instanceof Error ? error.message : String(error) }, "service call");
  return "The service could not be reached";
}

function requireBaseUrl(): string {
  if (!config.SVC_BASE_URL) {
    throw new AccountError(
      "The app is not configured with the service address (SVC_BASE_URL); ask its operator.",
    );
  }
  return config.SVC_BASE_URL;
}

/**
 * Connects with an API key through the guarded token path (app/svc-account/connect.server.ts:
 * at most one getAccessToken per 5 minutes, however often the button is clicked), then
 * registers the webhooks. Only a key the service accepts is stored.
 */
export async function connectWithApiKey(
  db: PrismaClient,
  shop: string,
  apiKey: string,
): Promise<{ webhookError: string | null }> {
  const baseUrl = requireBaseUrl();
  try {
    await connectApiKey(db, {
      shop,
      baseUrl,
      apiKey,
      tryKey: (key) => svcClient({ baseUrl, timeoutMs: 15_000 }).auth.getAccessToken(key),
    });
  } catch (error) {
    if (error instanceof ConnectError) throw new AccountError(error.message, error.field);
    throw new AccountError(describeSvcError(error));
  }
  return { webhookError: await registerWebhooksQuietly(db, shop) };
}

/** Starts the authorization-code flow: the address of the service's authorization page. */
export async function startConnect(db: PrismaClient, shop: string, sandbox: boolean) {
  requireBaseUrl();
  const deps = await partnerAuthFlow(db);
  if (!deps) {
    throw new AccountError(
      "The Connect button needs the operator's partner key (SVC_PARTNER_API_KEY); use an API key.",
    );
  }
  const app = config.SHOPIFY_APP_URL.replace(/\/$/, "");
  const redirectUri = sandbox
    ? `${app}/app/settings`
    : `https://${shop}/admin/apps/${config.SHOPIFY_API_KEY}/app/settings`;
  try {
    const { url } = await startAuthorization(deps, {
      shopDomain: shop,
      callbackUri: `${app}/svc/auth/callback`,
      redirectUri,
    });
    return url;
  } catch (error) {
    throw new AccountError(describeSvcError(error));
  }
}

/**
 * webhook/set for ORDER, LOGISTIC, PRODUCT and STOCK with the account's secret address (shared with
 * the other shops on the same service account). Also lifts a pause of the deliveries.
 */
export async function registerWebhooks(db: PrismaClient, shop: string): Promise<void> {
  const account = await accountOf(db, shop);
  if (!account || !(account.apiKeyEnc || account.accessTokenEnc || account.refreshTokenEnc)) {
    throw new AccountError("Connect a service account first");
  }
  try {
    await registerAccountWebhooks(db, account.id);
  } catch (error) {
    throw new AccountError(describeSvcError(error));
  }
}

async function registerWebhooksQuietly(db: PrismaClient, shop: string): Promise<string | null> {
  try {
    await registerWebhooks(db, shop);
    return null;
  } catch (error) {
    return describeSvcError(error);
  }
}

/**
 * Disconnects: cancels the webhooks and logs out at the service (best effort, and not while
 * another shop still uses the same service account), then forgets every secret and detaches
 * the account from the shop.
 */
export async function disconnect(db: PrismaClient, shop: string): Promise<void> {
  const account = await accountOf(db, shop);
  if (!account) return;
  await releaseAccount(db, account.id, { detach: true });
}
