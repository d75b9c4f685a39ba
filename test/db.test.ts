import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { prisma } from "../app/db.server";
import { readMigrations } from "../app/db/migrations.server";
import { recordInstall } from "../app/shops/shops.server";

describe("database", () => {
  it("round-trips a shop with its JSON settings", async () => {
    await recordInstall(prisma, "round-trip.myshopify.com", "read_orders");
    await prisma.shop.update({
      where: { domain: "round-trip.myshopify.com" },
      data: { settings: { sandbox: true, batchSize: 50, nested: { a: [1, 2] } } },
    });
    const shop = await prisma.shop.findUniqueOrThrow({
      where: { domain: "round-trip.myshopify.com" },
    });
    expect(shop.settings).toEqual({ sandbox: true, batchSize: 50, nested: { a: [1, 2] } });
    expect(shop.scopes).toBe("read_orders");
    expect(shop.uninstalledAt).toBeNull();
  });

  it("enforces the unique shop domain", async () => {
    await prisma.shop.create({ data: { domain: "unique.myshopify.com" } });
    await expect(prisma.shop.create({ data: { domain: "unique.myshopify.com" } })).rejects.toThrow(
      /Unique constraint/,
    );
  });

  it("commits nothing of a failed transaction", async () => {
    await expect(
      prisma.$transaction(async (tx) => {
        await tx.shop.create({ data: { domain: "rolled-back.myshopify.com" } });
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await prisma.shop.count({ where: { domain: "rolled-back.myshopify.com" } })).toBe(0);
  });

  it("records every migration in Prisma's own table", async () => {
    const rows = await prisma.$queryRaw<{ migration_name: string; checksum: string }[]>`
      SELECT migration_name, checksum FROM "_prisma_migrations" ORDER BY migration_name`;
    expect(rows).toEqual(
      readMigrations().map((m) => ({ migration_name: m.name, checksum: m.checksum })),
    );
  });

  it("has no schema change without its migration (run npm run db:diff)", () => {
    const schema = readFileSync("prisma/schema.prisma", "utf8");
    const snapshot = readFileSync("prisma/migrations/schema.snapshot.prisma", "utf8");
    expect(snapshot).toBe(schema);
  });
});
