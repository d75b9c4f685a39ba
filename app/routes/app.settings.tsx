/**
 * The settings and onboarding page: what it shows and the forms it posts are
 * app/settings-forms/page.server.ts (each form answered by its capability), the save bar's Save
 * is app/settings-forms/save-all.server.ts; each card is its capability's form.
 */
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { Layout, Page } from "@shopify/polaris";
import { useEffect } from "react";
import { requireAdmin } from "../pages/context.server";
import { settingsAction, settingsPageData } from "../settings-forms/page.server";
import { saveAllSettings } from "../settings-forms/save-all.server";
import type { ActionData } from "../components/FormStatus";
import { SaveBar } from "../components/SaveBar";
import { SHIPPING_INTENT, ShippingRules } from "../shipping/ui/ShippingRules";
import { ConnectionCard, WebhookCard } from "../svc-account/ui/AccountCards";
import { FX_INTENT, FxRatesForm } from "../fx/ui/FxRatesForm";
import { NOTIFY_INTENT, NotificationsForm } from "../notify/ui/NotificationsForm";
import { ORDERS_INTENT, OrdersForm } from "../fulfilment/ui/OrdersForm";
import { PRICING_INTENT, PricingForm } from "../catalog/ui/PricingForm";
import { type PageResult, type PartIntent, isSaveAll, refusalOf } from "../settings-forms/ui/parts";
import { useSaveAll, useSettingsDrafts } from "../settings-forms/ui/useSaveAll";
import { SaveAllOutcome } from "../settings-forms/ui/SaveAllOutcome";
import { prisma } from "../db.server";
import { readForm } from "../page-kit/forms.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop, sandbox } = await requireAdmin(request);
  // Inside Shopify's admin the save bar is App Bridge's; in the sandbox, the page's own.
  return { ...(await settingsPageData(prisma, shop)), embedded: !sandbox };
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop, sandbox } = await requireAdmin(request);
  const form = await readForm(request);
  // The save bar's Save: every changed form at once, each as if posted alone.
  if (form.get("intent") === "save-all") return saveAllSettings(prisma, shop, form, { sandbox });
  return settingsAction(prisma, shop, form, { sandbox });
};

export default function Settings() {
  const data = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as PageResult;
  useEffect(() => {
    // The service's authorization page lives outside the admin: open it at the top level.
    if (result?.ok && !isSaveAll(result) && result.redirectTo)
      window.open(result.redirectTo, "_top");
  }, [result]);
  const drafts = useSettingsDrafts(data);
  const { changed, busy, save, discard } = useSaveAll(drafts, result);

  const other: ActionData = isSaveAll(result) ? undefined : (result as ActionData);
  const part = (intent: PartIntent) => ({
    data,
    refusal: refusalOf(result, intent),
    onSave: save,
  });
  return (
    <>
      <SaveBar
        changed={changed.map((p) => p.title)}
        busy={busy}
        embedded={data.embedded}
        onSave={save}
        onDiscard={discard}
      />
      <Page title="Settings">
        <Layout>
          <SaveAllOutcome result={result} other={other} />
          <Layout.AnnotatedSection
            title="Service account"
            description="Connect the fulfilment service account that places and pays your orders."
          >
            <ConnectionCard data={data} result={other} />
          </Layout.AnnotatedSection>
          <Layout.AnnotatedSection
            title="Webhooks"
            description="The service tells the app about orders and tracking through webhooks."
          >
            <WebhookCard data={data} result={other} />
          </Layout.AnnotatedSection>
          <Layout.AnnotatedSection
            title="Shipping"
            description="How each order's shipping method is chosen from the service's freight quote, per destination. The most specific rule wins: a country, then a region, then the rule for every other destination."
          >
            <ShippingRules
              draft={drafts[SHIPPING_INTENT]}
              legacyMethod={data.settings.logisticName}
              refusal={refusalOf(result, SHIPPING_INTENT)}
              onSave={save}
            />
          </Layout.AnnotatedSection>
          <Layout.AnnotatedSection
            title="Exchange rates"
            description="Prices go to the service in US dollars. Rates come from the European Central Bank's daily reference rates; a rate you set here wins."
          >
            <FxRatesForm {...part(FX_INTENT)} draft={drafts[FX_INTENT]} />
          </Layout.AnnotatedSection>
          <Layout.AnnotatedSection
            title="Orders and payment"
            description="When orders are placed, what is held, and how they are paid."
          >
            <OrdersForm {...part(ORDERS_INTENT)} draft={drafts[ORDERS_INTENT]} />
          </Layout.AnnotatedSection>
          <Layout.AnnotatedSection
            id="pricing"
            title="Pricing and stock"
            description="How imported products are priced from the supplier's cost, what happens when the cost moves, and whose stock your shop shows."
          >
            <PricingForm {...part(PRICING_INTENT)} draft={drafts[PRICING_INTENT]} />
          </Layout.AnnotatedSection>
          <Layout.AnnotatedSection
            id="notifications"
            title="Notifications"
            description="Emails when something needs you: one digest at most every so many minutes, never one email per order."
          >
            <NotificationsForm
              {...part(NOTIFY_INTENT)}
              draft={drafts[NOTIFY_INTENT]}
              testEmail={other}
            />
          </Layout.AnnotatedSection>
        </Layout>
      </Page>
    </>
  );
}
