/**
 * `npm run worker`: a worker process claiming jobs from PostgreSQL. Run as many as you like.
 * SIGTERM finishes or releases what it holds.
 */
import { config } from "../config.server";
import { refuseUnlessMigrated } from "../health.server";
import { startWorker } from "./runtime.server";

if (config.embeddedDatabase) {
  console.error(
    "npm run worker needs DATABASE_URL (a PostgreSQL server shared by all processes). " +
      "With the embedded database, the web process runs the jobs itself.",
  );
  process.exit(2);
}
await refuseUnlessMigrated("npm run worker");
startWorker();
