/**
 * The picker's open catalog product: its variants, each to connect to the chosen shop variant
 * (or add as a backup supplier), and every unconnected variant of the shop product connected
 * at once when their options pair them up.
 */
import { Form } from "@remix-run/react";
import { Badge, Banner, BlockStack, Button, InlineStack, Text, Thumbnail } from "@shopify/polaris";
import type { useSubmitOnce } from "../../components/SubmitOnce";
import { pairByOptions } from "../../catalog/option-key";
import type { Picker, PickVariant } from "./types";

/** Sets (or, with null, removes) one parameter of the page's address. */
export type SetParam = (k: string, v: string | null) => void;
type Once = ReturnType<typeof useSubmitOnce>;
type CatalogVariant = Picker["variants"][number];

/** A catalog product's variants: connect one (or all, paired by options), or add a backup. */
export function PickerVariants({
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
  once: Once;
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
        <ConnectAllForm picker={picker} variant={variant} pairs={pairs} busy={busy} once={once} />
      ) : null}
      {picker.variants.map((cv) => (
        <CatalogVariantLine
          key={cv.vid}
          cv={cv}
          picker={picker}
          variant={variant}
          backup={backup}
          busy={busy}
          once={once}
        />
      ))}
    </BlockStack>
  );
}

/** "Connect all N": the shop product's variants that pair with catalog variants by options. */
function ConnectAllForm({
  picker,
  variant,
  pairs,
  busy,
  once,
}: {
  picker: Picker;
  variant: PickVariant | undefined;
  pairs: { shop: PickVariant["product"]["variants"][number]; catalog: CatalogVariant | null }[];
  busy: boolean;
  once: Once;
}) {
  return (
    <Form method="post" onSubmit={once.onSubmit}>
      <input type="hidden" name="intent" value="connect-all" />
      <input type="hidden" name="formKey" value={once.key} />
      <input type="hidden" name="productId" value={variant?.product.id ?? ""} />
      <input type="hidden" name="pid" value={picker.pid ?? ""} />
      <input
        type="hidden"
        name="pairs"
        value={pairs.map((p) => `${p.shop.id}\t${p.catalog!.vid}\t${p.shop.sku ?? ""}`).join("\n")}
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
  );
}

/** One catalog variant, with its Connect (or Add as backup) button, or Connected. */
function CatalogVariantLine({
  cv,
  picker,
  variant,
  backup,
  busy,
  once,
}: {
  cv: CatalogVariant;
  picker: Picker;
  variant: PickVariant | undefined;
  backup: boolean;
  busy: boolean;
  once: Once;
}) {
  const connectedHere = variant?.connection?.svcVid === cv.vid;
  const takenHere = connectedHere || (!backup && Boolean(variant?.connection));
  return (
    <InlineStack gap="300" blockAlign="center">
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
}
