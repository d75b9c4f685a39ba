/**
 * `npm start`: the production web process (compiled to build/server.js by
 * scripts/build-server.mjs; it loads the Remix build next to it, build/index.js).
 *
 * NODE_ENV defaults to production (a banner the compiler puts first in build/server.js, before
 * the build reads its configuration). SIGTERM or SIGINT drains the server, stops the in-process
 * worker if there is one, closes the database.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ServerBuild } from "@remix-run/node";
import { createAppServer } from "./app-server";
import { serverRuntimeOf } from "./runtime";

const besideMe = fileURLToPath(new URL("./index.js", import.meta.url));
const buildFile = existsSync(besideMe) ? besideMe : resolve("build/index.js");
if (!existsSync(buildFile)) {
  console.error("No build found (build/index.js): run `npm run build` first.");
  process.exit(1);
}

const build = (await import(pathToFileURL(buildFile).href)) as ServerBuild;
const runtime = serverRuntimeOf(build);
const { config, logger } = runtime;

process.on("uncaughtException", (error) => {
  logger.error({ err: error.stack ?? error.message }, "uncaught exception: exiting");
  process.exit(1);
});
process.on("unhandledRejection", (reason) => {
  logger.error(
    { err: reason instanceof Error ? reason.stack : String(reason) },
    "unhandled rejection",
  );
});

const app = createAppServer(build, {
  runtime,
  publicDir: resolve(fileURLToPath(new URL("..", pathToFileURL(buildFile))), "public"),
  trustProxy: config.TRUST_PROXY,
  limits: { shopifyWebhook: config.SHOPIFY_WEBHOOK_MAX_BYTES },
  keepAliveTimeoutMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
  headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS,
  requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
  maxInFlight: config.HTTP_MAX_IN_FLIGHT,
});

// In-flight requests get a third of the shutdown time; the worker and database the rest.
runtime.onShutdown("http", 5, async () => {
  logger.info({}, "shutting down: draining HTTP requests");
  await app.close(Math.floor(config.SHUTDOWN_TIMEOUT_MS / 3));
  logger.info({}, "HTTP server closed");
});

await runtime.refuseUnlessMigrated("npm start");
const port = await app.listen(config.PORT, config.HOST);
logger.info({ port, host: config.HOST ?? "*", trustProxy: config.TRUST_PROXY }, "server listening");
