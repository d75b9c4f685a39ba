/**
 * The simulator's clock: real time plus a movable offset. Real time keeps flowing (so a client
 * that waits a second sees its rate-limit window move), and tests jump ahead with `advance`.
 */
export interface SimClock {
  now(): number;
  advance(ms: number): void;
  set(ms: number): void;
}

export function createClock(): SimClock {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) throw new Error("clock.advance needs ms >= 0");
      offset += ms;
    },
    set(ms: number) {
      if (!Number.isFinite(ms)) throw new Error("clock.set needs a finite ms");
      offset = ms - Date.now();
    },
  };
}

/** `yyyy-MM-dd HH:mm:ss` in UTC, the order record's date format. */
export function formatUtc(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}

/** ISO 8601 with an explicit UTC offset, the token record's date format. */
export function formatIsoOffset(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "+00:00");
}
