/**
 * Key rotation in app/crypto.server.ts, with explicit keys (the configuration is parsed once
 * per process): a value names its key; old keys stay readable; v1 values (no key id) are read
 * with the current key, then the old ones; a wrong key says so without the key or the value.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../../app/config.server";
import {
  SecretDecryptionError,
  decryptSecret,
  encryptSecret,
  isEncryptedSecret,
  keyId,
  needsReencryption,
  reencryptSecret,
} from "../../app/crypto.server";
import { isClearToken, openToken, sealToken } from "../../app/shop/session-crypto.server";
import { KEY_A, KEY_B, KEY_C, legacyV1, shopifyLike } from "./keys";

/** A made-up offline token of Shopify's shape (prefix and 32 hex digits), fixed for the test. */
const PLAIN = `${"shpat"}_0123456789abcdef0123456789abcdef`;

/** The message and stack of what `fn` throws. */
function thrown(fn: () => unknown): { error: unknown; text: string } {
  try {
    fn();
  } catch (error) {
    return { error, text: `${(error as Error).message}\n${(error as Error).stack}` };
  }
  throw new Error("expected a throw");
}

describe("key ids and rotation", () => {
  it("writes v2.<kid>.<iv>.<tag>.<ct> with kid = the first 8 hex of sha256(key)", () => {
    const kid = createHash("sha256").update(Buffer.from(KEY_A, "base64")).digest("hex").slice(0, 8);
    expect(keyId(KEY_A)).toBe(kid);
    const value = encryptSecret(PLAIN, KEY_A);
    const parts = value.split(".");
    expect(parts).toHaveLength(5);
    expect(parts.slice(0, 2)).toEqual(["v2", kid]);
    expect(value).not.toContain(PLAIN.slice(6));
    expect(encryptSecret(PLAIN, KEY_A)).not.toBe(value); // a fresh IV each time
    expect(decryptSecret(value, KEY_A)).toBe(PLAIN);
  });

  it("values under A stay readable with B current and A old; re-encrypted, B alone reads them", () => {
    const underA = encryptSecret(PLAIN, KEY_A);
    const rotated = { current: KEY_B, old: [KEY_A] };
    expect(decryptSecret(underA, rotated)).toBe(PLAIN);
    expect(needsReencryption(underA, rotated)).toBe(true);

    const underB = reencryptSecret(underA, rotated);
    expect(underB.split(".")[1]).toBe(keyId(KEY_B));
    expect(needsReencryption(underB, rotated)).toBe(false);
    expect(decryptSecret(underB, { current: KEY_B })).toBe(PLAIN);
    // A alone no longer reads it, and B alone never read the old value.
    expect(() => decryptSecret(underB, KEY_A)).toThrow(SecretDecryptionError);
    expect(() => decryptSecret(underA, { current: KEY_B })).toThrow(SecretDecryptionError);
  });

  it("reads v1 values (no key id) with the current key, then the old ones, and re-encrypts them", () => {
    const v1A = legacyV1(PLAIN, KEY_A);
    expect(isEncryptedSecret(v1A)).toBe(true);
    expect(decryptSecret(v1A, KEY_A)).toBe(PLAIN);
    expect(decryptSecret(v1A, { current: KEY_B, old: [KEY_C, KEY_A] })).toBe(PLAIN);
    expect(needsReencryption(v1A, KEY_A)).toBe(true); // v1 is never the current format
    const v2 = reencryptSecret(v1A, { current: KEY_B, old: [KEY_A] });
    expect(decryptSecret(v2, KEY_B)).toBe(PLAIN);
    expect(() => decryptSecret(v1A, { current: KEY_B, old: [KEY_C] })).toThrow(
      SecretDecryptionError,
    );
  });

  it("a wrong key, a tampered value or a swapped key id: SecretDecryptionError without key or value", () => {
    const value = encryptSecret(PLAIN, KEY_A);
    const cases: [string, string | { current: string; old?: string[] }, RegExp][] = [
      [value, KEY_B, /key id [0-9a-f]{8}.*ENCRYPTION_KEYS_OLD/],
      [
        value,
        { current: KEY_B, old: [KEY_C] },
        /neither ENCRYPTION_KEY nor in ENCRYPTION_KEYS_OLD/,
      ],
      [legacyV1(PLAIN, KEY_A), KEY_B, /wrong key or tampered/],
    ];
    // Tampered ciphertext, and a value relabelled with another key's id (the id is
    // authenticated, so the relabelled value does not open even under its new label's key).
    const p = value.split(".");
    const ct = Buffer.from(p[4]!, "base64url");
    ct[0] = ct[0]! ^ 1;
    cases.push([[...p.slice(0, 4), ct.toString("base64url")].join("."), KEY_A, /tampered/]);
    const relabelled = ["v2", keyId(KEY_B), ...p.slice(2)].join(".");
    cases.push([relabelled, { current: KEY_B, old: [KEY_A] }, /tampered/]);
    for (const [stored, keys, message] of cases) {
      const { error, text } = thrown(() => decryptSecret(stored, keys));
      expect(error).toBeInstanceOf(SecretDecryptionError);
      expect((error as Error).message).toMatch(message);
      for (const secret of [PLAIN, KEY_A, KEY_B, KEY_C]) expect(text).not.toContain(secret);
    }
  });

  it("refuses values of an unknown shape or version without echoing them", () => {
    const value = encryptSecret(PLAIN, KEY_A);
    const clearWithDots = "secret-part.another-part.third.fourth";
    for (const [stored, message] of [
      [`v3${value.slice(2)}`, /unsupported version/],
      [value.slice(0, -1) + "!", /malformed/],
      [`v2.${keyId(KEY_A)}.short.tag.ct`, /malformed/],
      [clearWithDots, /unknown format/],
      [PLAIN, /unknown format/],
    ] as const) {
      const { error, text } = thrown(() => decryptSecret(stored, KEY_A));
      expect(error).toBeInstanceOf(SecretDecryptionError);
      expect((error as Error).message).toMatch(message);
      expect(text).not.toContain("secret-part");
      expect(text).not.toContain(PLAIN);
    }
  });
});

describe("session tokens: clear legacy values told apart by shape", () => {
  it("Shopify-shaped tokens are never taken for ciphertexts; ciphertexts always are", () => {
    const clear = [
      shopifyLike("shpat"),
      shopifyLike("shpua"),
      shopifyLike("shprt"),
      shopifyLike("simat"),
      "0123456789abcdef0123456789abcdef",
      "t-x.myshopify.com",
      "v1.not.a.ciphertext",
      "v2.abc.def.ghi.jkl",
    ];
    for (const token of clear) {
      expect(isEncryptedSecret(token), token).toBe(false);
      expect(isClearToken(token)).toBe(true);
      expect(openToken(token, { current: KEY_A })).toBe(token); // a legacy row loads as it is
    }
    for (const token of clear.slice(0, 5)) {
      const sealed = sealToken(token, { current: KEY_A });
      expect(isEncryptedSecret(sealed)).toBe(true);
      expect(isClearToken(sealed)).toBe(false);
      expect(openToken(sealed, { current: KEY_A })).toBe(token);
    }
    expect(sealToken("")).toBe("");
    expect(isClearToken("")).toBe(false);
    // Sealing a ciphertext again is a bug, refused rather than stored doubly encrypted.
    expect(() => sealToken(encryptSecret("x", KEY_A))).toThrow(/already encrypted/);
  });
});

describe("ENCRYPTION_KEYS_OLD", () => {
  it("parses comma-separated keys and names a bad entry without its value", () => {
    expect(
      parseConfig({ ENCRYPTION_KEYS_OLD: ` ${KEY_A}, ${KEY_B},` }).ENCRYPTION_KEYS_OLD,
    ).toEqual([KEY_A, KEY_B]);
    expect(parseConfig({}).ENCRYPTION_KEYS_OLD).toEqual([]);
    const bad = "bm90LWEta2V5LWJ1dC1hLXNlY3JldA==";
    let error: unknown;
    try {
      parseConfig({ ENCRYPTION_KEYS_OLD: `${KEY_A},${bad}` });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/ENCRYPTION_KEYS_OLD entry 2 of 2 must be 32 bytes/);
    expect(message).not.toContain(bad);
    expect(message).not.toContain(KEY_A);
  });
});
