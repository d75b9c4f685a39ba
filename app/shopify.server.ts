import "@shopify/shopify-app-remix/adapters/node";
import {
  ApiVersion,
  AppDistribution,
  shopifyApp,
  LogSeverity,
} from "@shopify/shopify-app-remix/server";
import { type Session, shopifyApi } from "@shopify/shopify-api";
import { PrismaSessionStorage } from "@shopify/shopify-app-session-storage-prisma";
import { config } from "./config.server";
import { prisma } from "./db.server";
import { logger } from "./logger.server";
import { createOfflineTokens, offlineSessionId } from "./shop/offline-token.server";
import { encryptingSessionStorage } from "./shop/session-crypto.server";
import { cachingSessionStorage, offlineSessionChanged } from "./shop/session-cache.server";
import { recordInstall } from "./shops/shops.server";

/**
 * Prisma, with every access and refresh token encrypted at rest (shop/session-crypto), and the
 * offline sessions kept by this process while the row change feed is up (shop/session-cache).
 */
const prismaStorage = cachingSessionStorage(
  encryptingSessionStorage(new PrismaSessionStorage(prisma)),
);

/**
 * The refresh of an expiring offline token, by the library itself (`auth.refreshToken` of
 * @shopify/shopify-api): shopifyApp does not expose its own instance, so a second one with
 * the same credentials serves it.
 */
const tokenApi = shopifyApi({
  apiKey: config.SHOPIFY_API_KEY,
  apiSecretKey: config.SHOPIFY_API_SECRET,
  apiVersion: ApiVersion.October26,
  scopes: config.SCOPES.split(","),
  hostName: new URL(config.SHOPIFY_APP_URL).host,
  isEmbeddedApp: true,
  ...(config.SHOP_CUSTOM_DOMAIN ? { customShopDomains: [config.SHOP_CUSTOM_DOMAIN] } : {}),
  logger: { level: LogSeverity.Error, log: async () => {} },
});

/**
 * The library's own check of a webhook (HMAC of the raw body with the app secret, required
 * headers), without what `authenticate.webhook` adds around it: a lossy JSON.parse of the body
 * and a load (possibly a refresh) of the shop's offline session, which the intake never uses
 * and which cost the acknowledgement a database round trip, or a token refresh, each time.
 */
export const validateShopifyWebhook = (request: Request, rawBody: string) =>
  tokenApi.webhooks.validate({ rawBody, rawRequest: request });

/** Offline tokens refreshed once for every process (app/shop/offline-token.server.ts). */
export const offlineTokens = createOfflineTokens({
  db: prisma,
  load: (id) => prismaStorage.loadSession(id),
  changed: offlineSessionChanged,
  refresh: async (shop, refreshToken) =>
    (await tokenApi.auth.refreshToken({ shop, refreshToken })).session,
  log: (level, msg, data) => logger[level]({ source: "offline-token", ...data }, msg),
});

/**
 * The library's session storage: Prisma, except that loading a shop's offline session
 * refreshes it first when it expires soon (under the shared lock), so that no library path
 * (`unauthenticated.admin`, `authenticate.webhook`, …) spends the refresh token on its own.
 */
export const sessionStorage = {
  storeSession: (session: Session) => prismaStorage.storeSession(session),
  loadSession: (id: string): Promise<Session | undefined> => {
    const shop = id.startsWith("offline_") ? id.slice("offline_".length) : null;
    return shop && offlineSessionId(shop) === id
      ? offlineTokens.fresh(shop)
      : prismaStorage.loadSession(id);
  },
  deleteSession: (id: string) => prismaStorage.deleteSession(id),
  deleteSessions: (ids: string[]) => prismaStorage.deleteSessions(ids),
  findSessionsByShop: (shop: string) => prismaStorage.findSessionsByShop(shop),
};

const shopify = shopifyApp({
  apiKey: config.SHOPIFY_API_KEY,
  apiSecretKey: config.SHOPIFY_API_SECRET,
  apiVersion: ApiVersion.October26,
  scopes: config.SCOPES.split(","),
  appUrl: config.SHOPIFY_APP_URL,
  authPathPrefix: "/auth",
  sessionStorage,
  distribution: AppDistribution.AppStore,
  future: {
    unstable_newEmbeddedAuthStrategy: true,
    expiringOfflineAccessTokens: true,
  },
  logger: {
    level: config.NODE_ENV === "test" ? LogSeverity.Error : LogSeverity.Info,
    log: async (severity, message) => {
      const level =
        severity <= LogSeverity.Error
          ? "error"
          : severity === LogSeverity.Warning
            ? "warn"
            : "info";
      logger[level]({ source: "shopify" }, message);
    },
  },
  hooks: {
    afterAuth: async ({ session }) => {
      await recordInstall(prisma, session.shop, session.scope);
    },
  },
  ...(config.SHOP_CUSTOM_DOMAIN ? { customShopDomains: [config.SHOP_CUSTOM_DOMAIN] } : {}),
});

export default shopify;
export const apiVersion = ApiVersion.October26;
export const addDocumentResponseHeaders = shopify.addDocumentResponseHeaders;
export const authenticate = shopify.authenticate;
export const unauthenticated = shopify.unauthenticated;
export const login = shopify.login;
export const registerWebhooks = shopify.registerWebhooks;
