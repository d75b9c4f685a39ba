/** The Catalog page's search: a keyword and a category, sent in the page's address. */
import { Form } from "@remix-run/react";
import { Button, Card, InlineStack, Select, TextField } from "@shopify/polaris";
import { useState } from "react";
import type { CatalogData } from "./types";

export function CatalogSearchCard({
  query,
  categories,
  connected,
}: {
  query: CatalogData["query"];
  categories: CatalogData["categories"];
  connected: boolean;
}) {
  const [q, setQ] = useState(query.q);
  const [cat, setCat] = useState(query.cat);
  return (
    <Card>
      <Form method="get">
        <InlineStack gap="200" blockAlign="end" wrap>
          <div style={{ flex: "2 1 220px" }}>
            <TextField
              label="Search the catalog"
              name="q"
              value={q}
              onChange={setQ}
              autoComplete="off"
              placeholder="Product name, SKU"
            />
          </div>
          <div style={{ flex: "1 1 200px" }}>
            <Select
              label="Category"
              name="cat"
              options={[{ value: "", label: "All categories" }, ...categories]}
              value={cat}
              onChange={setCat}
            />
          </div>
          <Button submit disabled={!connected}>
            Search
          </Button>
        </InlineStack>
      </Form>
    </Card>
  );
}
