/**
 * Keys and values for the secrets tests: three independent keys, and a writer of the first
 * format (`v1.<iv>.<tag>.<ct>`, no key id) as the app wrote it before key rotation existed.
 */
import { createCipheriv, randomBytes } from "node:crypto";

export const KEY_A = randomBytes(32).toString("base64");
export const KEY_B = randomBytes(32).toString("base64");
export const KEY_C = randomBytes(32).toString("base64");

/** A value in the v1 format, as app/crypto.server.ts wrote it before key ids. */
export function legacyV1(plain: string, keyBase64: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", Buffer.from(keyBase64, "base64"), iv);
  cipher.setAAD(Buffer.from("v1"));
  const ct = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return ["v1", iv, cipher.getAuthTag(), ct]
    .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
    .join(".");
}

/** A token in the shape Shopify gives them (prefix and 32 hex digits). */
export const shopifyLike = (prefix: string) => `${prefix}_${randomBytes(16).toString("hex")}`;
