/**
 * A small Remix ServerBuild (resource routes only) and a runtime whose log lines are captured,
 * to run the real server (server/app-server.ts, with Remix's real request handler) in-process.
 */
import { Writable } from "node:stream";
import type { ServerBuild } from "@remix-run/node";
import pino from "pino";
import { setDraining } from "../../app/draining.server";
import { currentLogContext, withLogContext } from "../../app/log-context.server";
import type { ServerConfig, ServerRuntime } from "../../server/runtime";

type Handler = (args: { request: Request; params: Record<string, string | undefined> }) => unknown;

export interface Captured {
  runtime: ServerRuntime;
  /** Every log line written, as text (what an operator's log collector would receive). */
  text(): string;
  lines(): Record<string, unknown>[];
  observations: { route: string; method: string; status: number; seconds: number }[];
}

export function captureRuntime(): Captured {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = pino({ level: "debug", base: undefined, mixin: () => currentLogContext() }, sink);
  const observations: Captured["observations"] = [];
  const runtime: ServerRuntime = {
    config: {} as ServerConfig,
    logger,
    withLogContext,
    observeRequest: (obs) => observations.push(obs),
    handleMetricsHttp: async () => false,
    setDraining,
    onShutdown: () => {},
    refuseUnlessMigrated: async () => {},
  };
  const text = () => chunks.join("");
  const lines = () =>
    text()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { runtime, text, lines, observations };
}

/** A build whose routes are `path → { loader?, action? }` under a root route. */
export function fakeBuild(routes: Record<string, { loader?: Handler; action?: Handler }>) {
  const table: ServerBuild["routes"] = {
    root: { id: "root", path: "", module: {} } as ServerBuild["routes"][string],
  };
  for (const [path, module] of Object.entries(routes)) {
    const id = `routes/${path}`;
    table[id] = {
      id,
      parentId: "root",
      path,
      module,
    } as unknown as ServerBuild["routes"][string];
  }
  return {
    mode: "production",
    entry: { module: { default: () => new Response("no documents here", { status: 500 }) } },
    routes: table,
    assets: { entry: { imports: [], module: "" }, routes: {}, url: "", version: "test" },
    publicPath: "/build/",
    assetsBuildDirectory: "public/build",
    future: { v3_fetcherPersist: true, v3_relativeSplatPath: true, v3_throwAbortReason: true },
    isSpaMode: false,
  } as unknown as ServerBuild;
}
