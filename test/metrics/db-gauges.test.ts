/**
 * The gauges read from the database at scrape time (the queue by kind, the orders by state and
 * reason) and the worker's job counters, against real rows and a real worker.
 */
import { PrismaClient } from "@prisma/client";
import { beforeEach, describe, expect, it } from "vitest";
import { pgAdapterFor, prisma } from "../../app/db.server";
import { claim } from "../../app/jobs/queue.server";
import { enqueue } from "../../app/jobs/enqueue.server";
import { PermanentJobError, RetryLater } from "../../app/jobs/handler";
import { Worker, type WorkerOptions } from "../../app/worker/worker.server";
import { dbGauges } from "../../app/metrics/db-gauges.server";
import { scrape, total, value } from "./scrape";

const KIND = "metrics.test";
const OTHER_KIND = "metrics.test-other";

beforeEach(async () => {
  await prisma.job.deleteMany();
  await prisma.shopOrder.deleteMany();
});

/** A worker that knows these kinds (and so registers them as labels). */
function workerFor(handlers: WorkerOptions["handlers"]) {
  return new Worker({ prisma, handlers, concurrency: 1 });
}

describe("queue gauges", () => {
  it("show due, scheduled, running and dead jobs by kind, and the age of the oldest due one", async () => {
    workerFor({ [KIND]: async () => undefined, [OTHER_KIND]: async () => undefined });
    const minuteAgo = new Date(Date.now() - 60_000);
    await enqueue(prisma, { kind: KIND, runAt: minuteAgo });
    await enqueue(prisma, { kind: KIND });
    await enqueue(prisma, { kind: KIND });
    await enqueue(prisma, { kind: KIND, runAt: new Date(Date.now() + 3_600_000) });
    const dead = await enqueue(prisma, { kind: KIND });
    await prisma.job.update({ where: { id: dead.id }, data: { state: "dead" } });
    const done = await enqueue(prisma, { kind: KIND });
    await prisma.job.update({ where: { id: done.id }, data: { state: "completed" } });
    // Kinds no handler of this process knows are summed under "other" (bounded labels).
    await enqueue(prisma, { kind: "svc.SOMETHING_NEW" });
    await enqueue(prisma, { kind: "svc.ANOTHER_NEW" });

    let s = await scrape();
    const k = { kind: KIND };
    expect(value(s, "dropship_queue_due_jobs", k)).toBe(3);
    expect(value(s, "dropship_queue_scheduled_jobs", k)).toBe(1);
    expect(value(s, "dropship_queue_running_jobs", k)).toBe(0);
    expect(value(s, "dropship_queue_dead_jobs", k)).toBe(1);
    const age = value(s, "dropship_queue_oldest_due_age_seconds", k);
    expect(age).toBeGreaterThanOrEqual(59);
    expect(age).toBeLessThan(3600);
    // A known kind with nothing queued says 0 rather than nothing.
    expect(
      s.some((x) => x.name === "dropship_queue_due_jobs" && x.labels.kind === OTHER_KIND),
    ).toBe(true);
    expect(value(s, "dropship_queue_due_jobs", { kind: OTHER_KIND })).toBe(0);
    expect(value(s, "dropship_queue_due_jobs", { kind: "other" })).toBe(2);
    expect(s.some((x) => x.labels.kind === "svc.SOMETHING_NEW")).toBe(false);
    expect(value(s, "dropship_metrics_db_up")).toBe(1);

    // A worker takes the oldest: one fewer due, one running, the oldest now the newer ones.
    const [taken] = await claim(prisma, "w-test", { limit: 1, leaseMs: 60_000, kinds: [KIND] });
    expect(taken?.runAt.getTime()).toBe(minuteAgo.getTime());
    s = await scrape();
    expect(value(s, "dropship_queue_due_jobs", k)).toBe(2);
    expect(value(s, "dropship_queue_running_jobs", k)).toBe(1);
    expect(value(s, "dropship_queue_oldest_due_age_seconds", k)).toBeLessThan(59);
  });
});

describe("order gauges", () => {
  it("count orders by state, and held and failed ones by reason, as the rows say", async () => {
    const rows: Array<[string, string | null]> = [
      ["RECEIVED", null],
      ["RECEIVED", null],
      ["HELD", "short_balance"],
      ["HELD", "short_balance"],
      ["HELD", "review_window"],
      ["FAILED", "create_failed"],
      ["FAILED", null],
      ["PAID", null],
      ["DELIVERED", "ignored-for-delivered"],
    ];
    let n = 0;
    for (const [state, reasonCode] of rows) {
      n++;
      await prisma.shopOrder.create({
        data: {
          shopDomain: "gauges.myshopify.com",
          shopifyOrderId: String(n),
          orderNumber: `gauges-${n}`,
          state,
          reasonCode,
        },
      });
    }
    const s = await scrape();
    const byState = await prisma.shopOrder.groupBy({ by: ["state"], _count: true });
    for (const g of byState) expect(value(s, "dropship_orders", { state: g.state })).toBe(g._count);
    expect(value(s, "dropship_orders", { state: "HELD" })).toBe(3);
    expect(value(s, "dropship_orders", { state: "CANCELLED" })).toBe(0);
    expect(total(s, "dropship_orders")).toBe(rows.length);

    const r = "dropship_orders_held_failed";
    expect(value(s, r, { state: "HELD", reason: "short_balance" })).toBe(2);
    expect(value(s, r, { state: "HELD", reason: "review_window" })).toBe(1);
    expect(value(s, r, { state: "FAILED", reason: "create_failed" })).toBe(1);
    expect(value(s, r, { state: "FAILED", reason: "none" })).toBe(1);
    expect(total(s, r)).toBe(5);
  });
});

describe("job counters", () => {
  it("count each run by kind and outcome: completed, retried, dead, rescheduled", async () => {
    const worker = workerFor({
      [KIND]: async (ctx) => {
        const mode = (ctx.payload as { mode: string }).mode;
        if (mode === "fail") throw new Error("the service said no");
        if (mode === "permanent") throw new PermanentJobError("cannot ever work");
        if (mode === "later") throw new RetryLater(60_000, "not yet");
        return { ok: true };
      },
    });
    const before = await scrape();
    for (const mode of ["ok", "ok", "fail", "permanent", "later"]) {
      await enqueue(prisma, { kind: KIND, payload: { mode }, maxAttempts: 3 });
    }
    await enqueue(prisma, { kind: KIND, payload: { mode: "fail" }, maxAttempts: 1 });
    expect(await worker.drain()).toBe(6);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) =>
      value(after, name, labels) - value(before, name, labels);

    const runs = "dropship_jobs_total";
    expect(delta(runs, { kind: KIND, outcome: "completed" })).toBe(2);
    expect(delta(runs, { kind: KIND, outcome: "retried" })).toBe(1);
    expect(delta(runs, { kind: KIND, outcome: "dead" })).toBe(2);
    expect(delta(runs, { kind: KIND, outcome: "rescheduled" })).toBe(1);
    expect(delta("dropship_job_failures_total", { kind: KIND })).toBe(3);
    expect(delta("dropship_job_duration_seconds_count", { kind: KIND, outcome: "completed" })).toBe(
      2,
    );
    expect(delta("dropship_job_start_delay_seconds_count", { kind: KIND })).toBe(6);
    // The database agrees: the two dead ones are kept; the retried one (due again within a
    // second) and the rescheduled one wait.
    expect(value(after, "dropship_queue_dead_jobs", { kind: KIND })).toBe(2);
    const waiting =
      value(after, "dropship_queue_scheduled_jobs", { kind: KIND }) +
      value(after, "dropship_queue_due_jobs", { kind: KIND });
    expect(waiting).toBe(2);
  });
});

describe("when the database cannot be read", () => {
  it("the scrape still answers, with dropship_metrics_db_up 0", async () => {
    // A real client of a server that is not there (nothing listens on port 1).
    const unreachable = new PrismaClient({
      adapter: pgAdapterFor("postgresql://nobody@127.0.0.1:1/none", 1),
    });
    const errors: unknown[] = [];
    const gauges = dbGauges(
      () => unreachable,
      (e) => errors.push(e),
    );
    try {
      const s = await scrape();
      expect(value(s, "dropship_metrics_db_up")).toBe(0);
      expect(errors.length).toBe(1);
    } finally {
      gauges.invalidate();
      await unreachable.$disconnect();
      // Back to the test database for any later test of this file.
      dbGauges(
        () => prisma,
        () => undefined,
      );
    }
  });
});
