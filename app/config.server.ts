/**
 * The app's configuration: the environment, parsed once with zod. This is the only module
 * that reads `process.env`; everything else imports `config`.
 *
 * In production a missing or malformed variable stops the start with one message that names
 * every bad variable. In development and tests, the Shopify credentials fall back to
 * placeholders so that the app, the tests and the sandbox run without a Partner account.
 */
import { parseBucketUrl } from "./archive/bucket.server";
import { existsSync } from "node:fs";
import { z } from "zod";

/**
 * As shopify.app.toml [access_scopes] (read_locations: fulfilment orders grouped by location;
 * read_inventory/write_inventory: the supplier's stock set on the shop's variants).
 */
const DEFAULT_SCOPES =
  "read_orders,read_products,write_products,read_merchant_managed_fulfillment_orders,write_merchant_managed_fulfillment_orders,read_locations,read_inventory,write_inventory";

const flag = z
  .enum(["0", "1", "true", "false", ""])
  .default("0")
  .transform((v) => v === "1" || v === "true");

const postgresUrl = z
  .string()
  .refine((v) => /^postgres(ql)?:\/\//.test(v), "must be a postgresql:// URL")
  .refine((v) => URL.canParse(v), "must be a valid URL");

const base = z.object({
  NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  // The HTTP server (server/app-server.ts). HOST unset: every interface (as remix-serve did).
  HOST: z.string().min(1).max(255).optional(),
  /**
   * How many reverse proxies (load balancer, CDN) stand in front of the app: only then are
   * X-Forwarded-For / X-Forwarded-Proto believed, and only that many hops deep. "off" or 0
   * (the default): the socket's own address and protocol.
   */
  TRUST_PROXY: z
    .union([z.literal("off"), z.literal("false"), z.coerce.number().int().min(0).max(10)])
    .default(0)
    .transform((v) => (typeof v === "number" ? v : 0)),
  /** Longer than the load balancer's idle timeout (60 s on most), so it closes first. */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(65_000),
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).max(120_000).default(20_000),
  /**
   * Requests in progress at once; past it a request is answered 503 with Retry-After at once
   * (the health and readiness probes excepted), so that a flood of webhooks costs a short
   * answer each instead of memory and time-outs. Shopify and the service retry a 503.
   */
  HTTP_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(100_000).default(256),
  /** The whole request, body included, must arrive within this (408 otherwise). */
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  /**
   * Shopify webhook bodies. Shopify documents no cap for HTTPS deliveries (its staff speak of
   * "upwards of a megabyte" for large orders); raise this if large orders' webhooks get 413.
   */
  SHOPIFY_WEBHOOK_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
  /** After SIGTERM: in-flight requests and jobs get this long, then the process exits anyway. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  SHOPIFY_API_KEY: z.string().min(1).optional(),
  SHOPIFY_API_SECRET: z.string().min(1).optional(),
  SHOPIFY_APP_URL: z.url().optional(),
  SCOPES: z.string().min(1).default(DEFAULT_SCOPES),
  SHOP_CUSTOM_DOMAIN: z.string().min(1).optional(),
  DATABASE_URL: postgresUrl.optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
  PGLITE_DATA_DIR: z.string().min(1).default("./data/pglite"),
  ENCRYPTION_KEY: z
    .string()
    .refine(
      (v) => Buffer.from(v, "base64").length === 32,
      "must be 32 bytes, base64-encoded (openssl rand -base64 32)",
    )
    .optional(),
  /**
   * Retired encryption keys, comma-separated (base64 of 32 bytes each): values written under
   * them stay readable until `npm run secrets:rotate` re-encrypts them under ENCRYPTION_KEY.
   */
  ENCRYPTION_KEYS_OLD: z
    .string()
    .transform((v, ctx) => {
      const keys = v
        .split(",")
        .map((k) => k.trim())
        .filter(Boolean);
      keys.forEach((k, i) => {
        // Never the value: it is a key.
        if (Buffer.from(k, "base64").length !== 32)
          ctx.addIssue({
            code: "custom",
            message: `entry ${i + 1} of ${keys.length} must be 32 bytes, base64-encoded (openssl rand -base64 32)`,
          });
      });
      return keys;
    })
    .default([]),
  SANDBOX: flag,
  /**
   * Exchange rates to USD (prices go to the service in USD): the ECB's daily euro reference
   * rates XML, or a document of the same shape. "off": no source, only USD shops and
   * merchant-set rates (an empty value counts as unset, like every variable here, so it cannot
   * mean "off").
   */
  FX_RATES_URL: z
    .union([z.url(), z.literal("off")])
    .default("https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml")
    .transform((v) => (v === "off" ? "" : v)),
  /**
   * The path (under /api2.0/v1) of the service's optional logistics query, which the contract
   * names without showing (§4.5); the order id goes as `svcOrderId` in a POST body.
   */
  SVC_LOGISTICS_OPTIONS_PATH: z
    .string()
    .regex(/^\/[\w/.-]{1,200}$/, "a path starting with /")
    .default("/shopping/order/getOptionalLogistics"),
  /** The fulfilment service's base URL (paths /api2.0/v1/… are appended). Needed to connect. */
  SVC_BASE_URL: z.url().optional(),
  /**
   * An S3-compatible bucket for the app's files (proof of delivery, warehouse photos, dispute
   * attachments): https://<key id>:<secret>@<host>/<bucket>?region=<region>. Unset: PostgreSQL.
   */
  ARCHIVE_S3_URL: z
    .url()
    .refine((v) => {
      try {
        parseBucketUrl(v);
        return true;
      } catch {
        return false;
      }
    }, "must be http(s)://<access key id>:<secret>@<host>/<bucket>[?region=<region>]")
    .optional(),
  /**
   * The app operator's own (independent merchant) API key at the service: it enables the
   * "Connect" button of the authorization-code flow for affiliated merchants. Optional.
   */
  SVC_PARTNER_API_KEY: z.string().min(1).max(200).optional(),
  /**
   * How the service's per-account rate limit is counted: per operation (the contract states a
   * rate per endpoint) or for all ordinary operations together (stricter, slower).
   */
  SVC_RATE_SCOPE: z.enum(["operation", "account"]).default("operation"),
  /**
   * Sandbox only (SANDBOX=1): the shop simulator's address, for the "Place a test customer
   * order" button. The service simulator's admin API is found at SVC_BASE_URL.
   */
  SANDBOX_SHOP_SIM_URL: z.url().optional(),
  /**
   * The merchant's notification emails (app/notify): the SMTP server, as
   * smtp://user:password@host:587 (STARTTLS when offered) or smtps://…:465. Unset: nothing is
   * sent, and the settings page says so. The password never reaches a log line.
   */
  SMTP_URL: z
    .string()
    .refine((v) => /^smtps?:\/\//.test(v) && URL.canParse(v), "must be an smtp:// or smtps:// URL")
    .optional(),
  /**
   * The sender of those emails, e.g. "Dropship Autopilot <alerts@example.com>". Unset:
   * no-reply@ the app's host name (SMTP servers refuse a sender domain without a dot, so a
   * host like localhost becomes localhost.localdomain).
   */
  MAIL_FROM: z.string().min(3).max(200).optional(),
  /** Sandbox only: the mail catcher's address, for the sandbox's page of caught emails. */
  SANDBOX_MAIL_SIM_URL: z.url().optional(),
  /** Run the job worker inside the web process (default: yes on the embedded database). */
  WORKER_IN_PROCESS: z.enum(["0", "1", "true", "false"]).optional(),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /**
   * Operator metrics (app/metrics.server.ts). METRICS_TOKEN: `/metrics` on the app's port
   * answers only `Authorization: Bearer <token>` (unset: not served there). METRICS_PORT: a
   * separate listener for Prometheus (workers need it; 0 picks a free port and logs it).
   */
  METRICS_TOKEN: z
    .string()
    .min(16, "must be at least 16 characters")
    .max(512)
    .regex(/^\S+$/, "must not contain spaces")
    .optional(),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().min(1).default("0.0.0.0"),
});

/** Variables production cannot run without. */
const REQUIRED_IN_PRODUCTION = [
  "SHOPIFY_API_KEY",
  "SHOPIFY_API_SECRET",
  "SHOPIFY_APP_URL",
  "ENCRYPTION_KEY",
] as const;

export type Config = Omit<
  z.infer<typeof base>,
  (typeof REQUIRED_IN_PRODUCTION)[number] | "WORKER_IN_PROCESS" | "MAIL_FROM"
> & {
  WORKER_IN_PROCESS: boolean;
  MAIL_FROM: string;
  SHOPIFY_API_KEY: string;
  SHOPIFY_API_SECRET: string;
  SHOPIFY_APP_URL: string;
  ENCRYPTION_KEY: string;
  /** True when no DATABASE_URL is set and the app runs its own embedded PGlite. */
  embeddedDatabase: boolean;
};

function defaultMailFrom(appUrl: string | undefined): string {
  const host = appUrl ? new URL(appUrl).hostname : "localhost";
  return `Dropship Autopilot <no-reply@${host.includes(".") ? host : `${host}.localdomain`}>`;
}

/** A fixed development-only key: data encrypted with it is readable by anyone with the code. */
const DEV_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString("base64");

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration: ${problems.join("; ")}`);
    this.name = "ConfigError";
  }
}

/** Parses an environment. Pure: throws ConfigError listing every bad variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  // An empty value counts as unset (shells and .env files produce them).
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v !== ""),
  );
  const problems: string[] = [];
  const parsed = base.safeParse(cleaned);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      // Never echo the value: it may be a secret.
      problems.push(`${issue.path.join(".")} ${issue.message}`);
    }
  }
  const nodeEnv = (parsed.success ? parsed.data.NODE_ENV : cleaned.NODE_ENV) ?? "development";
  if (nodeEnv === "production") {
    for (const name of REQUIRED_IN_PRODUCTION) {
      if (!cleaned[name]) problems.push(`${name} is required in production`);
    }
    if (cleaned.SANDBOX === "1" || cleaned.SANDBOX === "true") {
      problems.push("SANDBOX must not be set in production");
    }
  }
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  const data = parsed.data;
  return {
    ...data,
    SHOPIFY_API_KEY: data.SHOPIFY_API_KEY ?? "dev-api-key",
    SHOPIFY_API_SECRET: data.SHOPIFY_API_SECRET ?? "dev-api-secret",
    SHOPIFY_APP_URL: data.SHOPIFY_APP_URL ?? `http://localhost:${data.PORT}`,
    MAIL_FROM: data.MAIL_FROM ?? defaultMailFrom(data.SHOPIFY_APP_URL),
    ENCRYPTION_KEY: data.ENCRYPTION_KEY ?? DEV_ENCRYPTION_KEY,
    embeddedDatabase: !data.DATABASE_URL,
    WORKER_IN_PROCESS:
      data.WORKER_IN_PROCESS === undefined
        ? !data.DATABASE_URL
        : data.WORKER_IN_PROCESS === "1" || data.WORKER_IN_PROCESS === "true",
  };
}

function loadConfig(): Config {
  // A local .env is a convenience for development; real deployments set the environment.
  // process.loadEnvFile never overrides variables that are already set.
  if (existsSync(".env") && process.env.NODE_ENV !== "test") process.loadEnvFile(".env");
  try {
    return parseConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError && process.env.NODE_ENV === "production") {
      // Stop the start with one readable line rather than a stack trace.
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

export const config: Config = loadConfig();
