import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import {
  Badge,
  Banner,
  BlockStack,
  Button,
  Card,
  Checkbox,
  FormLayout,
  InlineStack,
  Layout,
  Page,
  Select,
  Text,
  TextField,
} from "@shopify/polaris";
import { useEffect, useMemo, useState } from "react";
import { requireAdmin } from "../admin/context.server";
import { settingsAction, settingsPageData } from "../admin/settings-page.server";
import { ConfirmSubmit } from "../components/ConfirmSubmit";
import { type ActionData, FormStatus, fieldError, useKeptValues } from "../components/FormStatus";
import { SaveBar } from "../components/SaveBar";
import { formatDateTime } from "../components/format";
import { type RuleRow, ShippingRules } from "../components/ShippingRules";
import { prisma } from "../db.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop } = await requireAdmin(request);
  return settingsPageData(prisma, shop);
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop, sandbox } = await requireAdmin(request);
  return settingsAction(prisma, shop, await request.formData(), { sandbox });
};

type Data = ReturnType<typeof useLoaderData<typeof loader>>;

export default function Settings() {
  const data = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as ActionData & { redirectTo?: string };
  useEffect(() => {
    // The service's authorization page lives outside the admin: open it at the top level.
    if (result?.ok && result.redirectTo) window.open(result.redirectTo, "_top");
  }, [result]);
  return (
    <Page title="Settings">
      <Layout>
        <Layout.AnnotatedSection
          title="Service account"
          description="Connect the fulfilment service account that places and pays your orders."
        >
          <ConnectionCard data={data} result={result} />
        </Layout.AnnotatedSection>
        <Layout.AnnotatedSection
          title="Webhooks"
          description="The service tells the app about orders and tracking through webhooks."
        >
          <WebhookCard data={data} result={result} />
        </Layout.AnnotatedSection>
        <Layout.AnnotatedSection
          title="Shipping"
          description="How each order's shipping method is chosen from the service's freight quote, per destination. The most specific rule wins: a country, then a region, then the rule for every other destination."
        >
          <ShippingRules
            rules={data.settings.shippingRules as RuleRow[]}
            legacyMethod={data.settings.logisticName}
            result={result}
          />
        </Layout.AnnotatedSection>
        <Layout.AnnotatedSection
          title="Exchange rates"
          description="Prices go to the service in US dollars. Rates come from the European Central Bank's daily reference rates; a rate you set here wins."
        >
          <FxRatesCard rates={data.settings.fxRates} result={result} />
        </Layout.AnnotatedSection>
        <Layout.AnnotatedSection
          title="Orders and payment"
          description="When orders are placed, what is held, and how they are paid."
        >
          <SettingsForm data={data} result={result} />
        </Layout.AnnotatedSection>
        <Layout.AnnotatedSection
          id="pricing"
          title="Pricing and stock"
          description="How imported products are priced from the supplier's cost, what happens when the cost moves, and whose stock your shop shows."
        >
          <PricingCard data={data} result={result} />
        </Layout.AnnotatedSection>
        <Layout.AnnotatedSection
          id="notifications"
          title="Notifications"
          description="Emails when something needs you: one digest at most every so many minutes, never one email per order."
        >
          <NotificationsCard data={data} result={result} />
        </Layout.AnnotatedSection>
      </Layout>
    </Page>
  );
}

function Intent({ value }: { value: string }) {
  return <input type="hidden" name="intent" value={value} />;
}

function ConnectionCard({ data, result }: { data: Data; result: ActionData }) {
  const { account, balance, settings } = data;
  const [apiKey, setApiKey] = useState("");
  const busy = useNavigation().state !== "idle";
  useEffect(() => {
    if (result?.ok && result.intent === "connect-key") setApiKey("");
  }, [result]);
  return (
    <Card>
      <BlockStack gap="400">
        <FormStatus data={result} intent="connect-key" />
        <FormStatus data={result} intent="connect-oauth" />
        <FormStatus data={result} intent="disconnect" />
        <FormStatus data={result} intent="set-sandbox" />
        {account.connected ? (
          <BlockStack gap="300">
            <InlineStack gap="200" blockAlign="center">
              <Badge tone="success">Connected</Badge>
              <Text as="span">
                {account.authMethod === "apiKey" ? "with an API key" : "through authorization"}
                {account.apiKeyMasked ? ` ${account.apiKeyMasked}` : ""}
              </Text>
            </InlineStack>
            <Text as="p">
              Access token:{" "}
              {account.tokenValid
                ? `valid until ${formatDateTime(account.tokenExpiresAt)}`
                : "none yet (one is requested on the next call)"}
            </Text>
            <Text as="p">
              Balance:{" "}
              {balance?.amount != null ? (
                <Text as="span" fontWeight="semibold">
                  {balance.amount} USD
                </Text>
              ) : (
                `unknown (${balance?.error ?? "not connected"})`
              )}
            </Text>
            <ConfirmSubmit
              intent="disconnect"
              label="Disconnect"
              title="Disconnect from the service?"
              tone="critical"
            >
              New orders wait (held) until an account is connected again; orders already at the
              service stop being paid and tracked by the app. The service webhooks are cancelled and
              the stored keys and tokens are deleted.
            </ConfirmSubmit>
          </BlockStack>
        ) : (
          <BlockStack gap="300">
            {!account.canConnect ? (
              <Text as="p" tone="critical">
                The app has no service address (SVC_BASE_URL): its operator must set it.
              </Text>
            ) : null}
            <Form method="post" autoComplete="off">
              <Intent value="connect-key" />
              <FormLayout>
                <TextField
                  label="API key"
                  name="apiKey"
                  type="password"
                  value={apiKey}
                  onChange={setApiKey}
                  autoComplete="off"
                  helpText="From your service account's settings. It is stored encrypted and never shown again."
                  error={fieldError(result, "connect-key", "apiKey")}
                />
                <Button submit variant="primary" disabled={busy || !account.canConnect}>
                  Connect with API key
                </Button>
              </FormLayout>
            </Form>
            {account.canAuthorize ? (
              <Form method="post">
                <Intent value="connect-oauth" />
                <InlineStack gap="200" blockAlign="center">
                  <Text as="span" tone="subdued">
                    or log in at the service:
                  </Text>
                  <Button submit disabled={busy}>
                    Connect
                  </Button>
                </InlineStack>
              </Form>
            ) : null}
          </BlockStack>
        )}
        <InlineStack gap="200" blockAlign="center">
          <Text as="span">
            Sandbox orders are{" "}
            <Text as="span" fontWeight="semibold">
              {settings.sandbox ? "on" : "off"}
            </Text>{" "}
            (with sandbox on, orders are placed as tests and nothing is charged).
          </Text>
          {settings.sandbox ? (
            <ConfirmSubmit
              intent="set-sandbox"
              fields={{ sandbox: "false" }}
              label="Turn sandbox off"
              title="Turn sandbox off: real orders, real money?"
            >
              From now on orders are placed for real and paid from the service balance.
            </ConfirmSubmit>
          ) : (
            <Form method="post">
              <Intent value="set-sandbox" />
              <input type="hidden" name="sandbox" value="true" />
              <Button submit disabled={busy}>
                Turn sandbox on
              </Button>
            </Form>
          )}
        </InlineStack>
      </BlockStack>
    </Card>
  );
}

function WebhookCard({ data, result }: { data: Data; result: ActionData }) {
  const { account } = data;
  const busy = useNavigation().state !== "idle";
  return (
    <Card>
      <BlockStack gap="300">
        <FormStatus data={result} intent="register-webhooks" />
        <InlineStack gap="200" blockAlign="center">
          {account.webhookRegisteredAt ? (
            <Badge tone="success">Registered</Badge>
          ) : (
            <Badge tone="warning">Not registered</Badge>
          )}
          {account.webhookRegisteredAt ? (
            <Text as="span">on {formatDateTime(account.webhookRegisteredAt)}</Text>
          ) : null}
        </InlineStack>
        {account.webhookUrlMasked ? (
          <Text as="p" tone="subdued">
            Address: {account.webhookUrlMasked}
          </Text>
        ) : null}
        <Text as="p">
          Last event received:{" "}
          {account.lastEventAt
            ? `${account.lastEventTopic} at ${formatDateTime(account.lastEventAt)}`
            : "none yet"}
        </Text>
        <Form method="post">
          <Intent value="register-webhooks" />
          <Button submit disabled={busy || !account.connected}>
            Register again
          </Button>
        </Form>
      </BlockStack>
    </Card>
  );
}

function asPosted(o: object): Record<string, string> {
  return Object.fromEntries(
    Object.entries(o)
      .filter(([, v]) => v === null || typeof v !== "object")
      .map(([k, v]) => [k, String(v ?? "")]),
  );
}

const WAREHOUSE_MODES_HIDDEN =
  "The platform warehouse modes (a warehouse you choose, or one the service assigns) are not offered: they need a shipping label uploaded after payment, which this app cannot send yet.";

/**
 * The ship-from warehouse, from the service's list (name and country). A saved value the
 * service no longer lists stays, with a note; when the list cannot be read, the saved value is
 * the only choice and the page says why.
 */
function ShipFromSelect(p: {
  list: Data["warehouses"];
  saved: string;
  value: string;
  onChange: (v: string) => void;
  error?: string;
}) {
  const listed = p.list.ok ? p.list.warehouses : [];
  const known = listed.some((w) => w.code === p.saved);
  const options = [
    ...listed.map((w) => ({ label: `${w.name} (${w.country}, ${w.code})`, value: w.code })),
    ...(known ? [] : [{ label: `${p.saved} (saved)`, value: p.saved }]),
  ];
  const help = !p.list.ok
    ? `${p.list.reason} The saved warehouse (${p.saved}) is kept.`
    : known
      ? "Where matched products ship from by default (each shipping rule names its own origin)"
      : `The saved warehouse (${p.saved}) is no longer in the service's list: choose another one.`;
  return (
    <Select
      label="Ship-from warehouse"
      name="fromCountryCode"
      options={options}
      value={p.value}
      onChange={p.onChange}
      helpText={help}
      error={p.error}
    />
  );
}

function SettingsForm({ data, result }: { data: Data; result: ActionData }) {
  const [s, setS] = useKeptValues(data.settings, result, "save-settings");
  const busy = useNavigation().state !== "idle";
  // Compared as the form posts them (numbers typed are text until saved).
  const dirty = JSON.stringify(asPosted(s)) !== JSON.stringify(asPosted(data.settings));
  const err = (f: string) => fieldError(result, "save-settings", f);
  const set =
    <K extends keyof typeof s>(k: K) =>
    (v: (typeof s)[K]) =>
      setS((old) => ({ ...old, [k]: v }));
  const num = (k: "reviewWindowMinutes" | "payBatchSize" | "payBatchWindowSeconds") => ({
    value: String(s[k]),
    onChange: (v: string) => setS((old) => ({ ...old, [k]: v as unknown as number })),
  });
  return (
    <Card>
      <Form method="post">
        <Intent value="save-settings" />
        {(["holdRiskyOrders", "autoPay", "notifyCustomer", "paused"] as const).map((k) => (
          <input key={k} type="hidden" name={k} value={String(s[k])} />
        ))}
        <FormLayout>
          <SaveBar dirty={dirty} busy={busy} onDiscard={() => setS(data.settings)} />
          <FormStatus data={result} intent="save-settings" summary />
          <Select
            label="Place an order at the service when the shop order is"
            name="trigger"
            options={[
              { label: "paid (orders/paid)", value: "orders/paid" },
              { label: "created (orders/create)", value: "orders/create" },
            ]}
            value={s.trigger}
            onChange={(v) => set("trigger")(v as typeof s.trigger)}
            error={err("trigger")}
          />
          <TextField
            label="Review window (minutes)"
            name="reviewWindowMinutes"
            type="number"
            autoComplete="off"
            helpText="Time to edit or cancel an order before it is placed. 0 places at once."
            error={err("reviewWindowMinutes")}
            {...num("reviewWindowMinutes")}
          />
          <Checkbox
            label="Hold orders Shopify rates as risky (fraud risk)"
            checked={s.holdRiskyOrders}
            onChange={set("holdRiskyOrders")}
          />
          <Select
            label="Orders with lines not connected to a catalog product (your own stock)"
            name="unconnectedLines"
            options={[
              { label: "Hold the order until every line is connected", value: "hold" },
              { label: "Send the connected lines only; I ship the others", value: "connected" },
              {
                label: "Send every line; the service waits until the rest are connected",
                value: "send",
              },
            ]}
            value={s.unconnectedLines}
            onChange={(v) => set("unconnectedLines")(v as typeof s.unconnectedLines)}
            error={err("unconnectedLines")}
          />
          <Checkbox
            label="Pause: place no new orders"
            checked={s.paused}
            onChange={set("paused")}
          />
          <Checkbox
            label="Pay orders automatically from the balance"
            checked={s.autoPay}
            onChange={set("autoPay")}
          />
          <FormLayout.Group>
            <TextField
              label="Hold payment of an order costing over (USD)"
              name="costCapUsd"
              autoComplete="off"
              inputMode="decimal"
              value={s.costCapUsd}
              onChange={set("costCapUsd")}
              helpText="Items and shipping at the service. Empty: no cap."
              error={err("costCapUsd")}
            />
            <TextField
              label="…or leaving a margin under (%)"
              name="minMarginPct"
              autoComplete="off"
              inputMode="decimal"
              value={s.minMarginPct}
              onChange={set("minMarginPct")}
              helpText="Of the shop order's total. Empty: no minimum."
              error={err("minMarginPct")}
            />
          </FormLayout.Group>
          <FormLayout.Group>
            <TextField
              label="Payment batch size (orders)"
              name="payBatchSize"
              type="number"
              autoComplete="off"
              error={err("payBatchSize")}
              {...num("payBatchSize")}
            />
            <TextField
              label="Payment batch window (seconds)"
              name="payBatchWindowSeconds"
              type="number"
              autoComplete="off"
              error={err("payBatchWindowSeconds")}
              {...num("payBatchWindowSeconds")}
            />
          </FormLayout.Group>
          <ShipFromSelect
            list={data.warehouses}
            saved={data.settings.fromCountryCode}
            value={s.fromCountryCode}
            onChange={set("fromCountryCode")}
            error={err("fromCountryCode")}
          />
          <Select
            label="Warehouse mode"
            name="shopLogisticsType"
            options={[
              { label: "Merchant logistics", value: "2" },
              // A mode saved before it was withdrawn stays visible, not choosable.
              ...(data.settings.shopLogisticsType === 1
                ? [
                    {
                      label: "Platform logistics from a warehouse (not available)",
                      value: "1",
                      disabled: true,
                    },
                  ]
                : []),
              ...(data.settings.shopLogisticsType === 3
                ? [
                    {
                      label: "Warehouse assigned by the service (not available)",
                      value: "3",
                      disabled: true,
                    },
                  ]
                : []),
            ]}
            value={String(s.shopLogisticsType)}
            onChange={(v) => set("shopLogisticsType")(Number(v))}
            helpText={
              data.settings.shopLogisticsType === 2
                ? WAREHOUSE_MODES_HIDDEN
                : `Your saved mode is not available, and orders are held until you choose Merchant logistics and save. ${WAREHOUSE_MODES_HIDDEN}`
            }
            error={err("shopLogisticsType")}
          />
          {data.settings.shopLogisticsType === 1 ? (
            <TextField
              label="Warehouse id"
              name="storageId"
              autoComplete="off"
              value={s.storageId}
              onChange={set("storageId")}
              error={err("storageId")}
              helpText={
                data.warehouse
                  ? data.warehouse.name
                    ? `${data.warehouse.name} (${data.warehouse.country})`
                    : "Not found at the service"
                  : "Checked with the service when you save"
              }
            />
          ) : null}
          <FormLayout.Group>
            <Select
              label="IOSS"
              name="iossType"
              options={[
                { label: "No IOSS", value: "1" },
                { label: "My own IOSS number", value: "2" },
                { label: "The service's IOSS", value: "3" },
              ]}
              value={String(s.iossType)}
              onChange={(v) => set("iossType")(Number(v))}
              error={err("iossType")}
            />
            <TextField
              label="IOSS number"
              name="iossNumber"
              autoComplete="off"
              value={s.iossNumber}
              onChange={set("iossNumber")}
              error={err("iossNumber")}
            />
          </FormLayout.Group>
          <Checkbox
            label="Notify the customer when tracking is added"
            checked={s.notifyCustomer}
            onChange={set("notifyCustomer")}
          />
          <Button submit variant="primary" disabled={busy}>
            Save settings
          </Button>
        </FormLayout>
      </Form>
    </Card>
  );
}

function FxRatesCard({ rates, result }: { rates: Record<string, string>; result: ActionData }) {
  const saved = Object.entries(rates)
    .map(([c, r]) => `${c} ${r}`)
    .join("\n");
  const [text, setText] = useKeptValues(saved, result, "save-fx");
  const busy = useNavigation().state !== "idle";
  return (
    <Card>
      <Form method="post">
        <Intent value="save-fx" />
        <FormLayout>
          <FormStatus data={result} intent="save-fx" summary />
          <TextField
            label="Your own rates (USD for one unit)"
            name="fxRates"
            autoComplete="off"
            multiline={3}
            value={text}
            onChange={setText}
            placeholder="EUR 1.0812"
            helpText="One per line. Leave empty to use the reference rates only."
            error={fieldError(result, "save-fx", "fxRates")}
          />
          <Button submit disabled={busy}>
            Save exchange rates
          </Button>
        </FormLayout>
      </Form>
    </Card>
  );
}

const NOTIFY_KINDS = [
  ["notifyFailures", "Orders that failed, or stay held longer than the time below"],
  ["notifyLowBalance", "Low balance (below the amount below, or below what waiting orders cost)"],
  ["notifyOutage", "The service not answering, and answering again"],
  ["notifyWebhooks", "The service's webhooks not registered or missing deliveries"],
  ["notifyDisputes", "Disputes: a new message from support, or a status change"],
] as const;

function PricingCard({ data, result }: { data: Data; result: ActionData }) {
  const saved = useMemo(
    () => ({
      priceRule: data.settings.priceRule as string,
      priceValue: data.settings.priceValue,
      priceRounding: data.settings.priceRounding as string,
      compareAtPct: data.settings.compareAtPct,
      repriceOnCostChange: data.settings.repriceOnCostChange as string,
      repriceThresholdPct: data.settings.repriceThresholdPct,
      stockSync: data.settings.stockSync,
      stockCountries: data.settings.stockCountries,
      mainMarket: data.settings.mainMarket,
    }),
    [data.settings],
  );
  const [s, setS] = useKeptValues(saved, result, "save-pricing");
  const nav = useNavigation();
  const busy = nav.state !== "idle";
  const err = (f: string) => fieldError(result, "save-pricing", f);
  const set =
    <K extends keyof typeof s>(k: K) =>
    (v: (typeof s)[K]) =>
      setS((old) => ({ ...old, [k]: v }));
  return (
    <Card>
      <Form method="post">
        <Intent value="save-pricing" />
        <input type="hidden" name="stockSync" value={String(s.stockSync)} />
        <FormLayout>
          <FormStatus data={result} intent="save-pricing" summary />
          <FormLayout.Group>
            <Select
              label="Price rule"
              name="priceRule"
              options={[
                { value: "multiplier", label: "Cost × multiplier" },
                { value: "markup", label: "Cost + fixed markup" },
              ]}
              value={s.priceRule}
              onChange={set("priceRule")}
              error={err("priceRule")}
            />
            <TextField
              label={s.priceRule === "markup" ? "Markup (shop currency)" : "Multiplier"}
              name="priceValue"
              autoComplete="off"
              inputMode="decimal"
              value={s.priceValue}
              onChange={set("priceValue")}
              error={err("priceValue")}
            />
          </FormLayout.Group>
          <FormLayout.Group>
            <Select
              label="Prices end in"
              name="priceRounding"
              options={[
                { value: "99", label: ".99 (rounded up)" },
                { value: "95", label: ".95 (rounded up)" },
                { value: "00", label: ".00 (rounded up)" },
                { value: "none", label: "The exact cent" },
              ]}
              value={s.priceRounding}
              onChange={set("priceRounding")}
            />
            <TextField
              label="Compare-at price above the price (%)"
              name="compareAtPct"
              autoComplete="off"
              inputMode="numeric"
              value={s.compareAtPct}
              onChange={set("compareAtPct")}
              helpText="Empty: no compare-at price."
              error={err("compareAtPct")}
            />
          </FormLayout.Group>
          <FormLayout.Group>
            <Select
              label="When the supplier's cost moves"
              name="repriceOnCostChange"
              options={[
                { value: "flag", label: "Flag the variant, keep my price" },
                { value: "apply", label: "Set the price by my rule" },
              ]}
              value={s.repriceOnCostChange}
              onChange={set("repriceOnCostChange")}
            />
            <TextField
              label="…by at least (%)"
              name="repriceThresholdPct"
              autoComplete="off"
              inputMode="decimal"
              value={s.repriceThresholdPct}
              onChange={set("repriceThresholdPct")}
              error={err("repriceThresholdPct")}
            />
          </FormLayout.Group>
          <Checkbox
            label="Set my shop's stock from the supplier's stock"
            checked={s.stockSync}
            onChange={set("stockSync")}
          />
          <TextField
            label="Warehouse countries that count"
            name="stockCountries"
            autoComplete="off"
            value={s.stockCountries}
            onChange={set("stockCountries")}
            placeholder={data.settings.fromCountryCode}
            helpText="Two-letter codes separated by commas. Empty: the country your orders ship from."
            error={err("stockCountries")}
          />
          <TextField
            label="Main market (shipping quotes on the Products page)"
            name="mainMarket"
            autoComplete="country"
            value={s.mainMarket}
            onChange={set("mainMarket")}
            helpText="The two-letter code of the country most of your orders go to."
            error={err("mainMarket")}
          />
          <Button
            submit
            variant="primary"
            disabled={busy}
            loading={busy && nav.formData?.get("intent") === "save-pricing"}
          >
            Save pricing
          </Button>
        </FormLayout>
      </Form>
    </Card>
  );
}

function NotificationsCard({ data, result }: { data: Data; result: ActionData }) {
  // One object per loaded settings (a new one each render would reset the form each render).
  const saved = useMemo(
    () => ({
      notifyEmails: data.settings.notifyEmails,
      notifyFailures: data.settings.notifyFailures,
      notifyLowBalance: data.settings.notifyLowBalance,
      notifyOutage: data.settings.notifyOutage,
      notifyWebhooks: data.settings.notifyWebhooks,
      notifyDisputes: data.settings.notifyDisputes,
      notifyHeldAfterMinutes: String(data.settings.notifyHeldAfterMinutes),
      notifyDigestMinutes: String(data.settings.notifyDigestMinutes),
      lowBalanceUsd: data.settings.lowBalanceUsd,
    }),
    [data.settings],
  );

  const [s, setS] = useKeptValues(saved, result, "save-notifications");
  const nav = useNavigation();
  const busy = nav.state !== "idle";
  const err = (f: string) => fieldError(result, "save-notifications", f);
  const set =
    <K extends keyof typeof s>(k: K) =>
    (v: (typeof s)[K]) =>
      setS((old) => ({ ...old, [k]: v }));
  const { mailConfigured, lastDigest } = data.notifications;
  return (
    <Card>
      <BlockStack gap="400">
        <Form method="post">
          <Intent value="save-notifications" />
          {NOTIFY_KINDS.map(([k]) => (
            <input key={k} type="hidden" name={k} value={String(s[k])} />
          ))}
          <FormLayout>
            <FormStatus data={result} intent="save-notifications" summary />
            {mailConfigured ? null : (
              <Banner tone="warning">
                <Text as="p">
                  Email is not set up on this server (SMTP_URL): nothing is sent until the
                  app&apos;s operator sets it. What would be told is kept until then.
                </Text>
              </Banner>
            )}
            <TextField
              label="Send to"
              name="notifyEmails"
              autoComplete="email"
              multiline={2}
              value={s.notifyEmails}
              onChange={set("notifyEmails")}
              placeholder="you@example.com, partner@example.com"
              helpText="Up to 5 addresses, separated by commas. Empty: no emails."
              error={err("notifyEmails")}
            />
            <BlockStack gap="100">
              <Text as="span" variant="bodyMd">
                Tell me about
              </Text>
              {NOTIFY_KINDS.map(([k, label]) => (
                <Checkbox key={k} label={label} checked={s[k]} onChange={set(k)} />
              ))}
            </BlockStack>
            <FormLayout.Group>
              <TextField
                label="Tell of a held order after (minutes)"
                name="notifyHeldAfterMinutes"
                type="number"
                autoComplete="off"
                value={s.notifyHeldAfterMinutes}
                onChange={set("notifyHeldAfterMinutes")}
                helpText="Many holds clear by themselves within minutes."
                error={err("notifyHeldAfterMinutes")}
              />
              <TextField
                label="At most one email every (minutes)"
                name="notifyDigestMinutes"
                type="number"
                autoComplete="off"
                value={s.notifyDigestMinutes}
                onChange={set("notifyDigestMinutes")}
                error={err("notifyDigestMinutes")}
              />
            </FormLayout.Group>
            <TextField
              label="Low balance below (USD)"
              name="lowBalanceUsd"
              autoComplete="off"
              inputMode="decimal"
              value={s.lowBalanceUsd}
              onChange={set("lowBalanceUsd")}
              helpText="Also shown on the dashboard. Empty: only when the balance does not cover waiting orders."
              error={err("lowBalanceUsd")}
            />
            <Button
              submit
              variant="primary"
              disabled={busy}
              loading={busy && nav.formData?.get("intent") === "save-notifications"}
            >
              Save notifications
            </Button>
          </FormLayout>
        </Form>
        <Form method="post">
          <Intent value="test-email" />
          <BlockStack gap="200">
            <FormStatus data={result} intent="test-email" />
            <InlineStack gap="300" blockAlign="center">
              <Button submit disabled={busy || !data.settings.notifyEmails}>
                Send a test email
              </Button>
              <Text as="span" tone="subdued">
                {lastDigest
                  ? lastDigest.sent
                    ? `Last email ${formatDateTime(lastDigest.at)}: ${lastDigest.subject}`
                    : `Last email not sent yet (${lastDigest.notices} notices)${lastDigest.error ? `: ${lastDigest.error}` : ""}`
                  : "No email sent yet."}
              </Text>
            </InlineStack>
          </BlockStack>
        </Form>
      </BlockStack>
    </Card>
  );
}
