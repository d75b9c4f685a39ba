/**
 * The composition root of the jobs: each job kind → the handler of the capability that owns it.
 * Handlers are idempotent by construction: what they write to the database is committed with
 * their completion (`ctx.commit`), so a rerun after a crash finds either nothing done or
 * everything done. The queue itself is app/jobs/; the worker that runs these, worker.server.ts.
 */
import { BULK_ORDERS_JOB, bulkOrdersHandler } from "../workqueue/bulk-orders.server";
import { archiveHandlers, archiveRecurringJobs } from "../archive/jobs.server";
import {
  importConnectionsHandlers,
  importConnectionsRecurringJobs,
} from "../svc-account/import-connections.server";
import { catalogHandlers, catalogRecurringJobs } from "../catalog/jobs.server";
import { BULK_CONNECT_JOB, bulkConnectHandler } from "../connections/bulk-connect.server";
import { disputeHandlers, disputeRecurringJobs } from "../disputes/jobs.server";
import { productionDeps } from "../orders/deps.server";
import { fulfilmentHandlers, fulfilmentRecurringJobs } from "../fulfilment/handlers.server";
import { fxHandlers, fxRecurringJobs } from "../fx/jobs.server";
import type { JobHandler, RecurringJob } from "../jobs/handler";
import { notifyHandlers, notifyRecurringJobs } from "../notify/jobs.server";
import { svcAccountHandlers, svcAccountRecurringJobs } from "../svc-account/jobs.server";
import { eventHandlers } from "./events.server";
import { maintenanceHandlers, maintenanceRecurringJobs } from "./maintenance.server";

/** The stored accounts' clients and the shops' offline sessions. */
const production = (ctx: { prisma: Parameters<typeof productionDeps>[0] }) =>
  productionDeps(ctx.prisma);

export const handlers: Record<string, JobHandler> = {
  // Every Shopify topic and service event type (events.server.ts).
  ...eventHandlers(production),

  // The capabilities' own jobs.
  ...fulfilmentHandlers(production),
  ...catalogHandlers(production),
  ...disputeHandlers(production),
  ...archiveHandlers(production),

  [BULK_CONNECT_JOB]: bulkConnectHandler,
  [BULK_ORDERS_JOB]: bulkOrdersHandler(),

  ...svcAccountHandlers(),

  ...fxHandlers(),

  ...notifyHandlers(),

  ...importConnectionsHandlers(),

  ...maintenanceHandlers(() => Object.keys(handlers)),
};

export const recurringJobs: RecurringJob[] = [
  ...maintenanceRecurringJobs,
  ...svcAccountRecurringJobs,
  ...fulfilmentRecurringJobs,
  ...fxRecurringJobs,
  ...notifyRecurringJobs,
  ...importConnectionsRecurringJobs,
  ...catalogRecurringJobs,
  ...disputeRecurringJobs,
  ...archiveRecurringJobs,
];
