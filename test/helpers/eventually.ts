/**
 * Waits until a condition holds, looking every 50 ms, up to `timeoutMs` (default 20 s: what
 * travels through the database, a notification say, takes a moment to arrive, longer on a busy
 * machine). Returns whether it came to hold: the caller asserts it.
 */
import { setTimeout as sleep } from "node:timers/promises";

export async function eventually(
  holds: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await holds()) return true;
    if (Date.now() >= until) return false;
    await sleep(50);
  }
}
