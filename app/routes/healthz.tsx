import { healthResponse, liveness } from "../health.server";

/**
 * Liveness: 200 `{"db":"ok","migrations":"ok"}` once the database answers a real query and has
 * every migration of prisma/migrations; 503 with a plain `reason` otherwise.
 */
export const loader = async () => healthResponse(await liveness());
