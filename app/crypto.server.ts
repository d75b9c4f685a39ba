/**
 * Secrets at rest: AES-256-GCM under `config.ENCRYPTION_KEY` (32 bytes, base64), a random
 * 96-bit IV per value, and a versioned text format `v1.<iv>.<tag>.<ciphertext>` (base64url), so
 * the key or the algorithm can change later without guessing what a stored value is.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { config } from "./config.server";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretDecryptionError extends Error {
  constructor(reason: string) {
    super(`Cannot decrypt the secret: ${reason}`);
    this.name = "SecretDecryptionError";
  }
}

function keyFrom(base64: string): Buffer {
  const key = Buffer.from(base64, "base64");
  if (key.length !== 32) throw new Error("ENCRYPTION_KEY must be 32 bytes, base64-encoded");
  return key;
}

let defaultKey: Buffer | undefined;
function currentKey(keyBase64?: string): Buffer {
  if (keyBase64) return keyFrom(keyBase64);
  return (defaultKey ??= keyFrom(config.ENCRYPTION_KEY));
}

export function encryptSecret(plain: string, keyBase64?: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", currentKey(keyBase64), iv);
  cipher.setAAD(Buffer.from(VERSION));
  const ct = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [
    VERSION,
    iv.toString("base64url"),
    tag.toString("base64url"),
    ct.toString("base64url"),
  ].join(".");
}

export function decryptSecret(stored: string, keyBase64?: string): string {
  const parts = stored.split(".");
  if (parts.length !== 4) throw new SecretDecryptionError("unknown format");
  const [version, ivText, tagText, ctText] = parts as [string, string, string, string];
  if (version !== VERSION)
    throw new SecretDecryptionError(`unsupported version ${version.slice(0, 8)}`);
  const iv = Buffer.from(ivText, "base64url");
  const tag = Buffer.from(tagText, "base64url");
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES)
    throw new SecretDecryptionError("malformed");
  try {
    const decipher = createDecipheriv("aes-256-gcm", currentKey(keyBase64), iv);
    decipher.setAAD(Buffer.from(VERSION));
    decipher.setAuthTag(tag);
    return Buffer.concat([
      decipher.update(Buffer.from(ctText, "base64url")),
      decipher.final(),
    ]).toString("utf8");
  } catch {
    throw new SecretDecryptionError("wrong key or tampered value");
  }
}

/** For display: only the last four characters, never more than a quarter of the secret. */
export function maskSecret(secret: string | null | undefined): string {
  if (!secret) return "";
  const visible = secret.length >= 16 ? 4 : 0;
  return `${"•".repeat(8)}${secret.slice(secret.length - visible)}`;
}
