/**
 * The "Notifications" form of the settings page: where the emails go, what they tell, how
 * often; and a test email (its own button, which saves nothing).
 */
import { Form, useNavigation } from "@remix-run/react";
import {
  Banner,
  BlockStack,
  Button,
  Checkbox,
  FormLayout,
  InlineStack,
  Text,
  TextField,
} from "@shopify/polaris";
import { type ActionData, FormStatus } from "../../components/FormStatus";
import { shopDateTime } from "../../orders/shop-time";
import { PartForm } from "../../components/PartForm";
import {
  type PartProps,
  type SavedSettings,
  asPosted,
  fieldsOf,
} from "../../components/part-fields";

export const NOTIFY_INTENT = "save-notifications";

const NOTIFY_KINDS = [
  ["notifyFailures", "Orders that failed, or stay held longer than the time below"],
  ["notifyLowBalance", "Low balance (below the amount below, or below what waiting orders cost)"],
  ["notifyOutage", "The service not answering, and answering again"],
  ["notifyWebhooks", "The service's webhooks not registered or missing deliveries"],
  ["notifyDisputes", "Disputes: a new message from support, or a status change"],
] as const;

export const NOTIFY_KEYS = [
  "notifyEmails",
  ...NOTIFY_KINDS.map(([k]) => k),
  "notifyHeldAfterMinutes",
  "notifyDigestMinutes",
  "lowBalanceUsd",
] as const;

type Values = Record<(typeof NOTIFY_KEYS)[number], string>;

export function notificationsSaved(settings: SavedSettings): Values {
  const all = asPosted(settings);
  return Object.fromEntries(NOTIFY_KEYS.map((k) => [k, all[k] ?? ""])) as Values;
}

/** What the form reads of the page: the saved addresses, whether mail is set up, the last email. */
export interface NotificationsData {
  settings: SavedSettings;
  notifications: {
    /** SMTP_URL is set: emails can go out. */
    mailConfigured: boolean;
    lastDigest: {
      at: string;
      sent: boolean;
      subject: string;
      notices: number;
      error: string | null;
    } | null;
  };
  /** The shop's time zone, for the last email's time. */
  timeZone: string | null;
}

/** The test email: its own button and post (it saves nothing), and what the last email was. */
function TestEmailForm({ data, testEmail }: { data: NotificationsData; testEmail: ActionData }) {
  const busy = useNavigation().state !== "idle";
  const { lastDigest } = data.notifications;
  return (
    <Form method="post">
      <input type="hidden" name="intent" value="test-email" />
      <BlockStack gap="200">
        <FormStatus data={testEmail} intent="test-email" />
        <InlineStack gap="300" blockAlign="center">
          <Button submit disabled={busy || !data.settings.notifyEmails}>
            Send a test email
          </Button>
          <Text as="span" tone="subdued">
            {lastDigest
              ? lastDigest.sent
                ? `Last email ${shopDateTime(lastDigest.at, data.timeZone)}: ${lastDigest.subject}`
                : `Last email not sent yet (${lastDigest.notices} notices)${lastDigest.error ? `: ${lastDigest.error}` : ""}`
              : "No email sent yet."}
          </Text>
        </InlineStack>
      </BlockStack>
    </Form>
  );
}

export function NotificationsForm({
  data,
  draft,
  refusal,
  onSave,
  testEmail,
}: PartProps<Values, NotificationsData> & { testEmail: ActionData }) {
  const s = draft.values;
  const { set, err, text, check } = fieldsOf(draft, refusal, NOTIFY_INTENT);
  const { mailConfigured } = data.notifications;
  return (
    <PartForm
      intent={NOTIFY_INTENT}
      dirty={draft.dirty}
      refusal={refusal}
      onSave={onSave}
      hidden={
        <>
          {NOTIFY_KINDS.map(([k]) => (
            <input key={k} type="hidden" name={k} value={s[k]} />
          ))}
        </>
      }
      after={<TestEmailForm data={data} testEmail={testEmail} />}
    >
      {mailConfigured ? null : (
        <Banner tone="warning">
          <Text as="p">
            Email is not set up on this server (SMTP_URL): nothing is sent until the app&apos;s
            operator sets it. What would be told is kept until then.
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
          <Checkbox key={k} label={label} {...check(k)} />
        ))}
      </BlockStack>
      <FormLayout.Group>
        <TextField
          label="Tell of a held order after (minutes)"
          name="notifyHeldAfterMinutes"
          type="number"
          autoComplete="off"
          {...text("notifyHeldAfterMinutes")}
          helpText="Many holds clear by themselves within minutes."
        />
        <TextField
          label="At most one email every (minutes)"
          name="notifyDigestMinutes"
          type="number"
          autoComplete="off"
          {...text("notifyDigestMinutes")}
        />
      </FormLayout.Group>
      <TextField
        label="Low balance below (USD)"
        name="lowBalanceUsd"
        autoComplete="off"
        inputMode="decimal"
        {...text("lowBalanceUsd")}
        helpText="Also shown on the dashboard. Empty: only when the balance does not cover waiting orders."
      />
    </PartForm>
  );
}
