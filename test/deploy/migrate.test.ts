/**
 * `npm run db:migrate` (scripts/migrate.ts) and the start-up gate, as an operator runs them:
 * in child processes, against PostgreSQL schemas named by `?schema=`.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { PrismaClient } from "@prisma/client";
import { afterAll, describe, expect, it } from "vitest";
import { pgAdapterFor } from "../../app/db.server";
import { readMigrations } from "../../app/db/migrations.server";
import { checkMigrations } from "../../app/health.server";
import { withPgClient } from "../helpers/pg";
import { runTs } from "./run";

const MIGRATE = "scripts/migrate.ts";
const GATE = "test/deploy/fixtures/start-gate.ts";
const migrations = readMigrations();

const SECRETS_NOTHING_TO_DO =
  "db:migrate: secrets: 0 clear token(s) encrypted, 0 re-encrypted, 0 webhook secret(s) moved, 0 unreadable";

describe("db:migrate refuses what it cannot do, with one line", () => {
  it("needs DATABASE_URL", async () => {
    const run = await runTs(MIGRATE, { DATABASE_URL: "" });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toMatch(/^db:migrate needs DATABASE_URL/);
  });

  it("refuses a schema name that is not a plain identifier, before connecting", async () => {
    const run = await runTs(MIGRATE, {
      DATABASE_URL: 'postgresql://u:pw@127.0.0.1:1/db?schema=x";drop',
    });
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      "db:migrate failed: Invalid schema name in the URL (letters, digits and _ only)",
    );
  });

  it("never prints the URL's password when the server does not answer", async () => {
    const run = await runTs(MIGRATE, {
      DATABASE_URL: "postgresql://someone:s3cret-pw-42@127.0.0.1:1/db?schema=x",
    });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(/^db:migrate failed: /);
    expect(run.stdout + run.stderr).not.toContain("s3cret-pw-42");
  });
});

const server = process.env.TEST_DATABASE_URL;

describe.skipIf(!server)("?schema= on PostgreSQL", () => {
  const suffix = `${process.pid}_${randomBytes(3).toString("hex")}`;
  const migrated = `deploy_m_${suffix}`;
  const empty = `deploy_e_${suffix}`;
  const urlFor = (schema: string) => {
    const u = new URL(server!);
    u.searchParams.set("schema", schema);
    return u.toString();
  };
  const tables = (schema: string) =>
    withPgClient(server!, async (c) => {
      const { rows } = await c.query<{ t: string }>(
        `SELECT table_name AS t FROM information_schema.tables
          WHERE table_schema = $1 ORDER BY 1`,
        [schema],
      );
      return rows.map((r) => r.t);
    });
  const clients: PrismaClient[] = [];
  const clientFor = (schema: string) => {
    const c = new PrismaClient({ adapter: pgAdapterFor(urlFor(schema), 1) });
    clients.push(c);
    return c;
  };

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.$disconnect()));
    await withPgClient(server!, async (c) => {
      for (const s of [migrated, empty]) await c.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    });
  });

  it("creates the schema and its tables there, and nothing in public", async () => {
    const publicBefore = await tables("public");
    const run = await runTs(MIGRATE, { DATABASE_URL: urlFor(migrated) });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n")).toEqual([
      ...migrations.map((m) => `applied ${m.name}`),
      `db:migrate: ${migrations.length} migration(s) applied to schema "${migrated}"`,
      // The test environment sets ENCRYPTION_KEY: secrets at rest are migrated after the schema.
      SECRETS_NOTHING_TO_DO,
    ]);
    expect(await tables(migrated)).toEqual(
      expect.arrayContaining(["_prisma_migrations", "Job", "Session", "Shop", "SvcAccount"]),
    );
    expect(await tables("public")).toEqual(publicBefore);
    expect(await checkMigrations(clientFor(migrated), { maxAgeMs: 0 })).toEqual({ state: "ok" });
  });

  it("a second run applies nothing", async () => {
    const run = await runTs(MIGRATE, { DATABASE_URL: urlFor(migrated) });
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n")).toEqual([
      `db:migrate: schema "${migrated}" is up to date`,
      SECRETS_NOTHING_TO_DO,
    ]);
  });

  it("then encrypts a token an older version left in clear", async () => {
    const db = clientFor(migrated);
    await db.session.create({
      data: {
        id: "offline_legacy.myshopify.com",
        shop: "legacy.myshopify.com",
        state: "x",
        accessToken: "legacy-clear-token-0123456789",
      },
    });
    const run = await runTs(MIGRATE, { DATABASE_URL: urlFor(migrated) });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("secrets: 1 clear token(s) encrypted");
    const row = await db.session.findUniqueOrThrow({
      where: { id: "offline_legacy.myshopify.com" },
    });
    expect(row.accessToken).toMatch(/^v2\./);
    expect(row.accessToken).not.toContain("legacy-clear-token");
    await db.session.delete({ where: { id: row.id } });
  });

  // Prisma's CLI lingers ~10 s after its work: a longer time-out than the default.
  it(
    "Prisma's own tooling, through prisma.config.ts, sees the same schema as migrated",
    { timeout: 90_000 },
    async () => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ["node_modules/prisma/build/index.js", "migrate", "status"],
        { env: { ...process.env, DATABASE_URL: urlFor(migrated) }, timeout: 60_000 },
      );
      expect(stdout).toContain(`schema "${migrated}"`);
      expect(stdout).toContain("Database schema is up to date!");
    },
  );

  it("a process behind the start-up gate runs on the migrated schema", async () => {
    const run = await runTs(GATE, { DATABASE_URL: urlFor(migrated) });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("gate passed");
  });

  it("refuses to run on an unmigrated schema, with one line and no stack", async () => {
    await withPgClient(server!, (c) => c.query(`CREATE SCHEMA "${empty}"`));
    const run = await runTs(GATE, { DATABASE_URL: urlFor(empty) });
    expect(run.code).toBe(1);
    expect(run.stdout).not.toContain("gate passed");
    expect(run.stderr.trim()).toBe(
      `worker refuses to start: database ${migrations.length} migration(s) not applied ` +
        `(${migrations
          .slice(0, 3)
          .map((m) => m.name)
          .join(", ")} and ${migrations.length - 3} more); run \`npm run db:migrate\` first`,
    );
    expect(await tables(empty)).toEqual([]);
  });
});
