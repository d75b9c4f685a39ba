/**
 * One job worker process of the chaos bench (bench/chaos.ts starts four and kills some with
 * SIGKILL): the production Worker with the app's handlers and the pipeline's, wired as the
 * fulfilment harness wires them, on the bench's database, with the Shopify library's HTTP
 * routed to each shop's simulator, woken by new jobs as in production (app/jobs/wake.server.ts).
 * Prints `ready` once it runs.
 *
 * Environment (set by bench/chaos.ts): DATABASE_URL, DATABASE_POOL_MAX, the app's variables,
 * CHAOS_SHOP_SIMS (JSON: shop domain → shop simulator URL), CHAOS_CONCURRENCY,
 * CHAOS_CLIENT_TIMEOUT_MS.
 */
import { closeDatabase, prisma } from "../app/db.server";
import { fulfilmentHandlers, fulfilmentRecurringJobs } from "../app/fulfilment/handlers.server";
import { listenForJobs } from "../app/jobs/wake.server";
import { eventHandlers } from "../app/worker/events.server";
import { handlers } from "../app/worker/registry.server";
import { Worker } from "../app/worker/worker.server";
import { harnessDeps } from "../test/fulfilment/harness";
import { routeShopifyToSim } from "../test/sim/shop/route-shopify";

const sims = JSON.parse(process.env.CHAOS_SHOP_SIMS ?? "{}") as Record<string, string>;
const first = Object.values(sims)[0];
if (!first) throw new Error("CHAOS_SHOP_SIMS names no shop simulator");
routeShopifyToSim(first, { simFor: (host) => sims[host] });

const deps = harnessDeps({
  now: () => Date.now(),
  clientTimeoutMs: Number(process.env.CHAOS_CLIENT_TIMEOUT_MS ?? 5_000),
});
const worker = new Worker({
  prisma,
  handlers: { ...handlers, ...eventHandlers(() => deps), ...fulfilmentHandlers(() => deps) },
  recurring: fulfilmentRecurringJobs,
  concurrency: Number(process.env.CHAOS_CONCURRENCY ?? 4),
  pollMs: 50,
  // Failures that will be retried are the expected cost of injected faults; the bench counts
  // dead jobs from the database. Only what is worse goes to stderr.
  log: (level, msg, data) => {
    if (level === "error") console.error(`${msg} ${JSON.stringify(data ?? {})}`);
  },
});
worker.start();
const wake = listenForJobs(process.env.DATABASE_URL!, {
  onWake: (dueAt) => worker.nudge(dueAt),
  onListening: (up) => worker.setListening(up),
});
console.log("ready");

process.once("SIGTERM", () => {
  void wake
    .close()
    .then(() => worker.stop(5_000))
    .then(() => closeDatabase())
    .finally(() => process.exit(0));
});
