/**
 * The settings and onboarding page: what it shows (loader) and the forms it posts (action,
 * by `intent`, each answered by its capability: app/shipping/settings-action.server.ts and its
 * siblings). Every form is validated with zod and answers errors by field; an invalid post
 * changes nothing.
 */
import type { PrismaClient } from "@prisma/client";
import { listWarehouses, type WarehouseList } from "../shipping/warehouses.server";
import { deadlineText, PageDeadlineError, withinPageDeadline } from "../page-kit/page-reads.server";
import { shopTimeZone } from "../orders/shop-zone.server";
import { getSettings } from "../settings.server";
import { AccountError, accountStatus, balanceOf } from "../svc-account/account.server";
import { formObject } from "../page-kit/forms.server";
import {
  fail,
  type SettingsActionResult,
  type SettingsIntentAction,
} from "../page-kit/settings-action.server";
import { configuredMailer } from "../notify/mailer.server";
import { notifyActions } from "../notify/settings-action.server";
import { parseRates } from "../fx/settings-form";
import { fxActions } from "../fx/settings-action.server";
import { warehouseOf } from "../shipping/settings-form.server";
import { shippingActions } from "../shipping/settings-action.server";
import { accountActions } from "../svc-account/settings-action.server";
import { ordersActions } from "../fulfilment/settings-action.server";
import { pricingActions } from "../catalog/settings-action.server";

export { fail, parseRates, type SettingsActionResult };

export async function settingsPageData(db: PrismaClient, shop: string) {
  const [settings, account, lastDigest, timeZone] = await Promise.all([
    getSettings(db, shop),
    accountStatus(db, shop),
    db.noticeDigest.findFirst({
      where: { shopDomain: shop },
      orderBy: { createdAt: "desc" },
      select: { createdAt: true, sentAt: true, subject: true, notices: true, lastError: true },
    }),
    shopTimeZone(db, shop),
  ]);
  // The page's service reads run together and the page waits for them a few seconds at most:
  // past that it shows what it knows and says what did not answer (a read goes on alone).
  const late = (what: string) => deadlineText(new PageDeadlineError(what));
  const [balance, warehouse, warehouses] = await Promise.all([
    account.connected
      ? withinPageDeadline(balanceOf(db, shop), "The service's balance").catch(() => ({
          amount: null,
          error: late("The service's balance"),
          outage: true,
        }))
      : null,
    withinPageDeadline(warehouseOf(db, shop, settings), "The service's warehouse").catch(() => ({
      id: settings.storageId,
      name: "",
      country: "",
      error: late("The service's warehouse"),
    })),
    withinPageDeadline(listWarehouses(db, shop), "The service's list of warehouses").catch(
      (): WarehouseList => ({ ok: false, reason: late("The service's list of warehouses") }),
    ),
  ]);
  return {
    settings,
    account,
    balance,
    warehouse,
    /** The ship-from choices (the service's global warehouses), or why they are not known. */
    warehouses,
    /** The shop's time zone, for the page's times (unknown: UTC, and the times say so). */
    timeZone,
    notifications: {
      /** SMTP_URL is set: emails can go out. */
      mailConfigured: configuredMailer() !== null,
      lastDigest: lastDigest
        ? {
            at: (lastDigest.sentAt ?? lastDigest.createdAt).toISOString(),
            sent: lastDigest.sentAt !== null,
            subject: lastDigest.subject,
            notices: lastDigest.notices,
            error: lastDigest.lastError,
          }
        : null,
    },
  };
}

/** Every form of the page, by its `intent`: each capability answers its own. */
const ACTIONS: Record<string, SettingsIntentAction> = {
  ...accountActions,
  ...ordersActions,
  ...shippingActions,
  ...fxActions,
  ...pricingActions,
  ...notifyActions,
};

export async function settingsAction(
  db: PrismaClient,
  shop: string,
  form: FormData,
  opts: { sandbox: boolean },
): Promise<SettingsActionResult> {
  const intent = String(form.get("intent") ?? "");
  const action = Object.hasOwn(ACTIONS, intent) ? ACTIONS[intent] : undefined;
  if (!action) return fail(intent, { form: `Unknown action "${intent.slice(0, 40)}"` });
  try {
    return await action(db, shop, form, opts);
  } catch (error) {
    if (error instanceof AccountError)
      return fail(intent, { [error.field ?? "form"]: error.message });
    throw error;
  }
}

export { formObject };
