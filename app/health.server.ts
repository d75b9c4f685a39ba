import { prisma } from "./db.server";
import { logger } from "./logger.server";

const TIMEOUT_MS = 3000;

/** Runs a real query against the database; "ok" or "unavailable", never a stack trace. */
export async function checkDatabase(db = prisma): Promise<"ok" | "unavailable"> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("database health check timed out")), TIMEOUT_MS);
    });
    const rows = await Promise.race([db.$queryRaw<{ ok: number }[]>`SELECT 1 AS ok`, timeout]);
    return rows[0]?.ok === 1 ? "ok" : "unavailable";
  } catch (error) {
    logger.warn({ err: (error as Error).message }, "health check: database unavailable");
    return "unavailable";
  } finally {
    clearTimeout(timer);
  }
}
