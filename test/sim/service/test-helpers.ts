/** Helpers for the simulator's own tests: a bare fetch client and an order body. */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServiceSim } from "./index";

export interface Env {
  code: number;
  result?: boolean;
  success?: boolean;
  message: string;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary payloads
  requestId: string;
}

export interface Client {
  accountId: string;
  apiKey: string;
  openId: string;
  token: string;
  post(path: string, body?: unknown): Promise<Env>;
  get(path: string, query?: Record<string, string | number>): Promise<Env>;
  del(path: string, query?: Record<string, string | number>): Promise<Env>;
  raw(
    method: string,
    path: string,
    init?: { body?: unknown; query?: Record<string, string | number>; signal?: AbortSignal },
  ): Promise<Response>;
}

export async function call(
  sim: ServiceSim,
  method: string,
  path: string,
  init: {
    body?: unknown;
    query?: Record<string, string | number>;
    token?: string;
    signal?: AbortSignal;
  } = {},
): Promise<Response> {
  const url = new URL(`${sim.url}/api2.0/v1${path}`);
  for (const [k, v] of Object.entries(init.query ?? {})) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = {};
  if (init.body !== undefined) headers["content-type"] = "application/json";
  if (init.token) headers["Svc-Access-Token"] = init.token;
  return fetch(url, {
    method,
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: init.signal,
  });
}

export async function envelope(res: Response): Promise<Env> {
  return (await res.json()) as Env;
}

/** An account with generous rate limits (unless given) and a token. */
export async function client(
  sim: ServiceSim,
  opts: { balance?: string; callsPerSecond?: number; queryCallsPerSecond?: number } = {},
): Promise<Client> {
  const acct = sim.createAccount({
    balance: opts.balance ?? "0",
    callsPerSecond: opts.callsPerSecond ?? 1000,
    queryCallsPerSecond: opts.queryCallsPerSecond ?? 1000,
  });
  const tok = await envelope(
    await call(sim, "POST", "/authentication/getAccessToken", { body: { apiKey: acct.apiKey } }),
  );
  if (tok.code !== 200) throw new Error(`getAccessToken failed: ${JSON.stringify(tok)}`);
  const token = tok.data.accessToken as string;
  const raw: Client["raw"] = (method, path, init = {}) =>
    call(sim, method, path, { ...init, token });
  return {
    ...acct,
    token,
    raw,
    post: async (path, body = {}) => envelope(await raw("POST", path, { body })),
    get: async (path, query) => envelope(await raw("GET", path, { query })),
    del: async (path, query) => envelope(await raw("DELETE", path, { query })),
  };
}

export function orderBody(
  orderNumber: string,
  products: unknown[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    orderNumber,
    shippingCountryCode: "US",
    shippingCountry: "United States",
    shippingProvince: "CA",
    shippingCity: "Los Angeles",
    shippingCustomerName: "Jo Buyer",
    shippingAddress: "1 Main Street",
    shippingZip: "90001",
    logisticName: "USPS",
    fromCountryCode: "CN",
    products,
    ...extra,
  };
}

/** First catalog variants that are not removed. */
export function variants(sim: ServiceSim, n: number) {
  return sim.state.catalog.products
    .filter((p) => !p.removed)
    .flatMap((p) => p.variants.filter((v) => !v.removed))
    .slice(0, n);
}

export interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- webhook payloads
}

/** A webhook receiver on 127.0.0.1; `status()` decides each reply. */
export async function receiver(
  status: (n: number) => number = () => 200,
): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      received.push({ headers: req.headers, raw, body: JSON.parse(raw) as unknown });
      res.writeHead(status(received.length));
      res.end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
