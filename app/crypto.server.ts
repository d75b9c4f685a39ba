/**
 * Secrets at rest: AES-256-GCM, a random 96-bit IV per value, and a versioned text format, so
 * that the key can change without guessing what a stored value is.
 *
 * - Written: `v2.<kid>.<iv>.<tag>.<ciphertext>` (base64url parts) under `ENCRYPTION_KEY`. The
 *   key id `kid` is the first 8 hex digits of sha256(key): it names the key without revealing
 *   it, and it is authenticated (part of the GCM associated data).
 * - Read: v2 values by their key id, among `ENCRYPTION_KEY` and the retired keys still listed in
 *   `ENCRYPTION_KEYS_OLD`; the first format, `v1.<iv>.<tag>.<ciphertext>` (no key id), by trying
 *   the current key, then each old one.
 * - `needsReencryption` tells a value that is not (yet) under the current key; the secrets
 *   migration (app/db/secrets-migration.server.ts) re-encrypts those, after which the old key
 *   can be dropped from ENCRYPTION_KEYS_OLD.
 *
 * Every function takes the keys explicitly as an option (tests, the migration); by default they
 * come from the configuration. No key and no plaintext ever appears in an error message.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { config } from "./config.server";

const IV_BYTES = 12;
const B64 = "[A-Za-z0-9_-]";
/**
 * The exact shapes of the two formats: base64url of the 12-byte IV is 16 characters, of the
 * 16-byte GCM tag 22.
 */
const V1 = new RegExp(`^v1\\.(${B64}{16})\\.(${B64}{22})\\.(${B64}*)$`);
const V2 = new RegExp(`^v2\\.([0-9a-f]{8})\\.(${B64}{16})\\.(${B64}{22})\\.(${B64}*)$`);

export class SecretDecryptionError extends Error {
  constructor(reason: string) {
    super(`Cannot decrypt the secret: ${reason}`);
    this.name = "SecretDecryptionError";
  }
}

/** Keys as the configuration holds them: base64 of 32 bytes each. */
export interface SecretKeys {
  /** Encrypts everything written; read first. */
  current: string;
  /** Retired keys, still readable. */
  old?: readonly string[];
}

interface Key {
  kid: string;
  bytes: Buffer;
}
interface KeyRing {
  current: Key;
  /** The current key first, then the old ones. */
  all: Key[];
}

function toKey(base64: string): Key {
  const bytes = Buffer.from(base64, "base64");
  if (bytes.length !== 32) throw new Error("An encryption key must be 32 bytes, base64-encoded");
  return { kid: createHash("sha256").update(bytes).digest("hex").slice(0, 8), bytes };
}

/** The key id stored with every value written under `keyBase64`. */
export function keyId(keyBase64: string): string {
  return toKey(keyBase64).kid;
}

function ringOf(keys: SecretKeys): KeyRing {
  const current = toKey(keys.current);
  const all = [current];
  for (const k of keys.old ?? []) {
    const key = toKey(k);
    if (!all.some((a) => a.bytes.equals(key.bytes))) all.push(key);
  }
  return { current, all };
}

let configRing: KeyRing | undefined;
/** A string is one key (and only that key is tried); by default the configured keys. */
function ring(keys?: string | SecretKeys): KeyRing {
  if (typeof keys === "string") return ringOf({ current: keys });
  if (keys) return ringOf(keys);
  return (configRing ??= ringOf({
    current: config.ENCRYPTION_KEY,
    old: config.ENCRYPTION_KEYS_OLD,
  }));
}

function seal(plain: string, key: Key): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key.bytes, iv);
  cipher.setAAD(Buffer.from(`v2.${key.kid}`));
  const ct = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [
    "v2",
    key.kid,
    iv.toString("base64url"),
    cipher.getAuthTag().toString("base64url"),
    ct.toString("base64url"),
  ].join(".");
}

/** The plaintext, or null when the tag does not verify (another key, or tampered). */
function open(key: Key, aad: string, iv: string, tag: string, ct: string): string | null {
  try {
    const decipher = createDecipheriv("aes-256-gcm", key.bytes, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([
      decipher.update(Buffer.from(ct, "base64url")),
      decipher.final(),
    ]).toString("utf8");
  } catch {
    return null;
  }
}

/** Encrypts under the current key (or under `keys`: one key, or a key set's current key). */
export function encryptSecret(plain: string, keys?: string | SecretKeys): string {
  return seal(plain, ring(keys).current);
}

/**
 * Whether `stored` has the exact shape of a value this module wrote (either format). Shopify's
 * tokens (a `shp…_` prefix and hex digits, or 32 hex digits) never do: no dots, no version
 * prefix.
 */
export function isEncryptedSecret(stored: string): boolean {
  return V1.test(stored) || V2.test(stored);
}

/** Decrypts with the configured keys (or `keys`: that one key only, or a key set). */
export function decryptSecret(stored: string, keys?: string | SecretKeys): string {
  const r = ring(keys);
  const v2 = V2.exec(stored);
  if (v2) {
    const [, kid, iv, tag, ct] = v2 as unknown as [string, string, string, string, string];
    const candidates = r.all.filter((k) => k.kid === kid);
    if (candidates.length === 0)
      throw new SecretDecryptionError(
        `written under key id ${kid}, which is neither ENCRYPTION_KEY nor in ENCRYPTION_KEYS_OLD`,
      );
    for (const key of candidates) {
      const plain = open(key, `v2.${kid}`, iv, tag, ct);
      if (plain !== null) return plain;
    }
    throw new SecretDecryptionError("wrong key or tampered value");
  }
  const v1 = V1.exec(stored);
  if (v1) {
    const [, iv, tag, ct] = v1 as unknown as [string, string, string, string];
    for (const key of r.all) {
      const plain = open(key, "v1", iv, tag, ct);
      if (plain !== null) return plain;
    }
    throw new SecretDecryptionError("wrong key or tampered value");
  }
  if (/^v[12]\./.test(stored)) throw new SecretDecryptionError("malformed");
  if (/^v\d+\./.test(stored)) throw new SecretDecryptionError("unsupported version");
  throw new SecretDecryptionError("unknown format");
}

/**
 * True for anything but a v2 value under the current key: a v1 value, a value under an old key,
 * and also a value that is no ciphertext at all.
 */
export function needsReencryption(stored: string, keys?: string | SecretKeys): boolean {
  const v2 = V2.exec(stored);
  return !v2 || v2[1] !== ring(keys).current.kid;
}

/** The same secret under the current key (decrypted with any readable key). */
export function reencryptSecret(stored: string, keys?: SecretKeys): string {
  return encryptSecret(decryptSecret(stored, keys), keys);
}

/** For display: only the last four characters, never more than a quarter of the secret. */
export function maskSecret(secret: string | null | undefined): string {
  if (!secret) return "";
  const visible = secret.length >= 16 ? 4 : 0;
  return `${"•".repeat(8)}${secret.slice(secret.length - visible)}`;
}
