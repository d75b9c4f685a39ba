/**
 * Serving /metrics: on the main port only with the bearer token (not at all without one), on
 * the separate listener to a scraper; the configuration of both; and what observeRequest feeds.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../app/config.server";
import {
  handleMetricsHttp,
  observeRequest,
  renderMetrics,
  startMetricsServer,
} from "../../app/metrics.server";
import { metricsHttpHandler } from "../../app/metrics/http.server";
import { parseMetrics, scrape, value } from "./scrape";

const TOKEN = "metrics-token-0123456789abcdef";

/** The app's server as far as /metrics goes: the hook first, then its own 404. */
async function appLikeServer(token: string | undefined): Promise<{ url: string; server: Server }> {
  const hook = metricsHttpHandler({ token, render: renderMetrics });
  const server = createServer((req, res) => {
    void hook(req, res).then((handled) => {
      if (!handled) res.writeHead(404).end("app: not found");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

describe("/metrics on the app's port", () => {
  let open: string;
  let guarded: string;
  beforeAll(async () => {
    const a = await appLikeServer(undefined);
    const b = await appLikeServer(TOKEN);
    servers.push(a.server, b.server);
    open = a.url;
    guarded = b.url;
  });

  it("without METRICS_TOKEN, is not served: the app answers 404 as for any unknown path", async () => {
    const res = await fetch(`${open}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(404);
    expect(await res.text()).toBe("app: not found");
  });

  it("the app's own hook leaves /metrics to the app when the configuration has no token", async () => {
    // The tests run without METRICS_TOKEN: handleMetricsHttp must not answer.
    const req = { url: "/metrics", method: "GET", headers: {} } as never;
    expect(await handleMetricsHttp(req, {} as never)).toBe(false);
  });

  it("refuses a missing or wrong token with 401 and nothing of the metrics", async () => {
    const tries: Array<Record<string, string>> = [
      {},
      { authorization: "Bearer wrong-token" },
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString("base64")}` },
      { authorization: TOKEN },
    ];
    for (const headers of tries) {
      const res = await fetch(`${guarded}/metrics`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(await res.text()).not.toContain("dropship_");
    }
  });

  it("answers the right token with the Prometheus text", async () => {
    const res = await fetch(`${guarded}/metrics?ignored=1`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain("# HELP dropship_jobs_total");
    expect(text).toContain("# TYPE dropship_webhook_ack_duration_seconds histogram");
    expect(text).toContain("process_resident_memory_bytes");
    expect(parseMetrics(text).length).toBeGreaterThan(10);
  });

  it("answers only GET and HEAD, and leaves every other path to the app", async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const post = await fetch(`${guarded}/metrics`, { method: "POST", headers: auth });
    expect(post.status).toBe(405);
    const head = await fetch(`${guarded}/metrics`, { method: "HEAD", headers: auth });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    for (const path of ["/metrics/", "/metricsx", "/app/metrics", "/"]) {
      const res = await fetch(`${guarded}${path}`, { headers: auth });
      expect(res.status, path).toBe(404);
    }
  });
});

describe("the separate metrics listener (workers)", () => {
  it("answers /metrics to a scraper and 404 to anything else; one per process", async () => {
    const started = startMetricsServer({ port: 0, host: "127.0.0.1" });
    expect(started).toBeDefined();
    const m = await started!;
    servers.push(m.server);
    expect(m.port).toBeGreaterThan(0);
    const res = await fetch(`${m.url}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("# HELP dropship_queue_due_jobs");
    expect((await fetch(`${m.url}/`)).status).toBe(404);
    expect(await startMetricsServer({ port: 0, host: "127.0.0.1" })).toBe(m);
  });
});

describe("metrics configuration", () => {
  it("parses the port, the host and the token; none is required", () => {
    const c = parseConfig({ METRICS_PORT: "0", METRICS_TOKEN: TOKEN, METRICS_HOST: "127.0.0.1" });
    expect(c).toMatchObject({ METRICS_PORT: 0, METRICS_TOKEN: TOKEN, METRICS_HOST: "127.0.0.1" });
    const none = parseConfig({});
    expect(none.METRICS_PORT).toBeUndefined();
    expect(none.METRICS_TOKEN).toBeUndefined();
    expect(none.METRICS_HOST).toBe("0.0.0.0");
  });

  it("refuses a short token or a bad port, naming the variable and never the value", () => {
    const bad = () => parseConfig({ METRICS_TOKEN: "short-secret", METRICS_PORT: "70000" });
    expect(bad).toThrow(/METRICS_TOKEN must be at least 16 characters/);
    expect(bad).toThrow(/METRICS_PORT/);
    expect(bad).not.toThrow(/short-secret/);
    expect(() => parseConfig({ METRICS_TOKEN: "has a space in it, sixteen+" })).toThrow(
      /METRICS_TOKEN must not contain spaces/,
    );
  });
});

describe("observeRequest", () => {
  it("counts requests by route, method and status, and feeds the ack histogram with 2xx webhooks", async () => {
    const before = await scrape();
    const route = "/webhooks/svc/:secret";
    observeRequest({ route, method: "POST", status: 200, seconds: 0.012 });
    observeRequest({ route, method: "POST", status: 200, seconds: 0.003 });
    observeRequest({ route, method: "POST", status: 401, seconds: 0.001 });
    observeRequest({ route: "/app", method: "GET", status: 200, seconds: 0.2 });
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) =>
      value(after, name, labels) - value(before, name, labels);

    const req = "dropship_http_requests_total";
    expect(delta(req, { route, method: "POST", status: "200" })).toBe(2);
    expect(delta(req, { route, method: "POST", status: "401" })).toBe(1);
    expect(delta(req, { route: "/app", method: "GET", status: "200" })).toBe(1);

    const ack = "dropship_webhook_ack_duration_seconds";
    // Only the two acknowledged webhooks: 3 ms and 12 ms.
    expect(delta(`${ack}_count`, { route })).toBe(2);
    expect(delta(`${ack}_bucket`, { route, le: "0.0025" })).toBe(0);
    expect(delta(`${ack}_bucket`, { route, le: "0.005" })).toBe(1);
    expect(delta(`${ack}_bucket`, { route, le: "0.01" })).toBe(1);
    expect(delta(`${ack}_bucket`, { route, le: "0.015" })).toBe(2);
    expect(delta(`${ack}_bucket`, { route, le: "0.025" })).toBe(2);
    expect(value(after, `${ack}_count`, { route: "/app" })).toBe(0);
    expect(delta("dropship_http_request_duration_seconds_count", { route: "/app" })).toBe(1);
  });

  it("keeps labels bounded: odd methods and statuses, and routes past the hundredth, become other", async () => {
    observeRequest({ route: "/x", method: "BREW", status: 999, seconds: 0 });
    for (let i = 0; i < 120; i++) {
      observeRequest({ route: `/r/${i}`, method: "GET", status: 200, seconds: 0 });
    }
    const s = await scrape();
    const req = "dropship_http_requests_total";
    expect(value(s, req, { route: "/x", method: "other", status: "other" })).toBe(1);
    const routes = new Set(s.filter((x) => x.name === req).map((x) => x.labels.route));
    // Three routes came before; /r/0 … /r/96 fill the hundred, /r/97 … /r/119 are "other".
    expect(routes.size).toBe(101);
    expect(value(s, req, { route: "other", status: "200" })).toBe(23);
    expect(value(s, req, { route: "/r/96" })).toBe(1);
    expect(value(s, req, { route: "/r/97" })).toBe(0);
  });
});
