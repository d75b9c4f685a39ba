/**
 * Compiles the two production entry points to plain JavaScript (no tsx at run time):
 *   server/main.ts          → build/server.js   (`npm start`)
 *   app/jobs/worker.main.ts → build/worker.js   (`npm run worker`)
 * Packages stay external (resolved from node_modules at run time, as the Remix build does).
 * Run after `remix build` (npm run build does both).
 */
import { build } from "esbuild";

const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  packages: "external",
  sourcemap: true,
  logLevel: "warning",
  // Production unless told otherwise, before any bundled module reads its configuration.
  banner: { js: 'process.env.NODE_ENV ||= "production";' },
};

await Promise.all([
  build({ ...common, entryPoints: ["server/main.ts"], outfile: "build/server.js" }),
  build({ ...common, entryPoints: ["app/jobs/worker.main.ts"], outfile: "build/worker.js" }),
]);
console.log("built build/server.js and build/worker.js");
