/**
 * The catalog's job kinds, and how its handlers get the accounts' clients and the shops'
 * gateways (the worker's dependencies).
 */
import type { JobContext } from "../jobs/handler";
import type { FulfilmentDeps } from "../orders/deps.server";

export const CATALOG_JOB = {
  import: "catalog.import",
  syncShop: "catalog.syncShop",
  fullSync: "catalog.fullSync",
} as const;

export type GetDeps = (ctx: JobContext) => FulfilmentDeps | Promise<FulfilmentDeps>;
