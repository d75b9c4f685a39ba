/** What every operation handler receives, and the route table entry type. */
import type { IncomingHttpHeaders } from "node:http";
import type { EnvelopeStyle } from "./envelope";
import type { Account, SimState } from "./state";
import type { Json } from "./validate";
import type { WebhookDispatcher } from "./webhooks";
import type { RateLimiter } from "./ratelimit";

export interface SimRuntime {
  state: SimState;
  webhooks: WebhookDispatcher;
  limiter: RateLimiter;
  baseUrl: () => string;
  options: {
    allowLoopbackWebhooks: boolean;
    allowLoopbackUploads: boolean;
    enforceRateLimits: boolean;
    getAccessTokenIntervalMs: number;
  };
}

export interface Ctx {
  rt: SimRuntime;
  state: SimState;
  /** The account of the access token (routes with auth "token"); handlers without auth set it. */
  account: Account;
  accessToken?: string;
  body: Json;
  headers: IncomingHttpHeaders;
  /** Applies the account's per-operation rate limit; handlers without token auth call it. */
  rateLimit(account: Account): void;
  /** Lets auth-less handlers name the account for the call log. */
  setAccount(account: Account): void;
}

export type Handler = (ctx: Ctx) => unknown | Promise<unknown>;

export interface Route {
  op: string;
  method: "GET" | "POST" | "DELETE";
  path: string; // full path, e.g. /api2.0/v1/product/listV2
  auth: "token" | "none";
  handler: Handler;
  style?: EnvelopeStyle;
  /** "query": the 2/s bucket (getOrderDetailBatch, getProofOfDelivery); "self": the handler limits. */
  limit?: "default" | "query" | "self";
  /** Code for an invalid token when the contract names one other than 1600001. */
  authErrorCode?: number;
}
