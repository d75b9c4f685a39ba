/**
 * `npm run db:migrate`: applies prisma/migrations to the PostgreSQL server of DATABASE_URL, in
 * the schema its `?schema=` names (created if missing), or the server's default one. Run it once
 * per release, before the new version starts; several at once are safe (an advisory lock).
 *
 * Reads DATABASE_URL itself rather than the app's configuration, so that a migrate step needs
 * nothing else (no Shopify credentials). A `.env` in the working directory is loaded as the app
 * does (it never overrides the environment). Prints one line per applied migration and one
 * summary line; on failure one line naming what failed, never the URL (it holds a password).
 */
import { existsSync } from "node:fs";
import { migrateDatabase } from "../app/db/migrations.server";

async function main(): Promise<number> {
  if (existsSync(".env")) process.loadEnvFile(".env");
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error(
      "db:migrate needs DATABASE_URL (postgresql://…); without it the app uses its embedded " +
        "database, which migrates itself at start.",
    );
    return 2;
  }
  if (!/^postgres(ql)?:\/\//.test(url) || !URL.canParse(url)) {
    console.error("db:migrate: DATABASE_URL must be a postgresql:// URL");
    return 2;
  }
  const { schema, applied } = await migrateDatabase(url);
  for (const name of applied) console.log(`applied ${name}`);
  console.log(
    applied.length > 0
      ? `db:migrate: ${applied.length} migration(s) applied to schema "${schema}"`
      : `db:migrate: schema "${schema}" is up to date`,
  );
  // Then secrets at rest (clear legacy values encrypted, old-key values re-encrypted), once
  // the schema is complete. It needs the app's configuration (ENCRYPTION_KEY above all), so
  // it is loaded only now; without ENCRYPTION_KEY the step is skipped and says so.
  if (!process.env.ENCRYPTION_KEY) {
    console.log("db:migrate: secrets skipped (ENCRYPTION_KEY is not set)");
    return 0;
  }
  const { prisma, closeDatabase } = await import("../app/db.server");
  const { migrateSecrets } = await import("../app/db/secrets-migration.server");
  try {
    const r = await migrateSecrets(prisma, {
      // What needs the operator (an unreadable value: table, column, row id, never the value).
      log: (level, msg, data) => {
        if (level === "warn" || level === "error")
          console.error(`db:migrate: ${msg} ${JSON.stringify(data ?? {})}`);
      },
    });
    console.log(
      `db:migrate: secrets: ${r.tokensEncrypted} clear token(s) encrypted, ${r.reencrypted} ` +
        `re-encrypted, ${r.webhookSecretsMoved} webhook secret(s) moved, ${r.unreadable} unreadable`,
    );
    return r.unreadable > 0 ? 1 : 0;
  } finally {
    await closeDatabase();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    // pg's messages name the host at most, never the password; keep only the first line.
    const message = error instanceof Error ? error.message : String(error);
    console.error(`db:migrate failed: ${message.split("\n")[0]}`);
    process.exit(1);
  },
);
