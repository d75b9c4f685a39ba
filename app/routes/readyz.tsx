import { healthResponse, readiness } from "../health.server";

/**
 * Readiness: as /healthz, and 503 (`"draining":true`) from the moment this process received
 * SIGTERM, so a load balancer stops sending it new requests while in-flight ones finish.
 */
export const loader = async () => healthResponse(await readiness());
