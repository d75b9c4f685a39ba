/**
 * The secrets migration (app/db/secrets-migration.server.ts) on the real database, with
 * explicit keys: rotation from key A to key B, the clear webhook secret moved to Enc+Hash,
 * values no key opens left alone and reported without their content, several runs at once,
 * and a row the app rewrites between read and write left to the app.
 */
import { Prisma, type PrismaClient } from "@prisma/client";
import { beforeEach, describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret, keyId, needsReencryption } from "../../app/crypto.server";
import { prisma } from "../../app/db.server";
import { ENCRYPTED_COLUMNS, migrateSecrets } from "../../app/db/secrets-migration.server";
import { openToken, sealToken } from "../../app/shop/session-crypto.server";
import { hashWebhookSecret, newWebhookSecret } from "../../app/svc/webhook-secret.server";
import { KEY_A, KEY_B, KEY_C, legacyV1, shopifyLike } from "./keys";

const ROTATED = { current: KEY_B, old: [KEY_A] };
const ONLY_B = { current: KEY_B };

/** Every log call of a run, as text. */
function captureLog() {
  const lines: { level: string; msg: string; data?: object }[] = [];
  return {
    lines,
    log: (level: string, msg: string, data?: object) => lines.push({ level, msg, data }),
    text: () => JSON.stringify(lines),
  };
}

const account = (data: Partial<Prisma.SvcAccountCreateInput> = {}) =>
  prisma.svcAccount.create({
    data: { baseUrl: "https://svc.example", authMethod: "apiKey", ...data },
  });

beforeEach(async () => {
  await prisma.session.deleteMany();
  await prisma.svcAccount.deleteMany();
});

describe("the secrets migration", () => {
  it("covers every encrypted column of the schema", () => {
    for (const model of Prisma.dmmf.datamodel.models) {
      const enc = model.fields.map((f) => f.name).filter((n) => n.endsWith("Enc"));
      const listed = (ENCRYPTED_COLUMNS as Record<string, readonly string[]>)[model.name] ?? [];
      for (const column of enc) expect(listed, `${model.name}.${column}`).toContain(column);
    }
    expect(ENCRYPTED_COLUMNS.Session).toEqual(["accessToken", "refreshToken"]);
  });

  it("rotates A → B: everything under A (or v1) re-encrypted, then readable with B alone", async () => {
    const plain = {
      access: shopifyLike("shpat"),
      refresh: shopifyLike("shprt"),
      apiKey: "svc-api-key-0123456789",
      svcAccess: "svc-access-token-abcdef",
      svcRefresh: "svc-refresh-token-ghijkl",
      webhook: newWebhookSecret(),
    };
    await prisma.session.create({
      data: {
        id: "offline_rot.myshopify.com",
        shop: "rot.myshopify.com",
        state: "",
        accessToken: sealToken(plain.access, { current: KEY_A }),
        refreshToken: legacyV1(plain.refresh, KEY_A),
      },
    });
    const acc = await account({
      apiKeyEnc: encryptSecret(plain.apiKey, KEY_A),
      accessTokenEnc: legacyV1(plain.svcAccess, KEY_A),
      refreshTokenEnc: encryptSecret(plain.svcRefresh, KEY_B), // already under B: untouched
      webhookSecretEnc: encryptSecret(plain.webhook, KEY_A),
      webhookSecretHash: hashWebhookSecret(plain.webhook),
    });
    const untouched = acc.refreshTokenEnc;

    const result = await migrateSecrets(prisma, { keys: ROTATED, batchSize: 1 });
    expect(result).toEqual({
      tokensEncrypted: 0,
      reencrypted: 5,
      webhookSecretsMoved: 0,
      unreadable: 0,
      changedMeanwhile: 0,
    });

    const s = await prisma.session.findUniqueOrThrow({
      where: { id: "offline_rot.myshopify.com" },
    });
    const a = await prisma.svcAccount.findUniqueOrThrow({ where: { id: acc.id } });
    expect(a.refreshTokenEnc).toBe(untouched);
    const stored = [
      s.accessToken,
      s.refreshToken!,
      a.apiKeyEnc!,
      a.accessTokenEnc!,
      a.refreshTokenEnc!,
      a.webhookSecretEnc!,
    ];
    for (const value of stored) {
      expect(value.split(".").slice(0, 2)).toEqual(["v2", keyId(KEY_B)]);
      expect(needsReencryption(value, ONLY_B)).toBe(false);
    }
    expect(stored.map((v) => decryptSecret(v, ONLY_B))).toEqual([
      plain.access,
      plain.refresh,
      plain.apiKey,
      plain.svcAccess,
      plain.svcRefresh,
      plain.webhook,
    ]);
    expect(a.webhookSecretHash).toBe(hashWebhookSecret(plain.webhook));
    // A second run (or a run with B alone) has nothing left to do.
    expect(await migrateSecrets(prisma, { keys: ONLY_B })).toMatchObject({
      reencrypted: 0,
      tokensEncrypted: 0,
      unreadable: 0,
    });
  });

  it("moves the clear webhook secret to Enc + Hash and empties the clear column", async () => {
    const secret = newWebhookSecret();
    // As the schema migration left it: clear, with its hash already computed.
    const legacy = await account({
      webhookSecret: secret,
      webhookSecretHash: hashWebhookSecret(secret),
    });
    // Clear without hash; and a row whose encrypted copy (written by the app) wins.
    const other = newWebhookSecret();
    const noHash = await account({ webhookSecret: other });
    const current = newWebhookSecret();
    const both = await account({
      webhookSecret: newWebhookSecret(),
      ...{
        webhookSecretEnc: encryptSecret(current),
        webhookSecretHash: hashWebhookSecret(current),
      },
    });

    const result = await migrateSecrets(prisma);
    expect(result).toMatchObject({ webhookSecretsMoved: 3, reencrypted: 0, unreadable: 0 });

    const rows = await prisma.svcAccount.findMany({ orderBy: { createdAt: "asc" } });
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const [id, expected] of [
      [legacy.id, secret],
      [noHash.id, other],
      [both.id, current],
    ] as const) {
      const row = byId.get(id)!;
      expect(row.webhookSecret).toBeNull();
      expect(decryptSecret(row.webhookSecretEnc!)).toBe(expected);
      expect(row.webhookSecretHash).toBe(hashWebhookSecret(expected));
    }
    const clear = await prisma.$queryRaw<{ id: string }[]>`
      SELECT a.id FROM "SvcAccount" a WHERE strpos(a::text, ${secret}) > 0 OR strpos(a::text, ${other}) > 0`;
    expect(clear).toEqual([]);
    expect(await migrateSecrets(prisma)).toMatchObject({ webhookSecretsMoved: 0 });
  });

  it("leaves values no configured key opens, and reports them without content", async () => {
    const lost = shopifyLike("shpat");
    const underC = sealToken(lost, { current: KEY_C });
    const refresh = shopifyLike("shprt");
    await prisma.session.create({
      data: {
        id: "offline_lost.myshopify.com",
        shop: "lost.myshopify.com",
        state: "",
        accessToken: underC,
        refreshToken: sealToken(refresh, { current: KEY_A }),
      },
    });
    const acc = await account({ apiKeyEnc: encryptSecret("svc-api-key-lost", KEY_C) });
    const capture = captureLog();
    const result = await migrateSecrets(prisma, { keys: ROTATED, log: capture.log });
    expect(result).toMatchObject({ unreadable: 2, reencrypted: 1 });

    const s = await prisma.session.findUniqueOrThrow({
      where: { id: "offline_lost.myshopify.com" },
    });
    expect(s.accessToken).toBe(underC); // unchanged, still recoverable with key C
    expect(openToken(s.refreshToken!, ONLY_B)).toBe(refresh); // the readable one moved on
    expect(
      (await prisma.svcAccount.findUniqueOrThrow({ where: { id: acc.id } })).apiKeyEnc,
    ).toMatch(new RegExp(`^v2\\.${keyId(KEY_C)}\\.`));

    const problems = capture.lines.filter(
      (l) => l.level === "error" && l.data && "column" in l.data,
    );
    expect(problems.map((l) => l.data)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ table: "Session", column: "accessToken", id: s.id }),
        expect.objectContaining({ table: "SvcAccount", column: "apiKeyEnc", id: acc.id }),
      ]),
    );
    const text = capture.text();
    for (const secret of [lost, refresh, "svc-api-key-lost", underC, KEY_A, KEY_B, KEY_C])
      expect(text).not.toContain(secret);
  });

  it("two runs at once encrypt each clear token exactly once", async () => {
    const tokens = Array.from({ length: 40 }, () => shopifyLike("shpat"));
    await prisma.session.createMany({
      data: tokens.map((accessToken, i) => ({
        id: `offline_many-${String(i).padStart(2, "0")}.myshopify.com`,
        shop: `many-${i}.myshopify.com`,
        state: "",
        accessToken,
      })),
    });
    const runs = await Promise.all([
      migrateSecrets(prisma, { batchSize: 7 }),
      migrateSecrets(prisma, { batchSize: 7 }),
    ]);
    expect(runs[0]!.tokensEncrypted + runs[1]!.tokensEncrypted).toBe(40);
    const rows = await prisma.session.findMany({ orderBy: { id: "asc" } });
    // Encrypted once: opening gives the token itself, not another ciphertext.
    expect(rows.map((r) => openToken(r.accessToken))).toEqual(tokens);
  });

  it("a token the app rewrites between read and write is left to the app", async () => {
    const id = "offline_race.myshopify.com";
    const newer = shopifyLike("shpat");
    await prisma.session.create({
      data: { id, shop: "race.myshopify.com", state: "", accessToken: sealToken(newer) },
    });
    // The migration reads the row as it was before the app's write: an old token in clear.
    const stale = shopifyLike("shpat");
    const readsStale = prisma.$extends({
      query: {
        session: {
          async findMany({ args, query }) {
            const rows = await query(args);
            return rows.map((r) => (r.id === id ? { ...r, accessToken: stale } : r));
          },
        },
      },
    }) as unknown as PrismaClient;
    const result = await migrateSecrets(readsStale);
    expect(result).toMatchObject({ tokensEncrypted: 0, changedMeanwhile: 1 });
    const row = await prisma.session.findUniqueOrThrow({ where: { id } });
    expect(openToken(row.accessToken)).toBe(newer);
  });
});
