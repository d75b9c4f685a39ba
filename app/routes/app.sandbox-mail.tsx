/**
 * Sandbox only: the notification emails the sandbox's mail catcher caught, newest first, and
 * "Check now" to run the shop's notification turn without waiting for the minute's scan.
 */
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Banner, BlockStack, Box, Button, Card, InlineStack, Page, Text } from "@shopify/polaris";
import { requireAdmin } from "../pages/context.server";
import { sandboxEnabled } from "../sandbox/auth.server";
import { caughtMails, checkNotificationsNow } from "../sandbox/mail.server";
import { useSubmitOnce } from "../components/SubmitOnce";
import { useAutoRefresh } from "../components/useAutoRefresh";
import { Toast } from "../components/Toast";
import { prisma } from "../db.server";
import { shopTimeZone } from "../orders/shop-zone.server";
import { shopDateTime } from "../orders/shop-time";
import { emailList, getSettings } from "../settings.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  if (!sandboxEnabled()) throw new Response("Not found", { status: 404 });
  const { shop } = await requireAdmin(request);
  const [settings, mails, timeZone] = await Promise.all([
    getSettings(prisma, shop),
    caughtMails(),
    shopTimeZone(prisma, shop),
  ]);
  return { mails, addresses: emailList(settings.notifyEmails), timeZone };
};

export const action = async ({ request }: ActionFunctionArgs) => {
  if (!sandboxEnabled()) throw new Response("Not found", { status: 404 });
  const { shop } = await requireAdmin(request);
  const out = await checkNotificationsNow(prisma, shop);
  const message =
    "sent" in out
      ? `Digest sent with ${out.notices} notice${out.notices === 1 ? "" : "s"}`
      : "failed" in out
        ? `Not sent: ${out.failed}`
        : `No email: ${out.skipped}`;
  return { message, at: Date.now() };
};

export default function SandboxMail() {
  const { mails, addresses, timeZone } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const nav = useNavigation();
  const busy = nav.state !== "idle";
  const once = useSubmitOnce(busy);
  // The scan runs every minute: new mails show without a reload.
  useAutoRefresh({ every: 5000 });
  return (
    <Page
      title="Caught emails"
      subtitle="Sandbox: the notification emails, as a real SMTP server received them"
    >
      <BlockStack gap="400">
        {result ? <Toast message={result.message} token={result.at} /> : null}
        <Card>
          <BlockStack gap="300">
            <Text as="p">
              {addresses.length
                ? `Notifications go to ${addresses.join(", ")}; one digest at most every few minutes (Settings → Notifications).`
                : "No address is set: set one in Settings → Notifications."}
            </Text>
            <Form method="post" onSubmit={once.onSubmit}>
              <InlineStack gap="300" blockAlign="center">
                <Button submit loading={busy} disabled={busy}>
                  Check now
                </Button>
                <Text as="span" tone="subdued">
                  Without it, the app looks every minute.
                </Text>
              </InlineStack>
            </Form>
          </BlockStack>
        </Card>
        {typeof mails === "string" ? (
          <Banner tone="critical">
            <Text as="p">{mails}</Text>
          </Banner>
        ) : mails === null ? (
          <Banner tone="warning">
            <Text as="p">This sandbox runs without a mail catcher (SANDBOX_MAIL_SIM_URL).</Text>
          </Banner>
        ) : mails.length === 0 ? (
          <Card>
            <BlockStack gap="100">
              <Text as="h2" variant="headingMd">
                No email yet
              </Text>
              <Text as="p" tone="subdued">
                A digest comes when orders fail or stay held, or the service stops answering.
              </Text>
            </BlockStack>
          </Card>
        ) : (
          mails.map((m) => (
            <Card key={`${m.messageId}-${m.receivedAt}`}>
              <article data-mail aria-label={m.subject}>
                <BlockStack gap="200">
                  <Text as="h2" variant="headingMd">
                    {m.subject}
                  </Text>
                  <Text as="p" tone="subdued">
                    {`To ${m.to.join(", ")} · from ${m.from} · ${shopDateTime(m.receivedAt, timeZone)}`}
                  </Text>
                  <Box
                    background="bg-surface-secondary"
                    padding="300"
                    borderRadius="200"
                    overflowX="scroll"
                  >
                    <pre
                      style={{
                        margin: 0,
                        whiteSpace: "pre-wrap",
                        wordBreak: "break-word",
                        fontSize: 13,
                      }}
                    >
                      {m.text}
                    </pre>
                  </Box>
                </BlockStack>
              </article>
            </Card>
          ))
        )}
      </BlockStack>
    </Page>
  );
}
