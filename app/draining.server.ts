/**
 * Whether this process is shutting down: the server sets it on SIGTERM, readiness reports
 * "not ready" from then on so a load balancer stops sending new requests while in-flight ones
 * finish.
 */
let draining = false;

export function setDraining(value = true): void {
  draining = value;
}

export function isDraining(): boolean {
  return draining;
}
