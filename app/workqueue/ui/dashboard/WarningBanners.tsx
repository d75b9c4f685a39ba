/**
 * The dashboard's warnings, most urgent first: the service not answering, no connection, its
 * webhooks, the balance, withheld customer data. Those the live balance decides wait for it.
 */
import { Await } from "@remix-run/react";
import { Banner, BlockStack, Text } from "@shopify/polaris";
import { Suspense } from "react";
import type { Live, Warnings } from "./types";

/** Every warning that applies, stacked. */
export function WarningBanners({ w, live }: { w: Warnings; live: Promise<Live> }) {
  return (
    <BlockStack gap="300">
      <Suspense fallback={<OutageBanner live={false} held={w.outageHeld} />}>
        <Await resolve={live} errorElement={null}>
          {(b: Live) => <OutageBanner live={b.outage} held={w.outageHeld} />}
        </Await>
      </Suspense>
      {w.disconnectedInFlight > 0 ? (
        <Banner
          tone="critical"
          title="Not connected to the service"
          action={{ content: "Connect", url: "/app/settings" }}
        >
          <Text as="p">
            {`${w.disconnectedInFlight} order${w.disconnectedInFlight === 1 ? " is" : "s are"} at the service and get no tracking until the account is connected again.`}
          </Text>
        </Banner>
      ) : null}
      <WebhookBanners w={w} />
      <BalanceBanners w={w} live={live} />
      {w.protectedDataHeld > 0 ? (
        <Banner tone="warning" title="Shopify withholds customer data">
          <Text as="p">
            {`${w.protectedDataHeld} order${w.protectedDataHeld === 1 ? " waits" : "s wait"}: the app needs protected customer data access (name, address, phone) to ship them. It is granted in the Partner Dashboard; the orders go on by themselves once it is.`}
          </Text>
        </Banner>
      ) : null}
    </BlockStack>
  );
}

function OutageBanner({ live, held }: { live: boolean; held: number }) {
  if (!live && held === 0) return null;
  return (
    <Banner
      tone="critical"
      title="The service is not answering"
      action={
        held ? { content: "See the waiting orders", url: "/app/orders?view=attention" } : undefined
      }
    >
      <Text as="p">
        {live
          ? "The fulfilment service does not answer the app right now. "
          : "The fulfilment service did not answer the app's last attempts. "}
        {held
          ? `${held} order${held === 1 ? " waits" : "s wait"} for it and go${held === 1 ? "es" : ""} on by ${held === 1 ? "itself" : "themselves"} when it answers again. `
          : "Orders wait and go on by themselves when it answers again. "}
        Nothing is charged twice.
      </Text>
    </Banner>
  );
}

/** The service's webhooks: skipping deliveries, or not registered at all. */
function WebhookBanners({ w }: { w: Warnings }) {
  return (
    <>
      {w.webhooksSkipping && !w.webhooksMissing ? (
        <Banner
          tone="warning"
          title="The service's webhooks are missing deliveries"
          action={{ content: "Register them again in Settings", url: "/app/settings" }}
        >
          <Text as="p">
            Tracking arrived that no webhook told of. The app registers the webhooks again by
            itself; until deliveries resume, its checks every few minutes find what they miss.
          </Text>
        </Banner>
      ) : null}
      {w.webhooksMissing ? (
        <Banner
          tone="warning"
          title="The service's webhooks are not registered"
          action={{ content: "Register them in Settings", url: "/app/settings" }}
        >
          <Text as="p">
            Tracking and order updates still arrive, through the app's checks every few minutes, but
            later than they would by webhook.
          </Text>
        </Banner>
      ) : null}
    </>
  );
}

/**
 * The balance: too low for the orders waiting to be paid, or else (once the live balance is
 * known) under the merchant's threshold.
 */
function BalanceBanners({ w, live }: { w: Warnings; live: Promise<Live> }) {
  if (w.balanceBelowWaiting || w.shortBalanceHeld > 0) {
    return (
      <Banner tone="warning" title="The balance is too low">
        <Text as="p">
          {`Orders waiting for payment cost ${w.waitingCost} USD${w.knownBalance !== null ? `; the balance last seen is ${w.knownBalance} USD` : ""}. Top up at the service: they are paid automatically once it covers them.`}
        </Text>
      </Banner>
    );
  }
  if (!w.lowBalanceUsd) return null;
  return (
    <Suspense fallback={<LowBalanceBanner below={w.balanceBelowThreshold} w={w} />}>
      <Await resolve={live} errorElement={null}>
        {(b: Live) => (
          <LowBalanceBanner
            below={
              b.amount !== null
                ? Number(b.amount) < Number(w.lowBalanceUsd)
                : w.balanceBelowThreshold
            }
            w={w}
            amount={b.amount}
          />
        )}
      </Await>
    </Suspense>
  );
}

/** The balance under the merchant's threshold (Settings → Notifications). */
function LowBalanceBanner({
  below,
  w,
  amount,
}: {
  below: boolean;
  w: { lowBalanceUsd: string | null; knownBalance: string | null };
  amount?: string | null;
}) {
  if (!below) return null;
  const balance = amount ?? w.knownBalance;
  return (
    <Banner
      tone="warning"
      title="The balance is low"
      action={{ content: "Change the threshold", url: "/app/settings#notifications" }}
    >
      <Text as="p">
        {`The balance${balance !== null ? ` (${balance} USD)` : ""} is below your threshold of ${w.lowBalanceUsd} USD. Top up at the service before orders wait for it.`}
      </Text>
    </Banner>
  );
}
