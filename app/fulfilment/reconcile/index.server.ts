/** The reconciler, as the rest of the app sees it (app/fulfilment/reconcile/reconcile.server.ts). */
export {
  CREATED_WATCH_AFTER_MS,
  PASSES,
  reconcileAccount,
  reconcileAll,
  type ReconcileResult,
} from "./reconcile.server";
