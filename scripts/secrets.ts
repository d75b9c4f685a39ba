/**
 * `npm run secrets:rotate`: the secrets migration (app/db/secrets-migration.server.ts) on the
 * configured database. It encrypts what is still in clear and re-encrypts under ENCRYPTION_KEY
 * whatever was written under a key of ENCRYPTION_KEYS_OLD. Safe to run at any time, from
 * several processes at once, while the app runs; a second run reports nothing to do.
 *
 * Prints one summary line (and one JSON line with SECRETS_JSON=1). Exits 1 if some value could
 * not be decrypted with the configured keys (the log names its table, column and row id), so
 * an old key is never dropped while something still needs it.
 */
import { config } from "../app/config.server";
import { keyId } from "../app/crypto.server";
import { closeDatabase, prisma, secretsMigratedAtStart } from "../app/db.server";
import {
  type SecretsMigrationOptions,
  type SecretsMigrationResult,
  migrateSecrets,
} from "../app/db/secrets-migration.server";
import { logger } from "../app/logger.server";

const command = process.argv[2] ?? "rotate";
if (command !== "rotate") {
  console.error("usage: npm run secrets:rotate (node build/secrets.js rotate)");
  process.exit(2);
}

const log: NonNullable<SecretsMigrationOptions["log"]> = (level, msg, data) =>
  logger[level]({ source: "secrets-migration", ...data }, msg);

let result: SecretsMigrationResult;
try {
  result = await migrateSecrets(prisma, { log });
  // On the embedded database, opening it already ran the migration: count its work too (what
  // is unreadable is what this run found: the same values again).
  const atStart = await secretsMigratedAtStart();
  if (atStart) {
    for (const k of ["tokensEncrypted", "reencrypted", "webhookSecretsMoved"] as const)
      result[k] += atStart[k];
  }
} finally {
  await closeDatabase();
}

console.log(
  `secrets: ${result.tokensEncrypted} clear token(s) encrypted, ${result.reencrypted} value(s) ` +
    `re-encrypted, ${result.webhookSecretsMoved} webhook secret(s) moved, ` +
    `${result.unreadable} unreadable; current key id ${keyId(config.ENCRYPTION_KEY)}`,
);
if (process.env.SECRETS_JSON === "1") console.log(JSON.stringify(result));
if (result.unreadable > 0) {
  console.error(
    "Some values cannot be decrypted with ENCRYPTION_KEY or ENCRYPTION_KEYS_OLD (see the log): " +
      "add the key they were written with to ENCRYPTION_KEYS_OLD and run this again.",
  );
  process.exit(1);
}
