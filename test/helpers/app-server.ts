import { createServer, type IncomingMessage, type Server } from "node:http";
import type { ActionFunctionArgs } from "@remix-run/node";
import { listenOnLoopback } from "./loopback";
import { callRoute } from "./remix";

type Route = (args: ActionFunctionArgs) => unknown;

/** Turns a node request into a Fetch Request, as Remix's adapter does. */
export async function toRequest(req: IncomingMessage, base: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks);
  return new Request(new URL(req.url ?? "/", base), { method: req.method, headers, body });
}

/**
 * Serves route actions over real HTTP on a loopback port, so a simulator can call the app.
 * `routes` maps a path pattern (`/webhooks/svc/:secret`) to a route's action.
 */
export async function serveRoutes(
  routes: Record<string, Route>,
): Promise<{ url: string; close(): Promise<void>; server: Server }> {
  const table = Object.entries(routes).map(([pattern, route]) => {
    const names: string[] = [];
    const re = new RegExp(
      `^${pattern.replace(/:([a-zA-Z]+)/g, (_, n: string) => {
        names.push(n);
        return "([^/]+)";
      })}$`,
    );
    return { re, names, route };
  });
  const server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0]!;
    const hit = table.find((t) => t.re.test(path));
    if (!hit) {
      res.writeHead(404).end();
      return;
    }
    const match = hit.re.exec(path)!;
    const params = Object.fromEntries(
      hit.names.map((n, i) => [n, decodeURIComponent(match[i + 1]!)]),
    );
    void (async () => {
      const response = await callRoute(hit.route, await toRequest(req, "http://app.test"), params);
      res
        .writeHead(response.status, Object.fromEntries(response.headers))
        .end(Buffer.from(await response.arrayBuffer()));
    })().catch(() => res.writeHead(500).end());
  });
  return { ...(await listenOnLoopback(server)), server };
}
