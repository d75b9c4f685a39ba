/**
 * The worker loop's idle time: a sleep that a wake ends early (a job finished, a notification,
 * a stop), or that ends at a due time learned while asleep; and the due times of delayed jobs
 * heard of through the job notifications, so that an idle worker wakes for them on time without
 * asking the database.
 */

/** A wake due this soon, while the loop is awake, skips its next sleep. */
const SOON_MS = 50;

export class Sleeper {
  private wakeSleeper?: () => void;
  /** A wake that came while the loop was not asleep: its next sleep is skipped. */
  private pending = false;
  private endsAt = 0;
  private early?: { at: number; timer: NodeJS.Timeout };

  /** Wakes from here on count for this round's next sleep (each round of the loop starts so). */
  newRound(): void {
    this.pending = false;
  }

  wake(): void {
    if (this.wakeSleeper) this.wakeSleeper();
    else this.pending = true;
  }

  /**
   * Ends the current sleep at `at` (epoch ms) when it would last longer; awake, a wake due
   * within `SOON_MS` skips the next sleep (a later one is the idle look's to count).
   */
  wakeAt(at: number, now = Date.now()): void {
    if (!this.wakeSleeper) {
      if (at - now <= SOON_MS) this.pending = true;
      return;
    }
    if (at >= this.endsAt) return;
    if (this.early && this.early.at <= at) return;
    clearTimeout(this.early?.timer);
    const timer = setTimeout(() => this.wake(), Math.max(0, at - now));
    this.early = { at, timer };
  }

  /** Skipped after a pending wake. */
  sleep(ms: number): Promise<void> {
    if (this.pending) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        clearTimeout(this.early?.timer);
        this.early = undefined;
        this.wakeSleeper = undefined;
        resolve();
      };
      const t = setTimeout(done, ms);
      this.endsAt = Date.now() + ms;
      this.wakeSleeper = done;
    });
  }
}

/** At most this many due times are kept; past it the database is asked instead. */
const MAX_KEPT = 10_000;

export class DueTimes {
  private times: number[] = [];
  /** Jobs may wait that no notification told of (at start, after a lost connection). */
  private unknown = true;

  add(at: number): void {
    if (this.times.length >= MAX_KEPT) this.forget();
    else this.times.push(at);
  }

  /** What is known no longer covers every waiting job: the next look asks the database. */
  forget(): void {
    this.times = [];
    this.unknown = true;
  }

  /**
   * The earliest due time still ahead (null: none known), or "ask" when the database must be
   * asked (and from then on the notifications are trusted again).
   */
  next(now = Date.now()): number | null | "ask" {
    if (this.unknown) {
      this.unknown = false;
      return "ask";
    }
    this.times = this.times.filter((t) => t > now);
    return this.times.length > 0 ? Math.min(...this.times) : null;
  }
}
