/**
 * Job kinds and limits of the service-account hygiene (app/svc-account), in a module without
 * dependencies so that the low layers (the auth flow, the reconciler) can name them.
 */
export const SVC_ACCOUNT_JOB = {
  /** webhook/set for one account (and every shop sharing its service account). */
  registerWebhooks: "svc.webhooks.register",
  /** The schedule: one registerWebhooks job per service account the app registered. */
  reregisterAll: "svc.webhooks.reregisterAll",
} as const;

/** The service pauses deliveries past 50% failures until webhook/set: re-register this often. */
export const REREGISTER_EVERY_MS = 6 * 3600_000;

/** Deliveries the reconciler found missing before the webhooks are registered again at once. */
export const WEBHOOK_GAP_THRESHOLD = 3;

/** Tracking younger than this may still be on its way by webhook: not counted as a gap. */
export const WEBHOOK_GAP_GRACE_MS = 10 * 60_000;
