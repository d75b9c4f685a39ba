/**
 * Injected faults. Each API call rolls once (seeded, so a run is reproducible) against the
 * cumulative rates; webhook deliveries roll separately for drop and duplicate.
 *
 * Semantics, chosen to be realistic for mutating calls:
 * - 5xx: the front answers 503 before the operation runs (no effect).
 * - busy (1600000), limited (1600200): answered before the operation runs (no effect).
 * - timeout: the operation RUNS (an order is created, a payment is taken), then the reply is
 *   held for `timeoutMs` and sent late (or the connection is dropped with `timeoutDrop`).
 */
import { createRng, type Rng } from "./prng";

export interface FaultConfig {
  rate5xx?: number;
  rateTimeout?: number;
  rateBusy?: number;
  rateLimited?: number;
  dropWebhook?: number;
  duplicateWebhook?: number;
  ops?: string[];
  timeoutMs?: number;
  /** After a time-out, destroy the connection instead of answering late. */
  timeoutDrop?: boolean;
  seed?: number;
}

export type ApiFault = "5xx" | "timeout" | "busy" | "limited";

export class Faults {
  private config: FaultConfig = {};
  private rng: Rng = createRng(1);

  set(config: FaultConfig): void {
    for (const [k, v] of Object.entries(config)) {
      if (k.startsWith("rate") || k.endsWith("Webhook")) {
        if (typeof v !== "number" || v < 0 || v > 1)
          throw new Error(`${k} must be a rate in [0, 1]`);
      }
    }
    this.config = { ...config };
    this.rng = createRng(config.seed ?? 1);
  }

  clear(): void {
    this.config = {};
  }

  get timeoutMs(): number {
    return this.config.timeoutMs ?? 15_000;
  }

  get timeoutDrop(): boolean {
    return this.config.timeoutDrop ?? false;
  }

  snapshot(): FaultConfig {
    return { ...this.config };
  }

  pickApiFault(op: string): ApiFault | undefined {
    const c = this.config;
    if (c.ops && !c.ops.includes(op)) return undefined;
    const table: Array<[ApiFault, number]> = [
      ["5xx", c.rate5xx ?? 0],
      ["timeout", c.rateTimeout ?? 0],
      ["busy", c.rateBusy ?? 0],
      ["limited", c.rateLimited ?? 0],
    ];
    if (table.every(([, r]) => r === 0)) return undefined;
    const roll = this.rng.next();
    let edge = 0;
    for (const [fault, rate] of table) {
      edge += rate;
      if (roll < edge) return fault;
    }
    return undefined;
  }

  dropWebhook(): boolean {
    const r = this.config.dropWebhook ?? 0;
    return r > 0 && this.rng.next() < r;
  }

  duplicateWebhook(): boolean {
    const r = this.config.duplicateWebhook ?? 0;
    return r > 0 && this.rng.next() < r;
  }
}
