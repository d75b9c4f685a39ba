/**
 * The products page's picker: browse the supplier's catalog, open a product, connect a variant
 * (or all of them, paired by options) or add a backup supplier.
 */
import { Form, useNavigation, useSearchParams } from "@remix-run/react";
import {
  Badge,
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
import { pairByOptions } from "../../catalog/option-key";
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

type SetParam = (k: string, v: string | null) => void;

/** A catalog product's variants: connect one (or all, paired by options), or add a backup. */
function PickerVariants({
  picker,
  variant,
  backup,
  busy,
  once,
  set,
}: {
  picker: Picker;
  variant: PickVariant | undefined;
  backup: boolean;
  busy: boolean;
  once: ReturnType<typeof useSubmitOnce>;
  set: SetParam;
}) {
  // Every unconnected variant of the shop product, paired with a catalog variant by options.
  const pairs =
    picker.pid && variant && !backup
      ? pairByOptions(
          variant.product.variants.filter((x) => !x.connection),
          picker.variants,
        ).filter((p) => p.catalog)
      : [];
  return (
    <BlockStack gap="200">
      <InlineStack>
        <Button variant="plain" onClick={() => set("pid", null)}>
          ‹ Back to the results
        </Button>
      </InlineStack>
      {pairs.length > 1 ? (
        <Form method="post" onSubmit={once.onSubmit}>
          <input type="hidden" name="intent" value="connect-all" />
          <input type="hidden" name="formKey" value={once.key} />
          <input type="hidden" name="productId" value={variant?.product.id ?? ""} />
          <input type="hidden" name="pid" value={picker.pid ?? ""} />
          <input
            type="hidden"
            name="pairs"
            value={pairs
              .map((p) => `${p.shop.id}\t${p.catalog!.vid}\t${p.shop.sku ?? ""}`)
              .join("\n")}
          />
          <Banner tone="info">
            <InlineStack align="space-between" blockAlign="center" gap="200">
              <Text as="p">
                {pairs.length} variants of this product match catalog variants by their options.
              </Text>
              <Button submit variant="primary" disabled={busy}>
                {`Connect all ${pairs.length}`}
              </Button>
            </InlineStack>
          </Banner>
        </Form>
      ) : null}
      {picker.variants.map((cv) => {
        const connectedHere = variant?.connection?.svcVid === cv.vid;
        const takenHere = connectedHere || (!backup && Boolean(variant?.connection));
        return (
          <InlineStack key={cv.vid} gap="300" blockAlign="center">
            {cv.image ? <Thumbnail source={cv.image} alt="" size="small" /> : null}
            <BlockStack gap="050">
              <Text as="span">{cv.name}</Text>
              <Text as="span" tone="subdued" variant="bodySm">
                {cv.sku} · ${cv.price} · {cv.stock} in stock
              </Text>
            </BlockStack>
            <Form method="post" onSubmit={once.onSubmit}>
              <input type="hidden" name="formKey" value={once.key} />
              {backup ? (
                <>
                  <input type="hidden" name="intent" value="add-backup" />
                  <input type="hidden" name="variantId" value={picker.variantId} />
                  <input type="hidden" name="pid" value={picker.pid ?? ""} />
                  <input type="hidden" name="vid" value={cv.vid} />
                  {connectedHere ? (
                    <Badge tone="success">Connected</Badge>
                  ) : (
                    <Button submit size="slim" disabled={busy || !variant}>
                      Add as backup
                    </Button>
                  )}
                </>
              ) : (
                <>
                  <input type="hidden" name="intent" value="connect" />
                  <input type="hidden" name="productId" value={variant?.product.id ?? ""} />
                  <input type="hidden" name="variantId" value={picker.variantId} />
                  <input type="hidden" name="sku" value={variant?.sku ?? ""} />
                  <input type="hidden" name="vid" value={cv.vid} />
                  {connectedHere ? (
                    <Badge tone="success">Connected</Badge>
                  ) : (
                    <Button submit size="slim" disabled={busy || !variant || takenHere}>
                      Connect
                    </Button>
                  )}
                </>
              )}
            </Form>
          </InlineStack>
        );
      })}
    </BlockStack>
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
