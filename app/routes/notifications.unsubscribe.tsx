/**
 * The unsubscribe link of the notification emails (no Shopify session: it is opened from a
 * mailbox). Opening it only asks; the button (or a mail client's one-click POST, RFC 8058)
 * turns the kind off. The signed token says which shop and kind, so nobody can turn off
 * another shop's emails.
 */
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import polarisStyles from "@shopify/polaris/build/esm/styles.css";
import { AppProvider, Banner, BlockStack, Button, Card, Page, Text } from "@shopify/polaris";
import enTranslations from "@shopify/polaris/locales/en.json";
import { prisma } from "../db.server";
import { KIND_LABEL, KIND_SETTING, NOTICE_KINDS } from "../notify/kinds";
import { readUnsubscribeToken, type UnsubscribeScope } from "../notify/unsubscribe.server";
import { updateSettings } from "../settings.server";

export const links = () => [{ rel: "stylesheet", href: polarisStyles }];
export const meta: MetaFunction = () => [{ title: "Email notifications · Dropship Autopilot" }];

function what(kind: UnsubscribeScope): string {
  return kind === "all" ? "all notification emails" : `emails about “${KIND_LABEL[kind]}”`;
}

function tokenOf(request: Request): string {
  return new URL(request.url).searchParams.get("t") ?? "";
}

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const read = readUnsubscribeToken(tokenOf(request));
  if (!read) return Response.json({ ok: false as const }, { status: 400 });
  return { ok: true as const, shop: read.shop, what: what(read.kind) };
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const read = readUnsubscribeToken(tokenOf(request));
  if (!read) return Response.json({ done: false as const }, { status: 400 });
  const kinds = read.kind === "all" ? NOTICE_KINDS : [read.kind];
  const patch = Object.fromEntries(kinds.map((k) => [KIND_SETTING[k], false]));
  const shop = await prisma.shop.findUnique({ where: { domain: read.shop }, select: { id: true } });
  if (shop) await updateSettings(prisma, read.shop, patch);
  return { done: true as const, shop: read.shop, what: what(read.kind) };
};

export default function Unsubscribe() {
  const data = useLoaderData<typeof loader>() as
    | { ok: false }
    | { ok: true; shop: string; what: string };
  const done = useActionData<typeof action>() as
    | { done: false }
    | { done: true; shop: string; what: string }
    | undefined;
  const busy = useNavigation().state !== "idle";
  // The token rides in the address: the button posts to the same one.
  const { pathname, search } = useLocation();
  return (
    <AppProvider i18n={enTranslations}>
      <main>
        <Page narrowWidth title="Email notifications">
          <Card>
            {!data.ok || done?.done === false ? (
              <Banner tone="critical" title="This link is not valid">
                <Text as="p">
                  It may have been cut when copied. The emails can be turned off in the app&apos;s
                  settings, under Notifications.
                </Text>
              </Banner>
            ) : done?.done ? (
              <Banner tone="success" title="Unsubscribed">
                <Text as="p">
                  {`${done.shop} sends you no more ${done.what}. They can be turned on again in the app's settings, under Notifications.`}
                </Text>
              </Banner>
            ) : (
              <Form method="post" action={`${pathname}${search}`}>
                <BlockStack gap="300">
                  <Text as="p">{`Stop ${data.what} from ${data.shop}?`}</Text>
                  <div>
                    <Button submit variant="primary" loading={busy} disabled={busy}>
                      Unsubscribe
                    </Button>
                  </div>
                </BlockStack>
              </Form>
            )}
          </Card>
        </Page>
      </main>
    </AppProvider>
  );
}
