import pg from "pg";
import type { SqlRunner } from "../../app/db/migrations.server";

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
