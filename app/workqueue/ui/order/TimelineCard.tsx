/**
 * The order page's Timeline card: every step the order went through, in the shop's time, with
 * the service's error code and request id one click away for support.
 */
import { Badge, BlockStack, Card, InlineStack, Text } from "@shopify/polaris";
import { plainMessage, stepWords } from "../../../orders/plain-words";
import { shopDateTime } from "../../../orders/shop-time";
import { dotted, type OrderDetail } from "./shared";

type Entry = OrderDetail["timeline"][number];

export function TimelineCard({ order }: { order: OrderDetail }) {
  return (
    <Card>
      <BlockStack gap="300">
        <Text as="h2" variant="headingMd">
          Timeline
        </Text>
        {order.timeline.length === 0 ? (
          <Text as="p" tone="subdued">
            Nothing yet.
          </Text>
        ) : (
          <ol style={{ margin: 0, paddingLeft: 18 }}>
            {order.timeline.map((t) => (
              <Step key={t.id} entry={t} timeZone={order.timeZone} />
            ))}
          </ol>
        )}
      </BlockStack>
    </Card>
  );
}

/** A step's badge: green when it went through, red on an error, amber when held. */
function outcomeTone(outcome: Entry["outcome"]) {
  return outcome === "ok"
    ? "success"
    : outcome === "error"
      ? "critical"
      : outcome === "held"
        ? "warning"
        : undefined;
}

/** One step: when, which step and how it went, in plain words. */
function Step({ entry: t, timeZone }: { entry: Entry; timeZone: string | null }) {
  return (
    <li style={{ marginBottom: 8 }}>
      <InlineStack gap="200" blockAlign="center">
        <Text as="span" tone="subdued">
          {shopDateTime(t.at, timeZone)}
        </Text>
        <Badge tone={outcomeTone(t.outcome)}>{stepWords(t.step)}</Badge>
        <Text as="span">{plainMessage(t.message, timeZone)}</Text>
        {t.errorCode || t.requestId ? (
          // For support: kept out of the sentence, one click away.
          <details>
            <summary>
              <Text as="span" tone="subdued" variant="bodySm">
                Technical details
              </Text>
            </summary>
            <Text as="span" tone="subdued" variant="bodySm">
              {dotted([
                t.errorCode ? `code ${t.errorCode}` : null,
                t.requestId ? `request ${t.requestId}` : null,
              ])}
            </Text>
          </details>
        ) : null}
      </InlineStack>
    </li>
  );
}
