/**
 * The shop's service account as the merchant sees and manages it: connect with an API key or
 * through the authorization-code flow, disconnect, register the service webhooks, and a status
 * in which every secret is masked.
 */
import { randomBytes } from "node:crypto";
import type { PrismaClient, SvcAccount } from "@prisma/client";
import { config } from "../config.server";
import { decryptSecret, maskSecret } from "../crypto.server";
import { logger } from "../logger.server";
import { partnerAuthFlow } from "../svc-partner.server";
import {
  NO_TOKENS_OR_WEBHOOK,
  SvcAuthError,
  SvcError,
  SvcWebhookExistsError,
  saveApiKeyAccount,
  startAuthorization,
  svcClient,
  svcClientForAccount,
  tokenColumns,
  type SvcClient,
} from "../svc/index.server";

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

/** The callback address of the service's webhooks: the secret is the only credential. */
export function svcWebhookUrl(secret: string): string {
  return `${config.SHOPIFY_APP_URL.replace(/\/$/, "")}/webhooks/svc/${secret}`;
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
    webhookUrlMasked: account?.webhookSecret
      ? svcWebhookUrl(maskSecret(account.webhookSecret))
      : null,
    lastEventAt: lastEvent?.receivedAt.toISOString() ?? null,
    lastEventTopic: lastEvent?.topic ?? null,
    canConnect: Boolean(config.SVC_BASE_URL),
    canAuthorize: Boolean(config.SVC_BASE_URL && config.SVC_PARTNER_API_KEY),
  };
}

/** The balance, or a sentence saying why it is not known (never throws). */
export async function balanceOf(
  db: PrismaClient,
  shop: string,
): Promise<{ amount: string | null; error: string | null }> {
  try {
    const client = await clientForShop(db, shop);
    if (!client) return { amount: null, error: "Not connected" };
    const b = await client.payment.getBalance();
    return { amount: String(b.amount), error: null };
  } catch (error) {
    return { amount: null, error: describeSvcError(error) };
  }
}

/** A sentence for the merchant; SvcError messages never carry tokens or keys. */
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
 * Connects with an API key: the key is tried first (getAccessToken), and only a key the service
 * accepts is stored (encrypted, with the token it returned). Then the webhooks are registered.
 */
export async function connectWithApiKey(
  db: PrismaClient,
  shop: string,
  apiKey: string,
): Promise<{ webhookError: string | null }> {
  const baseUrl = requireBaseUrl();
  let rec;
  try {
    rec = await svcClient({ baseUrl, timeoutMs: 15_000 }).auth.getAccessToken(apiKey);
  } catch (error) {
    if (error instanceof SvcAuthError) {
      throw new AccountError("The service refused this API key", "apiKey");
    }
    throw new AccountError(describeSvcError(error));
  }
  const account = await saveApiKeyAccount(db, { baseUrl, apiKey, shopDomain: shop });
  await db.svcAccount.update({
    where: { id: account.id },
    data: {
      ...tokenColumns(rec, Date.now()),
      // The token was just requested: the 5-minute rule of getAccessToken counts from now.
      lastTokenRequestAt: new Date(),
      ...(rec.openId ? { openId: rec.openId } : {}),
    },
  });
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

/** webhook/set for ORDER, LOGISTIC and PRODUCT with the shop's secret address. */
export async function registerWebhooks(db: PrismaClient, shop: string): Promise<void> {
  const account = await accountOf(db, shop);
  if (!account) throw new AccountError("Connect a service account first");
  let secret = account.webhookSecret;
  if (!secret) {
    secret = randomBytes(32).toString("base64url");
    await db.svcAccount.update({ where: { id: account.id }, data: { webhookSecret: secret } });
  }
  const client = await svcClientForAccount(account.id, { prisma: db, timeoutMs: 10_000 });
  const section = { type: "ENABLE" as const, callbackUrls: [svcWebhookUrl(secret)] };
  try {
    await client.webhooks.set({ order: section, logistics: section, product: section });
  } catch (error) {
    if (!(error instanceof SvcWebhookExistsError)) throw new AccountError(describeSvcError(error));
  }
  await db.svcAccount.update({
    where: { id: account.id },
    data: { webhookRegisteredAt: new Date() },
  });
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
 * Disconnects: cancels the webhooks and logs out at the service (best effort: a dead token is
 * as logged out as it gets), then forgets every secret and detaches the account from the shop.
 */
export async function disconnect(db: PrismaClient, shop: string): Promise<void> {
  const account = await accountOf(db, shop);
  if (!account) return;
  try {
    const client = await svcClientForAccount(account.id, { prisma: db, timeoutMs: 10_000 });
    if (account.webhookSecret) {
      const cancel = { type: "CANCEL" as const, callbackUrls: [] };
      await client.webhooks
        .set({ order: cancel, logistics: cancel, product: cancel })
        .catch(() => {});
    }
    await client.logout();
  } catch (error) {
    logger.warn({ shop, err: describeSvcError(error) }, "logout at the service failed");
  }
  await db.svcAccount.update({
    where: { id: account.id },
    data: {
      shopDomain: null,
      apiKeyEnc: null,
      ...NO_TOKENS_OR_WEBHOOK,
    },
  });
}
