import { PrismaClient } from "@prisma/client";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { pgAdapterFor, prisma } from "../app/db.server";
import { readMigrations } from "../app/db/migrations.server";
import { setDraining } from "../app/draining.server";
import {
  checkDatabase,
  checkMigrations,
  forgetMigrationsVerdict,
  refuseUnlessMigrated,
} from "../app/health.server";
import { loader as healthz } from "../app/routes/healthz";
import { loader as readyz } from "../app/routes/readyz";
import { callRoute } from "./helpers/remix";

const get = (loader: typeof healthz, path: string) =>
  callRoute(loader, new Request(`http://app.test${path}`));

/** Hides one applied migration from the database (as if it had never run), then restores it. */
async function withoutMigration<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const [row] = await prisma.$queryRaw<{ id: string }[]>`
    SELECT id FROM "_prisma_migrations" WHERE migration_name = ${name}`;
  if (!row) throw new Error(`${name} is not applied in the test database`);
  await prisma.$executeRaw`
    UPDATE "_prisma_migrations" SET rolled_back_at = now() WHERE id = ${row.id}`;
  forgetMigrationsVerdict();
  try {
    return await fn();
  } finally {
    await prisma.$executeRaw`
      UPDATE "_prisma_migrations" SET rolled_back_at = NULL WHERE id = ${row.id}`;
    forgetMigrationsVerdict();
  }
}

const latest = readMigrations().at(-1)!.name;

describe("/healthz and /readyz", () => {
  // The embedded database takes a few seconds to start; readiness waits for it.
  beforeAll(() => prisma.$connect());
  afterEach(() => {
    setDraining(false);
    forgetMigrationsVerdict();
  });

  it("/healthz answers 200 once the database answers and has every migration", async () => {
    const res = await get(healthz, "/healthz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ db: "ok", migrations: "ok" });
    expect(res.headers.get("Cache-Control")).toBe("no-store");
  });

  it("/readyz answers 200 when live and not draining", async () => {
    const res = await get(readyz, "/readyz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ db: "ok", migrations: "ok", draining: false });
  });

  it("both answer 503 naming the missing migration when one is not applied", async () => {
    await withoutMigration(latest, async () => {
      for (const [loader, path] of [
        [healthz, "/healthz"],
        [readyz, "/readyz"],
      ] as const) {
        const res = await get(loader, path);
        expect(res.status).toBe(503);
        const body = (await res.json()) as { migrations: string; reason: string };
        expect(body.migrations).toBe("missing");
        expect(body.reason).toBe(`database 1 migration(s) not applied (${latest})`);
      }
    });
    // Restored: healthy again (the verdict cache was forgotten).
    expect((await get(healthz, "/healthz")).status).toBe(200);
  });

  it("a migration whose file changed after it was applied makes the database not live", async () => {
    const edited = readMigrations().map((m) =>
      m.name === latest ? { ...m, checksum: "0".repeat(64) } : m,
    );
    expect(await checkMigrations(prisma, { migrations: edited, maxAgeMs: 0 })).toEqual({
      state: "missing",
      reason: `1 migration(s) changed since applied (${latest})`,
    });
  });

  it("/readyz answers 503 while draining, /healthz stays 200", async () => {
    setDraining(true);
    const ready = await get(readyz, "/readyz");
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ draining: true, reason: "shutting down" });
    expect((await get(healthz, "/healthz")).status).toBe(200);
  });

  // Port 1 on loopback: nothing listens there, the connection is refused at once.
  const unreachable = new PrismaClient({
    adapter: pgAdapterFor("postgresql://nobody:hunter2-pw@127.0.0.1:1/none", 1),
  });
  afterAll(() => unreachable.$disconnect());

  it("reports the database unavailable, without throwing, when it does not answer", async () => {
    expect(await checkDatabase(unreachable)).toBe("unavailable");
  });

  it("the start-up gate passes on a migrated database", async () => {
    const exit = vi.fn<(code: number) => never>();
    await refuseUnlessMigrated("test", prisma, exit);
    expect(exit).not.toHaveBeenCalled();
  });

  it("the start-up gate exits 1 with one line when a migration is missing", async () => {
    const lines: string[] = [];
    const error = vi.spyOn(console, "error").mockImplementation((l: string) => lines.push(l));
    const exit = vi.fn<(code: number) => never>();
    try {
      await withoutMigration(latest, () => refuseUnlessMigrated("npm start", prisma, exit));
    } finally {
      error.mockRestore();
    }
    expect(exit).toHaveBeenCalledWith(1);
    expect(lines).toEqual([
      `npm start refuses to start: database 1 migration(s) not applied (${latest}); ` +
        "run `npm run db:migrate` first",
    ]);
  });

  it("the start-up gate exits 1 when the database does not answer, without its URL", async () => {
    const lines: string[] = [];
    const error = vi.spyOn(console, "error").mockImplementation((l: string) => lines.push(l));
    const exit = vi.fn<(code: number) => never>();
    try {
      await refuseUnlessMigrated("worker", unreachable, exit);
    } finally {
      error.mockRestore();
    }
    expect(exit).toHaveBeenCalledWith(1);
    expect(lines).toEqual(["worker refuses to start: the database does not answer"]);
    expect(lines.join()).not.toContain("hunter2-pw");
  });
});
