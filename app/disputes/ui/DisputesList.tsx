/** The disputes list's search and status filter, and what it says when nothing is listed. */
import { useSearchParams } from "@remix-run/react";
import { BlockStack, Box, InlineStack, Select, Text } from "@shopify/polaris";
import { SearchBar } from "../../components/SearchBar";
import type { DisputesData } from "./types";

/** Search by dispute, order, reason or status; pick one status (a new filter starts at page 1). */
export function DisputeFilters({
  filter,
  statuses,
  clearUrl,
}: {
  filter: DisputesData["filter"];
  statuses: string[];
  clearUrl: string;
}) {
  const [params, setParams] = useSearchParams();
  return (
    <Box padding="300">
      <InlineStack gap="200" blockAlign="end" wrap>
        <div style={{ flex: "1 1 320px" }}>
          <SearchBar
            label="Search disputes"
            q={filter.q}
            placeholder="Dispute id, order number, service order, reason, status"
            keep={{
              view: filter.view === "all" ? null : filter.view,
              status: filter.status || null,
            }}
            clearUrl={clearUrl}
          />
        </div>
        <Select
          label="Status"
          options={[
            { label: "All statuses", value: "" },
            ...statuses.map((s) => ({ label: s, value: s })),
          ]}
          value={filter.status}
          onChange={(v) => {
            const next = new URLSearchParams(params);
            next.delete("page");
            if (v) next.set("status", v);
            else next.delete("status");
            setParams(next);
          }}
        />
      </InlineStack>
    </Box>
  );
}

/** No dispute in the view, or none matching the search. */
export function NoDisputes({ searched }: { searched: boolean }) {
  return (
    <Box padding="600">
      <BlockStack gap="200" inlineAlign="center">
        <Text as="h2" variant="headingMd">
          {searched ? "No disputes match" : "No disputes here"}
        </Text>
        <Text as="p" tone="subdued" alignment="center">
          {searched
            ? "Try another search."
            : "Open one from an order's page when a parcel arrives damaged, wrong or not at all. Disputes opened on the service's site appear here too."}
        </Text>
      </BlockStack>
    </Box>
  );
}
