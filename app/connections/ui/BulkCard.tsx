/** The products page's "match by SKU" card: start the bulk connect and follow its progress. */
import { Banner, BlockStack, Button, Card, InlineStack, ProgressBar, Text } from "@shopify/polaris";
import { PostOnce } from "../../components/SubmitOnce";
import type { ProductsData } from "./types";

export function BulkCard({
  bulk,
  busy,
  disabled,
}: {
  bulk: ProductsData["bulk"];
  busy: boolean;
  disabled: boolean;
}) {
  const running = bulk && (bulk.state === "available" || bulk.state === "running");
  const p = bulk?.progress;
  const pct = p && p.total > 0 ? Math.round((p.processed / p.total) * 100) : running ? 0 : 100;
  return (
    <Card>
      <BlockStack gap="300">
        <InlineStack align="space-between" blockAlign="center">
          <BlockStack gap="100">
            <Text as="h2" variant="headingMd">
              Match by SKU
            </Text>
            <Text as="p" tone="subdued">
              Connects every variant whose SKU is a catalog variant SKU. Runs in the background: you
              can leave this page. Connections you made in the service&apos;s console are read when
              you connect, every 6 hours, and on demand.
            </Text>
          </BlockStack>
          <InlineStack gap="200">
            <PostOnce>
              <input type="hidden" name="intent" value="import-connections" />
              <Button submit disabled={busy || disabled}>
                Read the service&apos;s connections
              </Button>
            </PostOnce>
            <PostOnce>
              <input type="hidden" name="intent" value="auto-match" />
              <Button submit variant="primary" disabled={busy || disabled || Boolean(running)}>
                Auto-match by SKU
              </Button>
            </PostOnce>
          </InlineStack>
        </InlineStack>
        {bulk ? (
          <BlockStack gap="200">
            <ProgressBar
              progress={pct}
              tone={bulk.state === "dead" ? "critical" : running ? "highlight" : "success"}
            />
            <div data-bulk-state={bulk.state}>
              <Text as="p">
                {running
                  ? p
                    ? `${p.phase === "counting" ? "Counting variants…" : "Matching…"} ${p.processed} of ${p.total}`
                    : "Starting…"
                  : bulk.state === "completed"
                    ? `Done: ${p?.connected ?? 0} connected, ${p?.alreadyConnected ?? 0} already connected, ${p?.noMatch ?? 0} without a catalog match, ${p?.noSku ?? 0} without SKU${p?.failed ? `, ${p.failed} failed` : ""}.`
                    : `Stopped: ${bulk.lastError ?? bulk.state}`}
              </Text>
            </div>
            {p?.errors.length ? (
              <Banner tone="warning">
                {p.errors.slice(0, 5).map((e) => (
                  <p key={e}>{e}</p>
                ))}
              </Banner>
            ) : null}
          </BlockStack>
        ) : null}
      </BlockStack>
    </Card>
  );
}
