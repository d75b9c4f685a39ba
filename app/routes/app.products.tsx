import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import {
  Form,
  Link,
  useActionData,
  useLoaderData,
  useNavigation,
  useSearchParams,
} from "@remix-run/react";
import {
  Badge,
  Banner,
  BlockStack,
  Box,
  Button,
  Card,
  IndexTable,
  InlineStack,
  Layout,
  Page,
  Pagination,
  ProgressBar,
  Select,
  Text,
  TextField,
  Thumbnail,
  useBreakpoints,
} from "@shopify/polaris";
import { useEffect, useState } from "react";
import { requireAdmin } from "../pages/context.server";
import { productsAction, productsPageData } from "../admin/products-page.server";
import { type ActionData, FormStatus } from "../components/FormStatus";
import { useAutoRefresh } from "../components/useAutoRefresh";
import { PostOnce, useSubmitOnce } from "../components/SubmitOnce";
import { pairByOptions } from "../catalog/option-key";
import { stockCountries } from "../catalog/facts.server";
import { syncChangeNames } from "../catalog/sync-log.server";
import { prisma } from "../db.server";
import { getSettings } from "../settings.server";
import { shopGatewayForRequest } from "../shop/index.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop, admin, session } = await requireAdmin(request);
  const gateway = shopGatewayForRequest(admin, session);
  const [page, settings] = await Promise.all([
    productsPageData(prisma, shop, gateway, new URL(request.url).searchParams),
    getSettings(prisma, shop),
  ]);
  // The sync log names what changed, never by the variant's id.
  const names = await syncChangeNames(
    prisma,
    shop,
    page.changes.map((c) => c.variantId),
  );
  // The warehouses whose stock the Stock column (and the shop) counts, named on the page.
  return {
    ...page,
    changes: page.changes.map((c) => ({ ...c, variantName: names[c.variantId] ?? null })),
    stockCountries: stockCountries(settings),
  };
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop } = await requireAdmin(request);
  return productsAction(prisma, shop, await request.formData());
};

type Data = ReturnType<typeof useLoaderData<typeof loader>>;

export default function Products() {
  const data = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as ActionData;
  const busy = useNavigation().state !== "idle";
  const [params, setParams] = useSearchParams();
  const { smDown } = useBreakpoints();
  const [q, setQ] = useState(data.query.q ?? "");
  const [show, setShow] = useState<string>(data.query.show ?? "all");
  const [margin, setMargin] = useState(data.marginTyped);
  const running = data.bulk && (data.bulk.state === "available" || data.bulk.state === "running");
  // The job's progress lives in the database: while it runs, read it again every 1.5 s (not
  // while the merchant types in the picker or a search).
  useAutoRefresh({ every: 1500, enabled: Boolean(running) });
  const pickVariant = data.products
    .flatMap((p) => p.variants.map((v) => ({ ...v, product: p })))
    .find((v) => v.id === data.picker?.variantId);
  // A connection made in the picker closes it; its outcome stays on the page after that.
  const [connectedResult, setConnectedResult] = useState<ActionData>(undefined);
  useEffect(() => {
    if (!result?.ok || (result.intent !== "connect" && result.intent !== "connect-all")) return;
    setConnectedResult(result);
    if (!params.has("pick")) return;
    const next = new URLSearchParams(params);
    for (const k of PICKER_PARAMS) next.delete(k);
    setParams(next, { replace: true, preventScrollReset: true });
    // Only a new result closes it (not a change of the address).
  }, [result]);
  return (
    <Page title="Products" subtitle={`${data.connectedTotal} variants connected to the catalog`}>
      <Layout>
        <Layout.Section>
          <BlockStack gap="400">
            <FormStatus data={result ?? connectedResult} />
            {!data.connected ? (
              <Banner tone="warning">
                Connect a service account in <Link to="/app/settings">Settings</Link> before
                connecting products.
              </Banner>
            ) : null}
            <BulkCard bulk={data.bulk} busy={busy} disabled={!data.connected} />
            <SyncCard changes={data.changes} busy={busy} disabled={!data.connected} />
            {data.picker ? <PickerCard picker={data.picker} variant={pickVariant} /> : null}
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
                        For the connected variants on this page (10 a click); quotes are kept 6
                        hours. Change the market in Settings → Pricing and stock.
                      </Text>
                    </InlineStack>
                  </PostOnce>
                </Box>
              ) : null}
            </Card>
            <Text as="p" tone="subdued" variant="bodySm" data-stock-note>
              {`Stock counts the supplier's warehouses in ${data.stockCountries.join(", ")} only (the figures by warehouse beside a supplier's variant include the others), as set in `}
              <Link to="/app/settings#pricing">Settings → Warehouse countries that count</Link>.
            </Text>
            <Card padding="0">
              <IndexTable
                resourceName={{ singular: "variant", plural: "variants" }}
                itemCount={data.products.reduce((n, p) => n + p.variants.length, 0)}
                selectable={false}
                condensed={smDown}
                headings={[
                  { title: "Product" },
                  { title: "Variant" },
                  { title: "SKU" },
                  { title: "Supplier's variant" },
                  { title: "Cost (USD)", alignment: "end" },
                  { title: `Stock in ${data.stockCountries.join(", ")}`, alignment: "end" },
                  { title: `Shipping to ${data.mainMarket}`, alignment: "end" },
                  { title: "Margin", alignment: "end" },
                  { title: "" },
                ]}
              >
                {data.products.flatMap((p) =>
                  p.variants.map((v, i) => (
                    <IndexTable.Row id={v.id} key={v.id} position={i}>
                      {smDown ? (
                        <div style={{ padding: "12px 16px", width: "100%" }}>
                          <BlockStack gap="150">
                            <Text as="span" fontWeight="semibold">
                              {`${p.title} — ${v.title}`}
                            </Text>
                            <CatalogCell v={v} />
                            {v.facts ? (
                              <Text as="span" variant="bodySm">
                                {`Cost ${v.facts.costUsd ? `$${v.facts.costUsd}` : "—"} · Stock in ${data.stockCountries.join(", ")} ${v.facts.stock} · Margin ${v.facts.margin != null ? `${v.facts.margin}%` : "—"}${v.facts.shipping ? ` · Shipping $${v.facts.shipping.priceUsd}` : ""}`}
                              </Text>
                            ) : null}
                            <VariantActions p={p} v={v} busy={busy} connected={data.connected} />
                          </BlockStack>
                        </div>
                      ) : (
                        <>
                          <IndexTable.Cell>
                            {i === 0 ? (
                              <InlineStack gap="200" blockAlign="center">
                                {p.imageUrl ? (
                                  <Thumbnail source={p.imageUrl} alt="" size="small" />
                                ) : null}
                                <Text as="span" fontWeight="semibold">
                                  {p.title}
                                </Text>
                              </InlineStack>
                            ) : null}
                          </IndexTable.Cell>
                          <IndexTable.Cell>{v.title}</IndexTable.Cell>
                          <IndexTable.Cell>{v.sku || "—"}</IndexTable.Cell>
                          <IndexTable.Cell>
                            <CatalogCell v={v} />
                          </IndexTable.Cell>
                          <IndexTable.Cell>
                            <Text as="span" alignment="end" numeric>
                              {v.facts?.costUsd ? `$${v.facts.costUsd}` : "—"}
                            </Text>
                          </IndexTable.Cell>
                          <IndexTable.Cell>
                            <Text
                              as="span"
                              alignment="end"
                              numeric
                              tone={v.facts && v.facts.stock <= 0 ? "critical" : undefined}
                            >
                              {v.facts ? v.facts.stock : "—"}
                            </Text>
                          </IndexTable.Cell>
                          <IndexTable.Cell>
                            <ShippingText v={v} />
                          </IndexTable.Cell>
                          <IndexTable.Cell>
                            <Text
                              as="span"
                              alignment="end"
                              numeric
                              tone={
                                v.facts?.margin != null && Number(v.facts.margin) < 0
                                  ? "critical"
                                  : undefined
                              }
                            >
                              {v.facts?.margin != null ? `${v.facts.margin}%` : "—"}
                            </Text>
                          </IndexTable.Cell>
                          <IndexTable.Cell>
                            <VariantActions p={p} v={v} busy={busy} connected={data.connected} />
                          </IndexTable.Cell>
                        </>
                      )}
                    </IndexTable.Row>
                  )),
                )}
              </IndexTable>
            </Card>
            {data.nextCursor ? (
              <InlineStack align="center">
                <Button
                  onClick={() => {
                    const next = new URLSearchParams(params);
                    next.set("after", data.nextCursor!);
                    setParams(next);
                  }}
                >
                  Next page
                </Button>
              </InlineStack>
            ) : null}
          </BlockStack>
        </Layout.Section>
      </Layout>
    </Page>
  );
}

function BulkCard({
  bulk,
  busy,
  disabled,
}: {
  bulk: Data["bulk"];
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

type Row = Data["products"][number]["variants"][number];

/** The cheapest stored freight quote to the main market, or a dash. */
function ShippingText({ v }: { v: Row }) {
  const q = v.facts?.shipping;
  if (!q)
    return (
      <Text as="span" alignment="end" tone="subdued">
        —
      </Text>
    );
  return (
    <BlockStack gap="050" inlineAlign="end">
      <Text as="span" numeric>{`$${q.priceUsd}`}</Text>
      <Text as="span" variant="bodySm" tone="subdued">
        {q.days ? `${q.method} · ${q.days}` : q.method}
      </Text>
    </BlockStack>
  );
}

/** Choose a catalog variant, or for a connected one: add a backup supplier, disconnect. */
function VariantActions({
  p,
  v,
  busy,
  connected,
}: {
  p: Data["products"][number];
  v: Row;
  busy: boolean;
  connected: boolean;
}) {
  const [params, setParams] = useSearchParams();
  const pick = (backup: boolean) => {
    const next = new URLSearchParams(params);
    next.set("pick", v.id);
    if (backup) next.set("backup", "1");
    else next.delete("backup");
    next.delete("pid");
    // The search starts empty: the picker's heading names the variant, and the catalog's own
    // words rarely match a shop title (its last word alone found unrelated products).
    next.delete("catalogQ");
    next.delete("catalogPage");
    next.delete("cat");
    setParams(next);
  };
  if (!v.connection)
    return (
      <Button variant="plain" disabled={!connected} onClick={() => pick(false)}>
        Choose…
      </Button>
    );
  return (
    <InlineStack gap="200" wrap={false}>
      {v.facts?.flag === "cost_change" ? (
        <PostOnce>
          <input type="hidden" name="intent" value="keep-price" />
          <input type="hidden" name="variantId" value={v.id} />
          <Button
            submit
            variant="plain"
            disabled={busy}
            accessibilityLabel={`Keep the price of ${p.title} ${v.title}`}
          >
            Keep price
          </Button>
        </PostOnce>
      ) : null}
      <Button
        variant="plain"
        disabled={!connected}
        accessibilityLabel={`Add a backup supplier for ${p.title} ${v.title}`}
        onClick={() => pick(true)}
      >
        Backup…
      </Button>
      <PostOnce>
        <input type="hidden" name="intent" value="disconnect" />
        <input type="hidden" name="variantId" value={v.id} />
        <Button submit variant="plain" tone="critical" disabled={busy}>
          Disconnect
        </Button>
      </PostOnce>
    </InlineStack>
  );
}

const FLAG_TEXT: Record<string, string> = {
  removed: "Removed by the supplier",
  cost_change: "Cost changed",
};

/** The catalog variant a shop variant is connected to, with what the supplier says of it. */
function CatalogCell({ v }: { v: Row }) {
  if (!v.connection) return <Badge>Not connected</Badge>;
  const f = v.facts;
  if (!f)
    return (
      <BlockStack gap="050">
        <Badge tone="success">Connected</Badge>
        <Text as="span" tone="subdued" variant="bodySm">
          Facts arrive with the next sync
        </Text>
      </BlockStack>
    );
  return (
    <InlineStack gap="200" blockAlign="center" wrap={false}>
      {f.image ? <Thumbnail source={f.image} alt="" size="extraSmall" /> : null}
      <BlockStack gap="050">
        <Text as="span">
          {f.productName}
          {f.variantKey ? ` · ${f.variantKey}` : ""}
        </Text>
        <InlineStack gap="100" wrap>
          {f.supplier ? (
            <Text as="span" tone="subdued" variant="bodySm">
              {f.supplier}
            </Text>
          ) : null}
          {Object.values(f.stockByCountry).some((n) => n > 0) ? (
            <Text as="span" tone="subdued" variant="bodySm">
              {`By warehouse: ${Object.entries(f.stockByCountry)
                .filter(([, n]) => n > 0)
                .slice(0, 4)
                .map(([c, n]) => `${c} ${n}`)
                .join(", ")}`}
            </Text>
          ) : null}
          {v.connection.imported ? <Badge size="small">Imported</Badge> : null}
          {f.backups ? (
            <Badge
              size="small"
              tone="info"
            >{`${f.backups} backup${f.backups > 1 ? "s" : ""}`}</Badge>
          ) : null}
          {f.flag || f.removed ? (
            <Badge size="small" tone="critical">
              {FLAG_TEXT[f.flag ?? "removed"] ?? f.flag ?? "Removed"}
            </Badge>
          ) : null}
        </InlineStack>
      </BlockStack>
    </InlineStack>
  );
}

const CHANGE_TEXT: Record<string, string> = {
  stock: "Stock set",
  price: "Price set",
  removed: "Removed by the supplier: stock 0",
  cost_change: "Cost changed (price kept)",
};

/** The stock and price sync: run it now, and what it changed last. */
function SyncCard({
  changes,
  busy,
  disabled,
}: {
  changes: Data["changes"];
  busy: boolean;
  disabled: boolean;
}) {
  return (
    <Card>
      <BlockStack gap="300">
        <InlineStack align="space-between" blockAlign="center" gap="200">
          <BlockStack gap="100">
            <Text as="h2" variant="headingMd">
              Stock and prices
            </Text>
            <Text as="p" tone="subdued">
              Kept in step with the supplier as it reports changes, and in full every 6 hours: stock
              at your location, prices by your pricing rule when the cost moves.
            </Text>
          </BlockStack>
          <PostOnce>
            <input type="hidden" name="intent" value="sync-now" />
            <Button submit disabled={busy || disabled}>
              Sync now
            </Button>
          </PostOnce>
        </InlineStack>
        {changes.length ? (
          <BlockStack gap="100">
            {changes.map((c) => (
              <InlineStack key={c.id} gap="200" wrap>
                <Text as="span" variant="bodySm" tone="subdued">
                  {new Date(c.at).toLocaleString()}
                </Text>
                <Text as="span" variant="bodySm">
                  {CHANGE_TEXT[c.kind] ?? c.kind} · {c.variantName ?? "a connected variant"}
                  {c.before !== null || c.after !== null
                    ? `: ${c.before ?? "—"} → ${c.after ?? "—"}`
                    : ""}
                  {c.note ? ` (${c.note})` : ""}
                </Text>
              </InlineStack>
            ))}
          </BlockStack>
        ) : (
          <Text as="p" tone="subdued">
            No change yet.
          </Text>
        )}
      </BlockStack>
    </Card>
  );
}

/** The address parameters of an open picker. */
const PICKER_PARAMS = ["pick", "pid", "catalogQ", "catalogPage", "backup", "cat"];

type Picker = NonNullable<Data["picker"]>;
type PickVariant = Row & { product: Data["products"][number] };

function PickerCard({ picker, variant }: { picker: Picker; variant: PickVariant | undefined }) {
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
  // Every unconnected variant of the shop product, paired with a catalog variant by options.
  const pairs =
    picker.pid && variant && !backup
      ? pairByOptions(
          variant.product.variants.filter((x) => !x.connection),
          picker.variants,
        ).filter((p) => p.catalog)
      : [];
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
                <input type="hidden" name="pid" value={picker.pid} />
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
                      {pairs.length} variants of this product match catalog variants by their
                      options.
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
        ) : (
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
        )}
      </BlockStack>
    </Card>
  );
}
