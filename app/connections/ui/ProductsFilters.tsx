/** The products page's search card: the shop's products by text, what to show, margin filter, quotes. */
import { Form } from "@remix-run/react";
import { Box, Button, Card, InlineStack, Select, Text, TextField } from "@shopify/polaris";
import { useState } from "react";
import { PostOnce } from "../../components/SubmitOnce";
import type { ProductsData } from "./types";

export function ProductsFilters({ data, busy }: { data: ProductsData; busy: boolean }) {
  const [q, setQ] = useState(data.query.q ?? "");
  const [show, setShow] = useState<string>(data.query.show ?? "all");
  const [margin, setMargin] = useState(data.marginTyped);
  return (
    <Card>
      <Form method="get">
        <InlineStack gap="200" blockAlign="end">
          <div style={{ flex: "2 1 200px" }}>
            <TextField
              label="Search the shop's products"
              name="q"
              value={q}
              onChange={setQ}
              autoComplete="off"
            />
          </div>
          <div style={{ flex: "1 1 160px" }}>
            <Select
              label="Show"
              name="show"
              options={[
                { value: "all", label: "All variants" },
                { value: "unconnected", label: "Not connected" },
                { value: "attention", label: "Out of stock, flagged or low margin" },
              ]}
              value={show}
              onChange={setShow}
            />
          </div>
          <div style={{ flex: "1 1 120px" }}>
            <TextField
              label="Margin under (%)"
              name="margin"
              type="number"
              value={margin}
              onChange={setMargin}
              autoComplete="off"
              min={0}
              max={100}
              error={data.marginError ?? undefined}
              disabled={show !== "attention"}
            />
          </div>
          <Button submit>Search</Button>
        </InlineStack>
      </Form>
      {data.pageVids.length ? (
        <Box paddingBlockStart="300">
          <PostOnce>
            <input type="hidden" name="intent" value="quote-shipping" />
            <input type="hidden" name="vids" value={data.pageVids.join(",")} />
            <InlineStack gap="200" blockAlign="center">
              <Button submit disabled={busy || !data.connected}>
                {`Quote shipping to ${data.mainMarket}`}
              </Button>
              <Text as="span" tone="subdued" variant="bodySm">
                For the connected variants on this page (10 a click); quotes are kept 6 hours.
                Change the market in Settings → Pricing and stock.
              </Text>
            </InlineStack>
          </PostOnce>
        </Box>
      ) : null}
    </Card>
  );
}
