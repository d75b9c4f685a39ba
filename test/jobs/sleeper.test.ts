/**
 * The worker loop's idle time alone (app/worker/sleeper.ts), on a fake clock: a sleep ends at
 * its time or at a wake; a wake while awake skips the next sleep of the round only; a due time
 * ends a sleep early when it is sooner, and never makes one longer; the due times of delayed
 * jobs are kept until they pass, and a lost connection (or too many of them) means asking.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DueTimes, Sleeper } from "../../app/worker/sleeper";

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Sleeps `ms` and reports when it ended (fake ms since the start), or null while asleep. */
function sleeping(s: Sleeper, ms: number) {
  const start = Date.now();
  let endedAfter: number | null = null;
  void s.sleep(ms).then(() => (endedAfter = Date.now() - start));
  return () => endedAfter;
}

describe("a sleep", () => {
  it("lasts its time when nothing wakes it", async () => {
    const s = new Sleeper();
    const ended = sleeping(s, 1000);
    await vi.advanceTimersByTimeAsync(999);
    expect(ended()).toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(ended()).toBe(1000);
  });

  it("ends at a wake, and the next sleep lasts its time again", async () => {
    const s = new Sleeper();
    const first = sleeping(s, 1000);
    await vi.advanceTimersByTimeAsync(200);
    s.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(first()).toBe(200);
    const second = sleeping(s, 1000);
    await vi.advanceTimersByTimeAsync(999);
    expect(second()).toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(second()).toBe(1000);
  });

  it("that a wake ended leaves nothing behind to spoil the next one", async () => {
    const s = new Sleeper();
    const first = sleeping(s, 1000);
    await vi.advanceTimersByTimeAsync(100);
    s.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(first()).toBe(100);
    // The next sleep outlives the first one's time; a wake after that still ends it.
    const second = sleeping(s, 5000);
    await vi.advanceTimersByTimeAsync(1400);
    expect(second()).toBeNull();
    s.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(second()).toBe(1400);
  });

  it("is skipped after a wake that came while awake, until the next round", async () => {
    const s = new Sleeper();
    s.wake();
    const skipped = sleeping(s, 1000);
    await vi.advanceTimersByTimeAsync(0);
    expect(skipped()).toBe(0);
    // Still the same round: skipped again; a new round forgets the wake.
    const again = sleeping(s, 1000);
    await vi.advanceTimersByTimeAsync(0);
    expect(again()).toBe(0);
    s.newRound();
    const slept = sleeping(s, 1000);
    await vi.advanceTimersByTimeAsync(500);
    expect(slept()).toBeNull();
    await vi.advanceTimersByTimeAsync(500);
    expect(slept()).toBe(1000);
  });
});

describe("a due time", () => {
  it("ends a sleep early when it is sooner, at that time", async () => {
    const s = new Sleeper();
    const ended = sleeping(s, 1000);
    s.wakeAt(Date.now() + 300);
    await vi.advanceTimersByTimeAsync(299);
    expect(ended()).toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(ended()).toBe(300);
  });

  it("never lengthens a sleep, and a later one does not replace a sooner one", async () => {
    const s = new Sleeper();
    const ended = sleeping(s, 1000);
    s.wakeAt(Date.now() + 400);
    s.wakeAt(Date.now() + 600);
    s.wakeAt(Date.now() + 1000);
    s.wakeAt(Date.now() + 5000);
    await vi.advanceTimersByTimeAsync(400);
    expect(ended()).toBe(400);
  });

  it("a sooner one replaces a later one; a past one ends the sleep at once", async () => {
    const s = new Sleeper();
    const ended = sleeping(s, 1000);
    s.wakeAt(Date.now() + 600);
    s.wakeAt(Date.now() + 250);
    await vi.advanceTimersByTimeAsync(250);
    expect(ended()).toBe(250);
    const next = sleeping(s, 1000);
    s.wakeAt(Date.now() - 10);
    await vi.advanceTimersByTimeAsync(0);
    expect(next()).toBe(0);
  });

  it("of a sleep that ended is forgotten: it does not end the next sleep", async () => {
    const s = new Sleeper();
    const first = sleeping(s, 100);
    s.wakeAt(Date.now() + 90);
    s.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(first()).toBe(0);
    const second = sleeping(s, 1000);
    await vi.advanceTimersByTimeAsync(500);
    expect(second()).toBeNull();
    await vi.advanceTimersByTimeAsync(500);
    expect(second()).toBe(1000);
  });

  it("while awake: one within 50 ms skips the next sleep, a later one does not", async () => {
    const s = new Sleeper();
    s.wakeAt(Date.now() + 51);
    const slept = sleeping(s, 1000);
    await vi.advanceTimersByTimeAsync(0);
    expect(slept()).toBeNull();
    await vi.advanceTimersByTimeAsync(1000);
    expect(slept()).toBe(1000);
    s.newRound();
    s.wakeAt(Date.now() + 50);
    const skipped = sleeping(s, 1000);
    await vi.advanceTimersByTimeAsync(0);
    expect(skipped()).toBe(0);
  });

  it("takes the clock it is given", async () => {
    const s = new Sleeper();
    const ended = sleeping(s, 1000);
    // "now" is 700 ms ago: the due time 800 ms after it is 100 ms away.
    s.wakeAt(Date.now() + 100, Date.now() - 700);
    await vi.advanceTimersByTimeAsync(800);
    expect(ended()).toBe(800);
    s.newRound();
    // Awake, measured from the given clock: 40 ms away, so the next sleep is skipped.
    s.wakeAt(Date.now() + 1000, Date.now() + 960);
    const skipped = sleeping(s, 1000);
    await vi.advanceTimersByTimeAsync(0);
    expect(skipped()).toBe(0);
  });
});

describe("the due times of delayed jobs", () => {
  it("are not known at first, nor after a forget: the first look asks, then they are trusted", () => {
    const d = new DueTimes();
    expect(d.next(0)).toBe("ask");
    expect(d.next(0)).toBeNull();
    d.add(100);
    d.forget();
    expect(d.next(0)).toBe("ask");
    expect(d.next(0)).toBeNull();
  });

  it("give the earliest still ahead, and drop those that passed", () => {
    const d = new DueTimes();
    d.next(0);
    d.add(300);
    d.add(100);
    d.add(200);
    expect(d.next(0)).toBe(100);
    expect(d.next(100)).toBe(200);
    expect(d.next(250)).toBe(300);
    expect(d.next(300)).toBeNull();
    expect(d.next(Date.now())).toBeNull();
  });

  it("keep at most 10,000: one more, and the next look asks", () => {
    const d = new DueTimes();
    d.next(0);
    for (let i = 1; i <= 10_000; i++) d.add(i);
    expect(d.next(0)).toBe(1);
    d.add(5);
    expect(d.next(0)).toBe("ask");
    expect(d.next(0)).toBeNull();
  });
});
