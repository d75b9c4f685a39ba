/**
 * What a job handler is: the contract between the queue's runner (app/worker/) and the
 * capabilities that own the job kinds. Types and the two errors a handler throws; nothing here
 * runs a job.
 */
import type { Prisma, PrismaClient } from "@prisma/client";
import type { JobRow } from "./queue.server";

export interface JobContext {
  job: JobRow;
  payload: unknown;
  prisma: PrismaClient;
  workerId: string;
  /** Aborted when the worker stops or loses the lease: long handlers should give up. */
  signal: AbortSignal;
  /**
   * Runs `fn` in a transaction that also marks the job completed: what `fn` writes is the
   * job's outcome, recorded exactly once (if the lease was lost, it all rolls back).
   */
  commit<T>(
    fn: (tx: Prisma.TransactionClient) => Promise<T>,
    result?: Prisma.InputJsonValue,
  ): Promise<T>;
}

export type JobHandler = (ctx: JobContext) => Promise<Prisma.InputJsonValue | void>;

/** Thrown by a handler to run the job again later without counting it as a failure. */
export class RetryLater extends Error {
  constructor(
    readonly delayMs: number,
    reason: string,
  ) {
    super(reason);
    // Stryker disable next-line StringLiteral: message
    this.name = "RetryLater";
  }
}

/** Thrown by a handler when retrying cannot help: the job goes straight to `dead`. */
export class PermanentJobError extends Error {
  override name = "PermanentJobError";
}

export interface RecurringJob {
  kind: string;
  everyMs: number;
  payload?: Prisma.InputJsonValue;
}
