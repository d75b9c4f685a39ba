/**
 * Worker processes, as operators run them: their log lines carry the job's id, kind and shop
 * (and the order a use case adds), and `npm run worker` with METRICS_PORT serves its metrics.
 * The app's logger writes to the process's stdout, so both run as child processes and the test
 * reads what they print.
 */
import type { ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { embeddedDatabase, prisma } from "../../app/db.server";
import { enqueue } from "../../app/jobs/enqueue.server";
import { exited, spawnTs, waitForLine } from "../helpers/child";
import { parseMetrics, value } from "./scrape";

/** Every JSON line the child printed. */
function jsonLines(child: ChildProcess): () => Array<Record<string, unknown>> {
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  return () =>
    out
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Polls until `read` returns something (a child's output arrives when it arrives). */
async function eventually<T>(read: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = read();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error("timed out waiting for the child");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The URL another process uses to reach this test file's database. */
async function sharedUrl(): Promise<{ url: string; poolMax: string }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, poolMax: "2" };
  // The embedded PGlite accepts two connections: this process's pool of one, and the child's.
  return { url: (await embeddedDatabase()).url, poolMax: "1" };
}

const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    await exited(c);
  }
});

describe("log lines of a job", () => {
  it("carry jobId, jobKind and shop, and the order the handler added, however deep", async () => {
    // Its own database: the test's, or an embedded one in memory of its own.
    const child = spawnTs("test/metrics/fixtures/log-child.ts", { LOG_LEVEL: "info" });
    children.push(child);
    const lines = jsonLines(child);
    const done = await waitForLine(child, /^done \d+$/, 60_000);
    const jobId = done.split(" ")[1];
    expect(await exited(child)).toBe(0);

    const all = lines();
    const deep = all.find((l) => l.msg === "written deep inside the job");
    expect(deep).toMatchObject({
      jobId,
      jobKind: "test.logs",
      shop: "log-context.myshopify.com",
      orderId: "order-42",
      step: "deep",
    });
    const failed = all.find((l) => l.msg === "job failed");
    expect(failed).toMatchObject({
      jobId,
      jobKind: "test.logs",
      shop: "log-context.myshopify.com",
    });
    // Outside the job, no job's context leaks onto a line.
    for (const msg of ["before any job", "after the job"]) {
      const line = all.find((l) => l.msg === msg);
      expect(line, msg).toBeDefined();
      for (const k of ["jobId", "jobKind", "shop", "orderId"])
        expect(line, msg).not.toHaveProperty(k);
    }
  }, 90_000);
});

describe("npm run worker with METRICS_PORT", () => {
  it("serves its metrics on a port of its own, and its job lines carry their context", async () => {
    const { url, poolMax } = await sharedUrl();
    const kind = "shopify:app/scopes_update";
    // A real job of a real handler that fails for good (its payload names no event).
    const { id } = await enqueue(prisma, {
      kind,
      payload: {},
      shopDomain: "worker-metrics.myshopify.com",
      maxAttempts: 1,
    });
    const child = spawnTs("app/worker/main.ts", {
      DATABASE_URL: url,
      DATABASE_POOL_MAX: poolMax,
      NODE_ENV: "development",
      LOG_LEVEL: "info",
      METRICS_PORT: "0",
      METRICS_HOST: "127.0.0.1",
      WORKER_CONCURRENCY: "1",
    });
    children.push(child);
    const lines = jsonLines(child);
    const listening = JSON.parse(await waitForLine(child, /metrics listening/, 60_000)) as {
      metricsPort: number;
    };
    expect(listening.metricsPort).toBeGreaterThan(0);
    // (It may fail before the listener is up: read everything printed, not what comes next.
    // The worker's own recurring jobs may print lines too: this job's is the one with its id.)
    const failed = await eventually(() =>
      lines().find((l) => l.msg === "job failed" && l.jobId === String(id)),
    );

    const res = await fetch(`http://127.0.0.1:${listening.metricsPort}/metrics`);
    expect(res.status).toBe(200);
    const s = parseMetrics(await res.text());
    expect(value(s, "dropship_jobs_total", { kind, outcome: "dead" })).toBe(1);
    expect(value(s, "dropship_queue_dead_jobs", { kind })).toBe(1);
    // Every kind of the app's handlers is reported, queued or not.
    expect(
      s.some((x) => x.name === "dropship_queue_due_jobs" && x.labels.kind === "fulfilment.place"),
    ).toBe(true);

    expect(failed).toMatchObject({
      jobId: String(id),
      jobKind: kind,
      shop: "worker-metrics.myshopify.com",
    });

    child.kill("SIGTERM");
    expect(await exited(child)).toBe(0);
    const job = await prisma.job.findUniqueOrThrow({ where: { id } });
    expect(job.state).toBe("dead");
  }, 120_000);
});
