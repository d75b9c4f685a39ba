/**
 * `npm run secrets:rotate` (scripts/secrets.ts) as an operator runs it, in a child process with
 * the keys in its environment: ENCRYPTION_KEY=B with ENCRYPTION_KEYS_OLD=A re-encrypts what A
 * wrote (and, on the embedded database, opening it already does: the migration at start);
 * with A dropped too early, it exits 1 and names what it cannot read. Its output never carries
 * a key, a token or a secret.
 *
 * The database: the file's own PostgreSQL schema (TEST_DATABASE_URL), or else an embedded one
 * in a folder of its own that this process opens only while the child does not.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret, keyId } from "../../app/crypto.server";
import { prisma } from "../../app/db.server";
import { startEmbeddedPostgres } from "../../app/db/embedded.server";
import { hashWebhookSecret, newWebhookSecret } from "../../app/svc/webhook-secret.server";
import { exited, spawnTs } from "../helpers/child";
import { KEY_A, KEY_B, legacyV1, shopifyLike } from "./keys";

type Query = <T>(sql: string, params?: unknown[]) => Promise<T[]>;
const onPostgres = !!process.env.TEST_DATABASE_URL;
const dataDir = onPostgres ? "" : join(mkdtempSync(join(tmpdir(), "secrets-cli-")), "db");
afterAll(() => {
  if (dataDir) rmSync(join(dataDir, ".."), { recursive: true, force: true });
});

/** Runs `fn` on the database the child uses (opened here only meanwhile, when embedded). */
async function withDb<T>(fn: (q: Query) => Promise<T>): Promise<T> {
  if (onPostgres) return fn((sql, params = []) => prisma.$queryRawUnsafe(sql, ...params));
  const db = await startEmbeddedPostgres(dataDir);
  try {
    return await fn(async (sql, params) => (await db.pglite.query(sql, params)).rows as never);
  } finally {
    await db.stop();
  }
}

async function rotate(env: Record<string, string>) {
  const child = spawnTs("scripts/secrets.ts", {
    ...(onPostgres ? {} : { PGLITE_DATA_DIR: dataDir }),
    LOG_LEVEL: "debug",
    SECRETS_JSON: "1",
    ...env,
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const code = await exited(child);
  const lines = output.split("\n");
  const summary = JSON.parse(lines.find((l) => l.startsWith('{"tokensEncrypted"')) ?? "null") as {
    tokensEncrypted: number;
    reencrypted: number;
    webhookSecretsMoved: number;
    unreadable: number;
  } | null;
  const runs = lines
    .filter((l) => l.includes('"msg":"secrets migration done"'))
    .map((l) => JSON.parse(l) as { reencrypted: number });
  return { code, output, summary, runs };
}

describe("npm run secrets:rotate", () => {
  const plain = {
    access: shopifyLike("shpat"),
    refresh: shopifyLike("shprt"),
    apiKey: "svc-api-key-cli-0123456789",
    webhook: newWebhookSecret(),
    late: "svc-api-key-written-late-under-a",
  };

  it("with ENCRYPTION_KEY=B and ENCRYPTION_KEYS_OLD=A: everything ends under B", async () => {
    await withDb(async (q) => {
      await q(
        `INSERT INTO "Session" (id, shop, state, "accessToken", "refreshToken")
         VALUES ('offline_cli.myshopify.com', 'cli.myshopify.com', '', $1, $2)`,
        [plain.access, encryptSecret(plain.refresh, KEY_A)],
      );
      await q(
        `INSERT INTO "SvcAccount" (id, "baseUrl", "authMethod", "apiKeyEnc", "webhookSecret", "updatedAt")
         VALUES ('acc-cli', 'https://svc.example', 'apiKey', $1, $2, now())`,
        [legacyV1(plain.apiKey, KEY_A), plain.webhook],
      );
    });

    const run = await rotate({ ENCRYPTION_KEY: KEY_B, ENCRYPTION_KEYS_OLD: KEY_A });
    expect(run.code).toBe(0);
    expect(run.summary).toEqual({
      tokensEncrypted: 1,
      reencrypted: 2,
      webhookSecretsMoved: 1,
      unreadable: 0,
      changedMeanwhile: 0,
    });
    expect(run.output).toContain(`current key id ${keyId(KEY_B)}`);
    // Embedded: opening the database migrated it (the first run); the command's own found
    // nothing left. On a server, only the command's run.
    expect(run.runs.map((r) => r.reencrypted)).toEqual(onPostgres ? [2] : [2, 0]);
    for (const secret of [...Object.values(plain), KEY_A, KEY_B])
      expect(run.output).not.toContain(secret);

    await withDb(async (q) => {
      const [s] = await q<{ accessToken: string; refreshToken: string }>(
        `SELECT "accessToken", "refreshToken" FROM "Session" WHERE id = 'offline_cli.myshopify.com'`,
      );
      const [a] = await q<{
        apiKeyEnc: string;
        webhookSecret: string | null;
        webhookSecretEnc: string;
        webhookSecretHash: string;
      }>(`SELECT * FROM "SvcAccount" WHERE id = 'acc-cli'`);
      const onlyB = { current: KEY_B };
      expect(decryptSecret(s!.accessToken, onlyB)).toBe(plain.access);
      expect(decryptSecret(s!.refreshToken, onlyB)).toBe(plain.refresh);
      expect(decryptSecret(a!.apiKeyEnc, onlyB)).toBe(plain.apiKey);
      expect(decryptSecret(a!.webhookSecretEnc, onlyB)).toBe(plain.webhook);
      expect(a!.webhookSecretHash).toBe(hashWebhookSecret(plain.webhook));
      expect(a!.webhookSecret).toBeNull();
      // Something written under A after the rotation (an old process during a deploy).
      await q(`UPDATE "SvcAccount" SET "accessTokenEnc" = $1 WHERE id = 'acc-cli'`, [
        encryptSecret(plain.late, KEY_A),
      ]);
    });
  }, 180_000);

  it("with A dropped while a value still needs it: exit 1, the value named, nothing leaked", async () => {
    const run = await rotate({ ENCRYPTION_KEY: KEY_B, ENCRYPTION_KEYS_OLD: "" });
    expect(run.code).toBe(1);
    expect(run.summary).toMatchObject({ unreadable: 1, reencrypted: 0 });
    expect(run.output).toMatch(/"table":"SvcAccount".*"column":"accessTokenEnc"/);
    expect(run.output).toContain(`key id ${keyId(KEY_A)}`);
    expect(run.output).toContain("add the key they were written with to ENCRYPTION_KEYS_OLD");
    for (const secret of [...Object.values(plain), KEY_A, KEY_B])
      expect(run.output).not.toContain(secret);
    // Left as it was: with A back among the old keys it is recovered.
    const again = await rotate({ ENCRYPTION_KEY: KEY_B, ENCRYPTION_KEYS_OLD: KEY_A });
    expect(again.code).toBe(0);
    expect(again.summary).toMatchObject({ reencrypted: 1, unreadable: 0 });
  }, 180_000);
});
