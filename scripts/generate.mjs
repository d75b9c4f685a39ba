// Runs `prisma generate` after install. Prisma needs DATABASE_URL set even to generate, or it
// falls back to its native engine and tries to download it; any placeholder will do.
import { execFileSync } from "node:child_process";

execFileSync("prisma", ["generate"], {
  stdio: "inherit",
  env: {
    ...process.env,
    DATABASE_URL: process.env.DATABASE_URL || "postgresql://generate@localhost/none",
  },
});
