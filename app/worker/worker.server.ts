/**
 * The worker: claims due jobs, runs each (its handler and its recorded outcome:
 * app/worker/run-job.server.ts), keeps its leases alive, schedules recurring jobs, and on stop
 * finishes or releases what it holds.
 *
 * It runs inside the web process in the embedded mode, and as separate processes
 * (`npm run worker`) against PostgreSQL.
 */
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { PrismaClient } from "@prisma/client";
import type { JobHandler, RecurringJob } from "../jobs/handler";
import {
  buryExpired,
  claim,
  errorMessage,
  heartbeat,
  type JobRow,
  release,
} from "../jobs/queue.server";
import { enqueue } from "../jobs/enqueue.server";
import { CompletionBatcher } from "../jobs/completions.server";
import { registerJobKinds } from "../metrics/registry.server";
import { executeJob, type JobRunner } from "./run-job.server";
import { DueTimes, Sleeper } from "./sleeper";

/** Notifications this close together make one claim. */
const NUDGE_MS = 20;

export interface WorkerOptions {
  prisma: PrismaClient;
  handlers: Record<string, JobHandler>;
  concurrency?: number;
  /** How often an idle worker looks for jobs (default 500 ms). */
  pollMs?: number;
  /**
   * How often it looks while a job wake-up connection is up (`setListening(true)`, default 5 s):
   * a safety net only, since each new job wakes it (`nudge`).
   */
  listeningPollMs?: number;
  leaseMs?: number;
  recurring?: RecurringJob[];
  workerId?: string;
  log?: (level: "info" | "warn" | "error", msg: string, data?: object) => void;
}

export function newWorkerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
}

/**
 * Enqueues the current slot of every recurring job; idempotent across all processes. With
 * `scheduled` (a worker's memory of the slots it enqueued), a slot this process already
 * enqueued costs no statement: each process writes each slot once, not every few seconds.
 */
export async function scheduleRecurring(
  db: PrismaClient,
  jobs: RecurringJob[],
  now = Date.now(),
  scheduled?: Map<string, number>,
) {
  for (const r of jobs) {
    const slot = Math.floor(now / r.everyMs);
    if (scheduled?.get(r.kind) === slot) continue;
    await enqueue(db, {
      kind: r.kind,
      payload: r.payload ?? {},
      runAt: new Date(slot * r.everyMs),
      idempotencyKey: `recurring:${r.kind}:${slot}`,
      maxAttempts: 3,
    });
    scheduled?.set(r.kind, slot);
  }
}

export class Worker {
  readonly id: string;
  private readonly prisma: PrismaClient;
  private readonly handlers: Record<string, JobHandler>;
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly listeningPollMs: number;
  private listening = false;
  private readonly sleeper = new Sleeper();
  /** Delayed jobs heard of while listening. */
  private readonly dues = new DueTimes();
  private readonly leaseMs: number;
  private readonly recurring: RecurringJob[];
  /** The slot of each recurring job this worker last enqueued. */
  private readonly scheduledSlots = new Map<string, number>();
  private readonly log: NonNullable<WorkerOptions["log"]>;
  private readonly active = new Map<bigint, { controller: AbortController; done: Promise<void> }>();
  private running = false;
  private loop?: Promise<void>;
  private lastHeartbeat = 0;
  private lastHousekeeping = 0;
  /** What each job it runs is lent. */
  private readonly runner: JobRunner;

  constructor(opts: WorkerOptions) {
    this.prisma = opts.prisma;
    this.handlers = opts.handlers;
    this.concurrency = opts.concurrency ?? 2;
    this.pollMs = opts.pollMs ?? 500;
    this.listeningPollMs = opts.listeningPollMs ?? 5_000;
    // Renewed every third of it: a job held by a process that died runs again within 30 s.
    this.leaseMs = opts.leaseMs ?? 30_000;
    this.recurring = opts.recurring ?? [];
    this.id = opts.workerId ?? newWorkerId();
    this.log = opts.log ?? (() => {});
    this.runner = {
      prisma: this.prisma,
      workerId: this.id,
      handlers: this.handlers,
      completions: new CompletionBatcher(this.prisma, this.id),
      log: this.log,
    };
    registerJobKinds(Object.keys(this.handlers));
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops claiming; waits up to `graceMs` for running jobs, then releases the rest. */
  async stop(graceMs = 10_000): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    const pending = [...this.active.values()].map((a) => a.done);
    const timedOut = await Promise.race([
      Promise.all(pending).then(() => false),
      new Promise<boolean>((r) => setTimeout(() => r(true), graceMs).unref()),
    ]);
    if (timedOut) {
      // Release first, then abort: the aborted handlers' failures then find nothing to record.
      const ids = [...this.active.keys()];
      const n = await release(this.prisma, ids, this.id);
      for (const a of this.active.values()) a.controller.abort();
      this.log("warn", "released unfinished jobs at shutdown", { released: n });
    }
  }

  /** The job wake-up connection is up (true: the idle poll is a rare safety net) or lost. */
  setListening(up: boolean): void {
    this.listening = up;
    // What was missed while no one listened is not known: the next idle look asks.
    this.dues.forget();
    if (!up) this.wake();
  }

  /**
   * A job became available (a notification, with the job's due time when it gives one): the
   * worker claims a few milliseconds after it is due (notifications that come close together
   * make one claim), and an idle look counts with it.
   */
  nudge(dueAt?: number | null): void {
    const now = Date.now();
    const at = Math.max(dueAt ?? now, now);
    if (at > now) this.dues.add(at);
    this.sleeper.wakeAt(at + NUDGE_MS, now);
  }

  /** Claims what is due and runs it; resolves when those jobs are done. For tests and scripts. */
  async drain(maxRounds = 1000): Promise<number> {
    let ran = 0;
    for (let i = 0; i < maxRounds; i++) {
      const jobs = await claim(this.prisma, this.id, {
        limit: this.concurrency,
        leaseMs: this.leaseMs,
        kinds: Object.keys(this.handlers),
      });
      if (jobs.length === 0) break;
      await Promise.all(jobs.map((job) => this.execute(job)));
      ran += jobs.length;
    }
    return ran;
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        // Wakes from here on (a job finished, …) are for this round's claim or the next.
        this.sleeper.newRound();
        await this.housekeeping();
        // With no slot free, the claim asks for none and sends nothing.
        const limit = this.concurrency - this.active.size;
        const jobs = await claim(this.prisma, this.id, {
          limit,
          leaseMs: this.leaseMs,
          kinds: Object.keys(this.handlers),
        });
        for (const job of jobs) this.spawn(job);
        if (this.active.size >= this.concurrency) await this.sleep(this.pollMs);
        // Fewer than asked for: nothing else was due (the next is waited for, not asked again).
        else if (jobs.length < limit) await this.sleep(await this.idleMs());
      } catch (error) {
        this.log("error", "worker loop error", { err: errorMessage(error) });
        await this.sleep(Math.max(this.pollMs, 1000));
      }
    }
  }

  private async housekeeping(): Promise<void> {
    const now = Date.now();
    if (this.active.size > 0 && now - this.lastHeartbeat > this.leaseMs / 3) {
      this.lastHeartbeat = now;
      const ids = [...this.active.keys()];
      const kept = new Set(await heartbeat(this.prisma, this.id, ids, this.leaseMs));
      for (const id of ids) if (!kept.has(id)) this.active.get(id)?.controller.abort();
    }
    if (now - this.lastHousekeeping > 5_000) {
      this.lastHousekeeping = now;
      await buryExpired(this.prisma);
      await scheduleRecurring(this.prisma, this.recurring, now, this.scheduledSlots);
    }
  }

  /**
   * How long to sleep with nothing to claim: the poll interval (long while new jobs wake the
   * worker, short otherwise), or less when a job of ours is
   * due sooner (a payment window, a retry), so it starts on time rather than up to a poll late.
   * (Short polls need no look-up: it would cost as much as the claim it saves.)
   */
  private async idleMs(): Promise<number> {
    const poll = this.listening ? this.listeningPollMs : this.pollMs;
    if (poll <= 50) return poll;
    if (this.listening) {
      // The notifications told of every delayed job since the last look at the database.
      const now = Date.now();
      const next = this.dues.next(now);
      if (next !== "ask") return next === null ? poll : Math.max(5, Math.min(poll, next - now + 5));
    }
    const rows = await this.prisma.$queryRaw<{ ms: number | null }[]>`
      SELECT (EXTRACT(EPOCH FROM (min("runAt") - now())) * 1000)::float8 AS ms FROM "Job"
      WHERE "state" = 'available' AND "kind" = ANY(${Object.keys(this.handlers)}::text[])`;
    // An aggregate without GROUP BY: always one row, its min NULL when nothing waits.
    const ms = rows[0]!.ms;
    if (ms === null) return poll;
    // Listening, the due time is kept: a wake before it (a notification) must not forget it.
    if (this.listening) this.dues.add(Date.now() + Number(ms));
    return Math.max(5, Math.min(poll, Math.ceil(Number(ms)) + 5));
  }

  private wake(): void {
    this.sleeper.wake();
  }

  private sleep(ms: number): Promise<void> {
    return this.sleeper.sleep(ms);
  }

  private spawn(job: JobRow): void {
    const controller = new AbortController();
    const done = this.execute(job, controller).finally(() => {
      const wasFull = this.active.size >= this.concurrency;
      this.active.delete(job.id);
      // Listening, new jobs wake the worker by themselves: a finished one calls for a claim only
      // when it may let a job of its concurrency key start (no notification tells of that), or
      // when the worker was full (a job due meanwhile could not be taken).
      if (!this.listening || job.concurrencyKey !== null || wasFull) this.wake();
    });
    this.active.set(job.id, { controller, done });
  }

  /** Runs a job (its outcome recorded, app/worker/run-job.server.ts). */
  private execute(job: JobRow, controller = new AbortController()): Promise<void> {
    return executeJob(this.runner, job, controller);
  }
}
