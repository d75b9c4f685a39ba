import { describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import {
  decryptSecret,
  encryptSecret,
  maskSecret,
  SecretDecryptionError,
} from "../../app/crypto.server";

describe("secrets at rest", () => {
  it("round-trips with a random IV and a versioned format", () => {
    const a = encryptSecret("my-access-token-123");
    const b = encryptSecret("my-access-token-123");
    expect(a).not.toBe(b);
    expect(a.startsWith("v2.")).toBe(true);
    expect(a).not.toContain("my-access-token");
    expect(decryptSecret(a)).toBe("my-access-token-123");
    expect(decryptSecret(b)).toBe("my-access-token-123");
  });

  it("refuses a tampered value, another key and an unknown version", () => {
    const enc = encryptSecret("secret-value");
    const parts = enc.split(".");
    const ct = Buffer.from(parts[3]!, "base64url");
    ct[0] = ct[0]! ^ 1;
    const tampered = [parts[0], parts[1], parts[2], ct.toString("base64url")].join(".");
    expect(() => decryptSecret(tampered)).toThrow(SecretDecryptionError);
    const otherKey = randomBytes(32).toString("base64");
    expect(() => decryptSecret(enc, otherKey)).toThrow(SecretDecryptionError);
    expect(() => decryptSecret(`v9${enc.slice(2)}`)).toThrow(/unsupported version/);
    expect(() => decryptSecret("plain")).toThrow(SecretDecryptionError);
  });

  it("masks for display", () => {
    expect(maskSecret("abcdefghijklmnop1234")).toBe("••••••••1234");
    expect(maskSecret("short")).toBe("••••••••");
    expect(maskSecret(null)).toBe("");
  });
});
