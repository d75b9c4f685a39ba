// Prisma CLI configuration. The JS schema engine with the pg driver adapter means no
// engine binary is ever downloaded (this machine, and CI, have no internet).
// `prisma generate` needs DATABASE_URL to be set (any value) or it falls back to the
// native engine; the npm scripts set a placeholder for it.
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
    return new PrismaPg({ connectionString: url });
  },
});
