/**
 * The secrets migration: brings every secret at rest under the current key.
 *
 * - Session tokens (offline and online, access and refresh) still in clear, from before they
 *   were encrypted, are encrypted.
 * - `SvcAccount.webhookSecret` (legacy, clear) moves to `webhookSecretEnc` + `webhookSecretHash`
 *   (app/svc/webhook-secret.server.ts) and the clear column is emptied. Where the encrypted
 *   copy already exists it wins (the app writes only that one now); the clear one is dropped.
 * - Every encrypted value (ENCRYPTED_COLUMNS) not under ENCRYPTION_KEY (a `v1.` value, or one
 *   under a key of ENCRYPTION_KEYS_OLD) is re-encrypted under it. A value no configured key
 *   opens is left as it is, counted as unreadable and named in the log by table, column and
 *   row id (never its content).
 *
 * Idempotent (a second run finds nothing to do), batched (pages of `batchSize` rows by id, one
 * short transaction each), and safe from several processes at once: each page runs under one
 * advisory lock, so two runs take turns and the second finds the page done. Each row is
 * updated only if it still holds what was read (compare-and-set), so a token the app rewrites
 * meanwhile (an offline-token refresh, a reinstall) is never overwritten with an older one.
 *
 * Run at start on the embedded database (app/db.server.ts) and by `npm run secrets:rotate`
 * (scripts/secrets.ts), which `npm run db:migrate` runs after the schema migrations.
 */
import type { Prisma, PrismaClient } from "@prisma/client";
import {
  SecretDecryptionError,
  type SecretKeys,
  encryptSecret,
  needsReencryption,
  reencryptSecret,
} from "../crypto.server";
import { isClearToken, sealToken } from "../shop/session-crypto.server";
import { hashWebhookSecret } from "../svc/webhook-secret.server";

/** Every column that holds a value of app/crypto.server.ts, by model. */
export const ENCRYPTED_COLUMNS = {
  Session: ["accessToken", "refreshToken"],
  SvcAccount: ["apiKeyEnc", "accessTokenEnc", "refreshTokenEnc", "webhookSecretEnc"],
} as const;

/** First half of the advisory lock key: "secrets migration". */
const LOCK_CLASS = 0x5ec7;

export interface SecretsMigrationOptions {
  log?: (level: "debug" | "info" | "warn" | "error", msg: string, data?: object) => void;
  /** The keys to use (default: ENCRYPTION_KEY and ENCRYPTION_KEYS_OLD). */
  keys?: SecretKeys;
  batchSize?: number;
}

export interface SecretsMigrationResult {
  /** Session tokens that were in clear and are now encrypted. */
  tokensEncrypted: number;
  /** Encrypted values moved from an old key (or the v1 format) to the current key. */
  reencrypted: number;
  /** Clear webhook secrets moved to the encrypted and hashed columns. */
  webhookSecretsMoved: number;
  /** Values no configured key can decrypt (left unchanged; see the log). */
  unreadable: number;
  /** Rows the app changed between read and write (left to the app's newer value). */
  changedMeanwhile: number;
}

type Tx = Prisma.TransactionClient;
type Counts = Omit<SecretsMigrationResult, "changedMeanwhile">;
type Log = NonNullable<SecretsMigrationOptions["log"]>;

const zero = (): SecretsMigrationResult => ({
  tokensEncrypted: 0,
  reencrypted: 0,
  webhookSecretsMoved: 0,
  unreadable: 0,
  changedMeanwhile: 0,
});

/** One row's work: the new column values and what they count for. */
class RowWork {
  readonly data: Record<string, string | null> = {};
  readonly counts: Counts = {
    tokensEncrypted: 0,
    reencrypted: 0,
    webhookSecretsMoved: 0,
    unreadable: 0,
  };
  constructor(
    private readonly where: { table: string; id: string },
    private readonly keys: SecretKeys | undefined,
    private readonly log: Log,
  ) {}

  /** Re-encrypts an encrypted value that is not under the current key. */
  reencrypt(column: string, stored: string | null) {
    if (!stored || !needsReencryption(stored, this.keys)) return;
    try {
      this.data[column] = reencryptSecret(stored, this.keys);
      this.counts.reencrypted++;
    } catch (error) {
      if (!(error instanceof SecretDecryptionError)) throw error;
      this.counts.unreadable++;
      this.log("error", "a stored secret cannot be decrypted with the configured keys", {
        ...this.where,
        column,
        reason: error.message,
      });
    }
  }

  get changed() {
    return Object.keys(this.data).length > 0;
  }
}

async function page<Row extends { id: string }>(
  db: PrismaClient,
  read: (tx: Tx, after: string | undefined) => Promise<Row[]>,
  work: (row: Row) => RowWork,
  write: (tx: Tx, row: Row, data: Record<string, string | null>) => Promise<number>,
  after: string | undefined,
  total: SecretsMigrationResult,
): Promise<string | undefined> {
  return db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_CLASS}::int, 0)`;
      const rows = await read(tx, after);
      for (const row of rows) {
        const w = work(row);
        if (!w.changed) {
          total.unreadable += w.counts.unreadable;
          continue;
        }
        if ((await write(tx, row, w.data)) === 0) {
          total.changedMeanwhile++;
          continue;
        }
        for (const k of Object.keys(w.counts) as (keyof Counts)[]) total[k] += w.counts[k];
      }
      return rows.at(-1)?.id;
    },
    // Up to batchSize small updates: far longer than they take, even on a loaded machine.
    { maxWait: 30_000, timeout: 120_000 },
  );
}

export async function migrateSecrets(
  db: PrismaClient,
  opts: SecretsMigrationOptions = {},
): Promise<SecretsMigrationResult> {
  const { keys } = opts;
  const log: Log = opts.log ?? (() => {});
  const take = opts.batchSize ?? 500;
  const total = zero();

  // Session tokens: clear ones encrypted, old-key ones re-encrypted.
  type SessionRow = { id: string; accessToken: string; refreshToken: string | null };
  let after: string | undefined;
  do {
    after = await page<SessionRow>(
      db,
      (tx, cursor) =>
        tx.session.findMany({
          where: cursor === undefined ? {} : { id: { gt: cursor } },
          orderBy: { id: "asc" },
          take,
          select: { id: true, accessToken: true, refreshToken: true },
        }),
      (row) => {
        const w = new RowWork({ table: "Session", id: row.id }, keys, log);
        for (const column of ENCRYPTED_COLUMNS.Session) {
          const value = row[column];
          if (value && isClearToken(value)) {
            w.data[column] = sealToken(value, keys);
            w.counts.tokensEncrypted++;
          } else w.reencrypt(column, value);
        }
        return w;
      },
      async (tx, row, data) =>
        (
          await tx.session.updateMany({
            where: { id: row.id, accessToken: row.accessToken, refreshToken: row.refreshToken },
            data,
          })
        ).count,
      after,
      total,
    );
  } while (after !== undefined);

  // Service accounts: the clear webhook secret moved, every *Enc value under the current key.
  type AccountRow = {
    id: string;
    webhookSecret: string | null;
    webhookSecretHash: string | null;
  } & Record<(typeof ENCRYPTED_COLUMNS.SvcAccount)[number], string | null>;
  const select = {
    id: true,
    webhookSecret: true,
    webhookSecretHash: true,
    ...Object.fromEntries(ENCRYPTED_COLUMNS.SvcAccount.map((c) => [c, true])),
  } as Prisma.SvcAccountSelect;
  do {
    after = await page<AccountRow>(
      db,
      async (tx, cursor) =>
        (await tx.svcAccount.findMany({
          where: cursor === undefined ? {} : { id: { gt: cursor } },
          orderBy: { id: "asc" },
          take,
          select,
        })) as unknown as AccountRow[],
      (row) => {
        const w = new RowWork({ table: "SvcAccount", id: row.id }, keys, log);
        if (row.webhookSecret) {
          w.data.webhookSecret = null;
          w.counts.webhookSecretsMoved++;
          if (!row.webhookSecretEnc) {
            w.data.webhookSecretEnc = encryptSecret(row.webhookSecret, keys);
            w.data.webhookSecretHash = hashWebhookSecret(row.webhookSecret);
          }
        }
        for (const column of ENCRYPTED_COLUMNS.SvcAccount) {
          if (!(column in w.data)) w.reencrypt(column, row[column]);
        }
        return w;
      },
      async (tx, row, data) => {
        const { id, ...seen } = row;
        return (await tx.svcAccount.updateMany({ where: { id, ...seen }, data })).count;
      },
      after,
      total,
    );
  } while (after !== undefined);

  const worked = total.tokensEncrypted + total.reencrypted + total.webhookSecretsMoved > 0;
  log(total.unreadable > 0 ? "error" : worked ? "info" : "debug", "secrets migration done", total);
  return total;
}
