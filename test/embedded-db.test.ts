import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PrismaClient } from "@prisma/client";
import { afterAll, describe, expect, it } from "vitest";
import { pgAdapterFor } from "../app/db.server";
import { startEmbeddedPostgres } from "../app/db/embedded.server";

const dir = mkdtempSync(join(tmpdir(), "pglite-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function withEmbedded<T>(fn: (db: PrismaClient) => Promise<T>): Promise<T> {
  const embedded = await startEmbeddedPostgres(join(dir, "data"));
  const db = new PrismaClient({ adapter: pgAdapterFor(embedded.url, 1) });
  try {
    return await fn(db);
  } finally {
    await db.$disconnect();
    await embedded.stop();
  }
}

describe("embedded PGlite on disk", () => {
  it("keeps data across a restart, and migrates only once", async () => {
    await withEmbedded((db) => db.shop.create({ data: { domain: "persist.myshopify.com" } }));
    const found = await withEmbedded(async (db) => ({
      shop: await db.shop.findUnique({ where: { domain: "persist.myshopify.com" } }),
      migrations: await db.$queryRaw<
        { n: bigint }[]
      >`SELECT count(*) AS n FROM "_prisma_migrations"`,
    }));
    expect(found.shop?.domain).toBe("persist.myshopify.com");
    expect(Number(found.migrations[0]?.n)).toBeGreaterThan(0);
    // Two on-disk starts (initdb, then every migration once): about 10 s on an idle 2-core
    // machine, past 30 s when the suite shares it with a load (a cap, not a speed goal).
  }, 120_000);

  it("serves concurrent queries and transactions through its single connection", async () => {
    await withEmbedded(async (db) => {
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          i % 2
            ? db.$transaction(async (tx) => {
                await tx.shop.create({ data: { domain: `c${i}.myshopify.com` } });
                return tx.shop.count();
              })
            : db.shop.create({ data: { domain: `c${i}.myshopify.com` } }),
        ),
      );
      expect(await db.shop.count({ where: { domain: { startsWith: "c" } } })).toBe(40);
    });
  });
});
