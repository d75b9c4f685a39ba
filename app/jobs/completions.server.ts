/**
 * Completions grouped into one statement: jobs that finish while a write is on its way are
 * completed together by the next one (a batch forms by itself under load, and a lone job waits
 * only for the turn of the event loop). Each caller learns its own job's outcome.
 */
import type { Prisma, PrismaClient } from "@prisma/client";
import { completeMany, LeaseLostError } from "./queue.server";

interface Waiting {
  id: bigint;
  result: Prisma.InputJsonValue | null;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class CompletionBatcher {
  private queued: Waiting[] = [];
  private flushing = false;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly workerId: string,
    private readonly maxBatch = 500,
  ) {}

  /** Resolves once the job is recorded completed; LeaseLostError if this worker lost it. */
  complete(id: bigint, result: Prisma.InputJsonValue | null): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queued.push({ id, result, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.queued.length > 0) {
      const batch = this.queued.splice(0, this.maxBatch);
      try {
        const done = await completeMany(this.prisma, this.workerId, batch);
        for (const w of batch)
          if (done.has(w.id)) w.resolve();
          else w.reject(new LeaseLostError(w.id));
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
    this.flushing = false;
  }
}
