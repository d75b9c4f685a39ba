/** A dispute page's messages card: what the merchant and support wrote, with their files. */
import { BlockStack, Box, Card, InlineStack, Link as PolarisLink, Text } from "@shopify/polaris";
import { shopDateTime } from "../../orders/shop-time";
import type { DisputeData } from "./types";

type Message = DisputeData["messages"][number];

/** A message's photos (thumbnails opening full size) and videos (links). */
function MessageFiles({ m }: { m: Message }) {
  return (
    <InlineStack gap="200" wrap>
      {m.images.map((u, i) => (
        <a key={u} href={u} target="_blank" rel="noreferrer" data-dispute-photo>
          <img
            src={u}
            alt={`Photo ${i + 1} ${m.fromSupport ? "from support" : "you sent"} (opens full size in a new tab)`}
            width={96}
            height={96}
            loading="lazy"
            style={{
              objectFit: "cover",
              borderRadius: 8,
              display: "block",
              background: "var(--p-color-bg-surface-secondary)",
            }}
          />
        </a>
      ))}
      {m.videos.map((u, i) => (
        <PolarisLink key={u} url={u} target="_blank">
          {`Video ${i + 1}`}
        </PolarisLink>
      ))}
    </InlineStack>
  );
}

/** One message: who wrote it and when (or "sending…"), its text and its files. */
function MessageItem({ m, timeZone }: { m: Message; timeZone: string | null }) {
  return (
    <li>
      <Box
        padding="300"
        borderRadius="200"
        background={m.fromSupport ? "bg-surface-secondary" : "bg-surface-info"}
      >
        <BlockStack gap="100">
          <InlineStack gap="200" blockAlign="center">
            <Text as="span" fontWeight="semibold">
              {m.fromSupport ? "Support" : "You"}
            </Text>
            <Text as="span" tone="subdued" variant="bodySm">
              {m.sending ? "sending…" : shopDateTime(m.at, timeZone)}
            </Text>
          </InlineStack>
          {m.text ? (
            <Text as="p" breakWord>
              {m.text}
            </Text>
          ) : null}
          {[...m.images, ...m.videos].length ? <MessageFiles m={m} /> : null}
        </BlockStack>
      </Box>
    </li>
  );
}

/** The dispute's messages, oldest first, each with its time in the shop's zone. */
export function MessagesCard({
  messages,
  timeZone,
}: {
  messages: Message[];
  timeZone: string | null;
}) {
  return (
    <Card>
      <BlockStack gap="300">
        <Text as="h2" variant="headingMd">
          Messages
        </Text>
        {messages.length === 0 ? (
          <Text as="p" tone="subdued">
            No messages yet.
          </Text>
        ) : (
          <ol
            aria-label="Messages"
            style={{ listStyle: "none", margin: 0, padding: 0, display: "grid", gap: 12 }}
          >
            {messages.map((m) => (
              <MessageItem key={m.id} m={m} timeZone={timeZone} />
            ))}
          </ol>
        )}
      </BlockStack>
    </Card>
  );
}
