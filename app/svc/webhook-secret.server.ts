/**
 * The secret in a service webhook address (`/webhooks/svc/<secret>`) is a credential: it is
 * stored encrypted (to build the address again when registering) and as a SHA-256 hash (to
 * find the account(s) an incoming webhook belongs to without decrypting anything).
 */
import { createHash, randomBytes } from "node:crypto";
import { encryptSecret } from "../crypto.server";

/** A new random secret: 32 bytes, base64url (43 characters). */
export function newWebhookSecret(): string {
  return randomBytes(32).toString("base64url");
}

/** The hash an incoming webhook's secret is looked up by. */
export function hashWebhookSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** The SvcAccount columns that store a webhook secret (never the clear `webhookSecret`). */
export function webhookSecretColumns(secret: string) {
  return {
    webhookSecretEnc: encryptSecret(secret),
    webhookSecretHash: hashWebhookSecret(secret),
  };
}
