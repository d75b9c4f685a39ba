/** The orders list's card of the latest bulk run: its progress, then its results per order. */
import { Link } from "@remix-run/react";
import { BlockStack, Button, Card, InlineStack, ProgressBar, Text } from "@shopify/polaris";
import { useState } from "react";
import type { BulkRun } from "./types";

/** The run's progress bar and its results (refused orders first), which the merchant can hide. */
export function BulkRunCard({ run }: { run: BulkRun }) {
  const [open, setOpen] = useState(true);
  const pct = run.total ? Math.round((run.done / run.total) * 100) : 100;
  // Refused orders first: they are what the merchant has to look at.
  const results = [...run.results].sort((a, b) => Number(a.ok) - Number(b.ok));
  return (
    <Card>
      <BlockStack gap="200">
        <InlineStack align="space-between" blockAlign="center">
          <Text as="h2" variant="headingSm">
            {run.finished
              ? `${run.label}: ${run.done - run.failed} done, ${run.failed} refused`
              : `${run.label}: ${run.done} of ${run.total} done…`}
          </Text>
          <Button variant="plain" onClick={() => setOpen(!open)}>
            {open ? "Hide results" : "Show results"}
          </Button>
        </InlineStack>
        <ProgressBar progress={pct} size="small" ariaLabelledBy={undefined} />
        {open && results.length > 0 ? (
          <div style={{ maxHeight: 240, overflowY: "auto" }}>
            <ul aria-label="Results per order" style={{ margin: 0, paddingLeft: 18 }}>
              {results.map((r) => (
                <li key={r.orderId} data-bulk-result={r.name}>
                  <Text as="span" tone={r.ok ? undefined : "critical"}>
                    <Link to={`/app/orders/${r.orderId}`}>{r.name}</Link>
                    {`: ${r.message}`}
                  </Text>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </BlockStack>
    </Card>
  );
}
