import pg from "pg";
import { applyMigrations, type SqlRunner } from "../../app/db/migrations.server";

/** node-postgres as the migrator's SqlRunner. */
export function pgRunner(client: pg.Client): SqlRunner {
  return {
    exec: (sql) => client.query(sql),
    query: async <T>(sql: string, params?: unknown[]) => ({
      rows: (await client.query(sql, params)).rows as T[],
    }),
  };
}

export async function withPgClient<T>(url: string, fn: (client: pg.Client) => Promise<T>) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Creates a fresh, migrated schema on a PostgreSQL server; returns a URL selecting it (the
 * app's `?schema=` convention) and a function that drops it.
 */
export async function freshSchema(
  serverUrl: string,
  name: string,
): Promise<{ url: string; schema: string; drop(): Promise<void> }> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad schema name ${name}`);
  await withPgClient(serverUrl, async (client) => {
    await client.query(`CREATE SCHEMA "${name}"`);
    await client.query(`SET search_path TO "${name}"`);
    await applyMigrations(pgRunner(client));
  });
  const url = new URL(serverUrl);
  url.searchParams.set("schema", name);
  return {
    url: url.toString(),
    schema: name,
    drop: async () => {
      await withPgClient(serverUrl, (c) => c.query(`DROP SCHEMA "${name}" CASCADE`));
    },
  };
}
