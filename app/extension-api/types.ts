/**
 * The JSON the Admin UI extensions read from the app (routes api.ext.*), shared by the server
 * (app/extension-api/api.server.ts) and the extensions (extensions/shared/api.ts).
 */

/** The actions an extension offers: the ones that move an order on or stop it. */
export const EXTENSION_INTENTS = ["release", "retry", "pay-now", "hold"] as const;
export type ExtensionIntent = (typeof EXTENSION_INTENTS)[number];

export type ExtensionOrder =
  | { id: string; handled: false }
  | {
      /** Shopify's order GID, as asked for. */
      id: string;
      handled: true;
      /** The app's own id (its order page is `appPath`). */
      orderId: string;
      name: string;
      state: string;
      /** The state in one plain sentence. */
      summary: string;
      /** Why it is held or failed. */
      reason: string | null;
      /** A problem after payment (cancelled by the service, parcel returned, …). */
      problem: string | null;
      svcOrderId: string | null;
      svcStatus: string | null;
      /** The service's cost (USD). */
      cost: { amount: string; currency: string } | null;
      method: string | null;
      tracking: Array<{
        number: string;
        url: string | null;
        carrier: string | null;
        status: string;
      }>;
      /** The actions that fit the order now. */
      actions: ExtensionIntent[];
      appPath: string;
    };

export interface ExtensionRun {
  id: string;
  intent: string;
  label: string;
  total: number;
  done: number;
  finished: boolean;
  failed: number;
  results: Array<{ id: string; orderId: string; name: string; ok: boolean; message: string }>;
}
