import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useActionData, useLoaderData, useNavigation, useSubmit } from "@remix-run/react";
import { Banner, Layout, List, Page } from "@shopify/polaris";
import { useEffect, useRef } from "react";
import { requireAdmin } from "../pages/context.server";
import { settingsAction, settingsPageData } from "../settings-forms/page.server";
import { saveAllSettings } from "../settings-forms/save-all.server";
import { type ActionData, FormStatus } from "../components/FormStatus";
import { SaveBar } from "../components/SaveBar";
import {
  type RuleRow,
  SHIPPING_INTENT,
  ShippingRules,
  shippingSaved,
} from "../shipping/ui/ShippingRules";
import { Toast } from "../components/Toast";
import { useDraft } from "../components/useDraft";
import { ConnectionCard, WebhookCard } from "../svc-account/ui/AccountCards";
import { FX_INTENT, FxRatesForm, fxSaved } from "../fx/ui/FxRatesForm";
import {
  NOTIFY_INTENT,
  NotificationsForm,
  notificationsSaved,
} from "../notify/ui/NotificationsForm";
import { ORDERS_INTENT, OrdersForm, ordersSaved } from "../fulfilment/ui/OrdersForm";
import { PRICING_INTENT, PricingForm, pricingSaved } from "../catalog/ui/PricingForm";
import {
  PARTS,
  type PageResult,
  type PartIntent,
  isSaveAll,
  refusalOf,
} from "../settings-forms/ui/parts";
import { prisma } from "../db.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop, sandbox } = await requireAdmin(request);
  // Inside Shopify's admin the save bar is App Bridge's; in the sandbox, the page's own.
  return { ...(await settingsPageData(prisma, shop)), embedded: !sandbox };
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop, sandbox } = await requireAdmin(request);
  const form = await request.formData();
  // The save bar's Save: every changed form at once, each as if posted alone.
  if (form.get("intent") === "save-all") return saveAllSettings(prisma, shop, form, { sandbox });
  return settingsAction(prisma, shop, form, { sandbox });
};

const titleOf = (intent: string) => PARTS.find((p) => p.intent === intent)?.title ?? intent;

export default function Settings() {
  const data = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as PageResult;
  const navigation = useNavigation();
  const submit = useSubmit();
  const busy = navigation.state !== "idle";
  useEffect(() => {
    // The service's authorization page lives outside the admin: open it at the top level.
    if (result?.ok && !isSaveAll(result) && result.redirectTo)
      window.open(result.redirectTo, "_top");
  }, [result]);

  // Each form's values as the merchant edits them: kept through every reload of the page (a
  // refresh, another form's post) while they differ from what is saved.
  const drafts = {
    [ORDERS_INTENT]: useDraft(ordersSaved(data.settings)),
    [SHIPPING_INTENT]: useDraft(shippingSaved(data.settings.shippingRules as RuleRow[])),
    [FX_INTENT]: useDraft(fxSaved(data.settings)),
    [PRICING_INTENT]: useDraft(pricingSaved(data.settings)),
    [NOTIFY_INTENT]: useDraft(notificationsSaved(data.settings)),
  } satisfies Record<PartIntent, unknown>;
  const changed = PARTS.filter((p) => drafts[p.intent].dirty);

  // One save at a time: a second click before the page is idle again is dropped.
  const inFlight = useRef(false);
  // What each form held when it was sent: a form changed again since keeps the new input.
  const posted = useRef<Record<string, string>>({});
  useEffect(() => {
    if (navigation.state === "idle") inFlight.current = false;
  }, [navigation.state]);
  const save = () => {
    if (inFlight.current || busy || changed.length === 0) return;
    const post = new FormData();
    post.set("intent", "save-all");
    for (const p of changed) {
      const form = document.querySelector<HTMLFormElement>(
        `form[data-settings-part="${p.intent}"]`,
      );
      if (!form) continue;
      const fields = new URLSearchParams();
      for (const [k, v] of new FormData(form)) if (typeof v === "string") fields.append(k, v);
      post.append("part", fields.toString());
    }
    inFlight.current = true;
    posted.current = Object.fromEntries(
      changed.map((p) => [p.intent, JSON.stringify(drafts[p.intent].values)]),
    );
    submit(post, { method: "post" });
  };
  const discard = () => {
    for (const p of PARTS) drafts[p.intent].reset();
  };

  const resetOf = useRef(drafts);
  resetOf.current = drafts;
  // The router hands the action's result over before the page's data has reloaded: a save's
  // outcome is applied once the page is idle again, with the saved values loaded.
  const handled = useRef<PageResult>(undefined);
  useEffect(() => {
    if (navigation.state !== "idle" || handled.current === result) return;
    handled.current = result;
    if (!isSaveAll(result)) return;
    // Saved forms now show what was saved; the first refused field gets the focus.
    for (const r of result.results) {
      const draft = resetOf.current[r.intent as PartIntent];
      if (r.ok && draft && JSON.stringify(draft.values) === posted.current[r.intent]) draft.reset();
    }
    const refused = result.results.find((r) => !r.ok);
    if (!refused) return;
    const card = document.querySelector<HTMLElement>(`[data-settings-card="${refused.intent}"]`);
    const field = card?.querySelector<HTMLElement>('[aria-invalid="true"]');
    (field ?? card)?.scrollIntoView({ block: "center" });
    field?.focus({ preventScroll: true });
  }, [result, navigation.state]);

  const other: ActionData = isSaveAll(result) ? undefined : (result as ActionData);
  const refused = isSaveAll(result) ? result.results.filter((r) => !r.ok) : [];
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
          {isSaveAll(result) && result.message ? (
            <Toast message={result.message} token={result} />
          ) : null}
          {refused.length > 0 || other?.intent === "save-all" ? (
            <Layout.Section>
              <FormStatus data={other} intent="save-all" />
              {refused.length > 0 ? (
                <Banner
                  tone="critical"
                  title={`Not saved: ${refused.map((r) => titleOf(r.intent)).join(", ")}`}
                >
                  <List>
                    {refused.map((r) => (
                      <List.Item key={r.intent}>
                        {`${titleOf(r.intent)}: ${r.ok ? "" : (Object.values(r.errors)[0] ?? "")} What you typed is kept: correct it and save again.`}
                      </List.Item>
                    ))}
                  </List>
                </Banner>
              ) : null}
            </Layout.Section>
          ) : null}
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
