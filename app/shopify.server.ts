import "@shopify/shopify-app-remix/adapters/node";
import {
  ApiVersion,
  AppDistribution,
  shopifyApp,
  LogSeverity,
} from "@shopify/shopify-app-remix/server";
import { PrismaSessionStorage } from "@shopify/shopify-app-session-storage-prisma";
import { config } from "./config.server";
import { prisma } from "./db.server";
import { logger } from "./logger.server";
import { recordInstall } from "./shops.server";

export const sessionStorage = new PrismaSessionStorage(prisma);

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
