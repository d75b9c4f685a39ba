/** Per-account, per-operation sliding one-second windows on the simulator clock. */
import type { SimClock } from "./clock";

export class RateLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(private readonly clock: SimClock) {}

  /** Records and allows the call when fewer than `perSecond` calls fell in the last second. */
  tryAcquire(accountId: string, op: string, perSecond: number): boolean {
    const now = this.clock.now();
    const key = `${accountId}\u0000${op}`;
    const recent = (this.hits.get(key) ?? []).filter((t) => t <= now && now - t < 1000);
    if (recent.length >= perSecond) {
      this.hits.set(key, recent);
      return false;
    }
    recent.push(now);
    this.hits.set(key, recent);
    return true;
  }
}
