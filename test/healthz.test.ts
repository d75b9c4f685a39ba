import { PrismaClient } from "@prisma/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgAdapterFor, prisma } from "../app/db.server";
import { checkDatabase } from "../app/health.server";
import { loader } from "../app/routes/healthz";
import { callRoute } from "./helpers/remix";

describe("/healthz", () => {
  // The embedded database takes a few seconds to start; readiness waits for it.
  beforeAll(() => prisma.$connect());

  it("answers 200 with db ok after a real query", async () => {
    const res = await callRoute(loader, new Request("http://app.test/healthz"));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ db: "ok" });
    expect(res.headers.get("Cache-Control")).toBe("no-store");
  });

  // Port 1 on loopback: nothing listens there, the connection is refused at once.
  const unreachable = new PrismaClient({
    adapter: pgAdapterFor("postgresql://nobody@127.0.0.1:1/none", 1),
  });
  afterAll(() => unreachable.$disconnect());

  it("reports the database unavailable, without throwing, when it does not answer", async () => {
    expect(await checkDatabase(unreachable)).toBe("unavailable");
  });
});
