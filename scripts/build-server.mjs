/**
 * Compiles the production entry points to plain JavaScript (no tsx at run time):
 *   server/main.ts          → build/server.js   (`npm start`)
 *   app/worker/main.ts → build/worker.js   (`npm run worker`)
 *   scripts/migrate.ts      → build/migrate.js  (`npm run db:migrate`)
 *   scripts/secrets.ts      → build/secrets.js  (`npm run secrets:rotate`)
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
  build({ ...common, entryPoints: ["app/worker/main.ts"], outfile: "build/worker.js" }),
  build({ ...common, entryPoints: ["scripts/migrate.ts"], outfile: "build/migrate.js" }),
  build({ ...common, entryPoints: ["scripts/secrets.ts"], outfile: "build/secrets.js" }),
]);
console.log("built build/server.js, build/worker.js, build/migrate.js and build/secrets.js");
