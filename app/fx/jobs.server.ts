/**
 * The exchange-rate refresh on a schedule: every hour a worker asks whether the rates source is
 * due (its last good fetch is 12 hours old, or there is none) and fetches it if so, so that
 * rates stay fresh while no order is being placed, and orders held for want of a rate go on
 * once the source answers again (refreshRates re-checks them).
 */
import { config } from "../config.server";
import type { JobHandler, RecurringJob } from "../jobs/handler";
import { refreshDue, refreshRates } from "./rates.server";

export const FX_JOB = { refresh: "fx.refresh" } as const;

export function fxHandlers(
  url: () => string = () => config.FX_RATES_URL,
): Record<string, JobHandler> {
  return {
    [FX_JOB.refresh]: async (ctx) => {
      const source = url();
      const now = Date.now();
      if (!source) return { skipped: "no rates source (FX_RATES_URL is off)" };
      if (!(await refreshDue(ctx.prisma, source, now))) return { skipped: "not due" };
      // A failure fails this run; the next hour's run tries again.
      const currencies = await refreshRates(ctx.prisma, source, now);
      return { currencies: currencies.length };
    },
  };
}

export const fxRecurringJobs: RecurringJob[] = [{ kind: FX_JOB.refresh, everyMs: 3600_000 }];
