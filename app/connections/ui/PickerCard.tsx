/**
 * The products page's picker: browse the supplier's catalog, open a product, connect a variant
 * (or all of them, paired by options) or add a backup supplier.
 */
import { Form, useNavigation, useSearchParams } from "@remix-run/react";
import {
  Banner,
  BlockStack,
  Button,
  Card,
  InlineStack,
  Pagination,
  Select,
  Text,
  TextField,
  Thumbnail,
} from "@shopify/polaris";
import { useState } from "react";
import { useSubmitOnce } from "../../components/SubmitOnce";
import { PickerVariants, type SetParam } from "./PickerVariants";
import type { Picker, PickVariant } from "./types";

/** The address parameters of an open picker. */
export const PICKER_PARAMS = ["pick", "pid", "catalogQ", "catalogPage", "backup", "cat"];

export function PickerCard({
  picker,
  variant,
}: {
  picker: Picker;
  variant: PickVariant | undefined;
}) {
  const [params, setParams] = useSearchParams();
  const [catalogQ, setCatalogQ] = useState(picker.catalogQ);
  const [cat, setCat] = useState(picker.cat);
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const once = useSubmitOnce(navigation.state === "submitting");
  const backup = params.get("backup") === "1";
  const close = () => {
    const next = new URLSearchParams(params);
    for (const k of PICKER_PARAMS) next.delete(k);
    setParams(next);
  };
  const set = (k: string, v: string | null) => {
    const next = new URLSearchParams(params);
    if (v === null) next.delete(k);
    else next.set(k, v);
    setParams(next);
  };
  return (
    <Card>
      <BlockStack gap="300">
        <InlineStack align="space-between">
          <Text as="h2" variant="headingMd">
            {backup ? "Add a backup supplier for " : "Choose a catalog variant for "}
            {variant
              ? `${variant.product.title} — ${variant.title}`
              : "the chosen variant (not on this page of the list)"}
          </Text>
          <Button variant="plain" onClick={close}>
            Close
          </Button>
        </InlineStack>
        {backup ? (
          <Text as="p" tone="subdued">
            When the first supplier runs out, an order goes to the first backup with stock; the
            shop&apos;s stock counts them all.
          </Text>
        ) : null}
        {picker.error ? <Banner tone="critical">{picker.error}</Banner> : null}
        <Form method="get">
          {[...params.entries()]
            .filter(([k]) => !["catalogQ", "pid", "catalogPage", "cat"].includes(k))
            .map(([k, v]) => (
              <input key={k} type="hidden" name={k} value={v} />
            ))}
          <InlineStack gap="200" blockAlign="end" wrap>
            <div style={{ flex: "2 1 200px" }}>
              <TextField
                label="Search the catalog"
                name="catalogQ"
                value={catalogQ}
                onChange={setCatalogQ}
                autoComplete="off"
              />
            </div>
            <div style={{ flex: "1 1 180px" }}>
              <Select
                label="Category"
                name="cat"
                options={[{ value: "", label: "All categories" }, ...picker.categories]}
                value={cat}
                onChange={setCat}
              />
            </div>
            <Button submit>Search</Button>
          </InlineStack>
        </Form>
        {picker.pid ? (
          <PickerVariants
            picker={picker}
            variant={variant}
            backup={backup}
            busy={busy}
            once={once}
            set={set}
          />
        ) : (
          <PickerResults picker={picker} set={set} />
        )}
      </BlockStack>
    </Card>
  );
}

/** The catalog's products found by the search or category, paged. */
function PickerResults({ picker, set }: { picker: Picker; set: SetParam }) {
  return (
    <BlockStack gap="200">
      {!picker.catalogQ && !picker.cat && !picker.error ? (
        <Text as="p" tone="subdued">
          Search the catalog by a product&apos;s name or SKU, or choose a category.
        </Text>
      ) : null}
      {picker.results.length === 0 && (picker.catalogQ || picker.cat) ? (
        <Text as="p" tone="subdued">
          No catalog product matches.
        </Text>
      ) : null}
      {picker.results.map((r) => (
        <InlineStack key={r.pid} gap="300" blockAlign="center">
          {r.image ? <Thumbnail source={r.image} alt="" size="small" /> : null}
          <BlockStack gap="050">
            <Text as="span">{r.name}</Text>
            <Text as="span" tone="subdued" variant="bodySm">
              {r.sku} · ${r.price}
              {r.supplier ? ` · ${r.supplier}` : ""}
              {r.stock !== null ? ` · ${r.stock} in stock` : ""}
            </Text>
          </BlockStack>
          <Button size="slim" onClick={() => set("pid", r.pid)}>
            Variants
          </Button>
        </InlineStack>
      ))}
      {picker.totalPages > 1 ? (
        <InlineStack align="center">
          <Pagination
            hasPrevious={picker.catalogPage > 1}
            onPrevious={() => set("catalogPage", String(picker.catalogPage - 1))}
            hasNext={picker.catalogPage < picker.totalPages}
            onNext={() => set("catalogPage", String(picker.catalogPage + 1))}
            label={`Page ${picker.catalogPage} of ${picker.totalPages}`}
          />
        </InlineStack>
      ) : null}
    </BlockStack>
  );
}
