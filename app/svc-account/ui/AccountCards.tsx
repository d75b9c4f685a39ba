/**
 * The settings page's actions that save no settings: the service account (connect by API key
 * or by logging in, disconnect, sandbox orders on or off) and the service's webhooks.
 */
import { Form, useNavigation } from "@remix-run/react";
import {
  Badge,
  BlockStack,
  Button,
  Card,
  FormLayout,
  InlineStack,
  Text,
  TextField,
} from "@shopify/polaris";
import { useEffect, useState } from "react";
import { ConfirmSubmit } from "../../components/ConfirmSubmit";
import { type ActionData, FormStatus, fieldError } from "../../components/FormStatus";
import { shopDateTime } from "../../orders/shop-time";
import type { SavedSettings } from "../../components/part-fields";
import type { AccountStatus } from "../account.server";

/** What the cards read of the settings page: the account, its balance, sandbox on or off. */
export interface AccountData {
  account: AccountStatus;
  /** The service's balance (not connected: null), or why it is not known. */
  balance: { amount: string | null; error: string | null } | null;
  settings: SavedSettings;
  /** The shop's time zone, for the cards' times. */
  timeZone: string | null;
}

function Intent({ value }: { value: string }) {
  return <input type="hidden" name="intent" value={value} />;
}

export function ConnectionCard({ data, result }: { data: AccountData; result: ActionData }) {
  const { account, balance, settings } = data;
  return (
    <Card>
      <BlockStack gap="400">
        <FormStatus data={result} intent="connect-key" />
        <FormStatus data={result} intent="connect-oauth" />
        <FormStatus data={result} intent="disconnect" />
        <FormStatus data={result} intent="set-sandbox" />
        {account.connected ? (
          <ConnectedAccount account={account} balance={balance} timeZone={data.timeZone} />
        ) : (
          <ConnectForms account={account} result={result} />
        )}
        <SandboxSwitch sandbox={settings.sandbox} />
      </BlockStack>
    </Card>
  );
}

export function WebhookCard({ data, result }: { data: AccountData; result: ActionData }) {
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
            <Text as="span">on {shopDateTime(account.webhookRegisteredAt, data.timeZone)}</Text>
          ) : null}
        </InlineStack>
        {account.webhookProblem ? (
          <Text as="p" tone="critical">
            {account.webhookProblem}
          </Text>
        ) : null}
        {account.webhookUrlMasked ? (
          <Text as="p" tone="subdued">
            Address: {account.webhookUrlMasked}
          </Text>
        ) : null}
        <Text as="p">
          Last event received:{" "}
          {account.lastEventAt
            ? `${account.lastEventTopic} at ${shopDateTime(account.lastEventAt, data.timeZone)}`
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

/** A connected account: how, its access token, its balance, and Disconnect. */
function ConnectedAccount({
  account,
  balance,
  timeZone,
}: {
  account: AccountData["account"];
  balance: AccountData["balance"];
  timeZone: string | null;
}) {
  return (
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
          ? `valid until ${shopDateTime(account.tokenExpiresAt, timeZone)}`
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
        New orders wait (held) until an account is connected again; orders already at the service
        stop being paid and tracked by the app. The service webhooks are cancelled and the stored
        keys and tokens are deleted.
      </ConfirmSubmit>
    </BlockStack>
  );
}

/** No account yet: connect with an API key, or by logging in at the service. */
function ConnectForms({
  account,
  result,
}: {
  account: AccountData["account"];
  result: ActionData;
}) {
  const [apiKey, setApiKey] = useState("");
  const busy = useNavigation().state !== "idle";
  useEffect(() => {
    if (result?.ok && result.intent === "connect-key") setApiKey("");
  }, [result]);
  return (
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
  );
}

/** Sandbox orders on or off (turning it off asks first: real orders, real money). */
function SandboxSwitch({ sandbox }: { sandbox: boolean }) {
  const busy = useNavigation().state !== "idle";
  return (
    <InlineStack gap="200" blockAlign="center">
      <Text as="span">
        Sandbox orders are{" "}
        <Text as="span" fontWeight="semibold">
          {sandbox ? "on" : "off"}
        </Text>{" "}
        (with sandbox on, orders are placed as tests and nothing is charged).
      </Text>
      {sandbox ? (
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
  );
}
