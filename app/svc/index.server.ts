/** The fulfilment service client: see client.server.ts for the shape and what is left out. */
export * from "./errors";
export * from "./decimal";
export * from "./ids";
export * from "./clock";
export type { Page } from "./schema-kit";
export * from "./transport.server";
export * from "./limiter.server";
export * from "./tokens.server";
export * from "./auth.server";
export * from "./storage.server";
export * from "./catalog.server";
export * from "./order-shapes";
export * from "./orders.server";
export * from "./logistics.server";
export * from "./disputes.server";
export * from "./pagination";
export * from "./client.server";
