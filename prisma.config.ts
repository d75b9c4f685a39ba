// Prisma CLI configuration. The JS schema engine with the pg driver adapter means no
// engine binary is ever downloaded (this machine, and CI, have no internet).
// `prisma generate` needs DATABASE_URL to be set (any value) or it falls back to the
// native engine; the npm scripts set a placeholder for it.
//
// `?schema=NAME` on DATABASE_URL is honoured here as by the app (app/db.server.ts): the adapter
// sets that search path, so `prisma migrate status` and friends look at the same schema the app
// uses. Migrations are applied with `npm run db:migrate` (scripts/migrate.ts), not
// `prisma migrate deploy`: see app/db/migrations.server.ts for why.
import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";

export default defineConfig({
  experimental: { adapter: true },
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  engine: "js",
  async adapter() {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error("DATABASE_URL must name the PostgreSQL server to migrate");
    // Self-contained (no app import): `prisma generate` loads this file during `npm ci`.
    const parsed = new URL(url);
    const schema = parsed.searchParams.get("schema");
    parsed.searchParams.delete("schema");
    const connectionString = parsed.toString();
    if (!schema) return new PrismaPg({ connectionString });
    if (!/^[a-z_][a-z0-9_]*$/i.test(schema)) throw new Error("Invalid schema name in the URL");
    return new PrismaPg({ connectionString, options: `-c search_path="${schema}"` }, { schema });
  },
});
