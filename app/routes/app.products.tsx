import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import {
  Form,
  Link,
  useActionData,
  useLoaderData,
  useNavigation,
  useRevalidator,
  useSearchParams,
} from "@remix-run/react";
import {
  Badge,
  Banner,
  BlockStack,
  Button,
  Card,
  IndexTable,
  InlineStack,
  Layout,
  Page,
  ProgressBar,
  Text,
  TextField,
  Thumbnail,
} from "@shopify/polaris";
import { useEffect, useState } from "react";
import { requireAdmin } from "../admin/context.server";
import { productsAction, productsPageData } from "../admin/products-page.server";
import { type ActionData, FormStatus } from "../components/FormStatus";
import { prisma } from "../db.server";
import { shopGatewayForRequest } from "../shop/index.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop, admin, session } = await requireAdmin(request);
  const gateway = shopGatewayForRequest(admin, session);
  return productsPageData(prisma, shop, gateway, new URL(request.url).searchParams);
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
  const [q, setQ] = useState(data.query.q ?? "");
  const running = data.bulk && (data.bulk.state === "available" || data.bulk.state === "running");
  const revalidator = useRevalidator();
  // The job's progress lives in the database: while it runs, read it again every 1.5 s.
  useEffect(() => {
    if (!running) return;
    const t = setInterval(() => {
      if (revalidator.state === "idle") revalidator.revalidate();
    }, 1500);
    return () => clearInterval(t);
  }, [running, revalidator]);
  const pickVariant = data.products
    .flatMap((p) => p.variants.map((v) => ({ ...v, product: p })))
    .find((v) => v.id === data.picker?.variantId);
  return (
    <Page title="Products" subtitle={`${data.connectedTotal} variants connected to the catalog`}>
      <Layout>
        <Layout.Section>
          <BlockStack gap="400">
            <FormStatus data={result} />
            {!data.connected ? (
              <Banner tone="warning">
                Connect a service account in <Link to="/app/settings">Settings</Link> before
                connecting products.
              </Banner>
            ) : null}
            <BulkCard bulk={data.bulk} busy={busy} disabled={!data.connected} />
            {data.picker ? <PickerCard picker={data.picker} variant={pickVariant} /> : null}
            <Card>
              <Form method="get">
                <InlineStack gap="200" blockAlign="end">
                  <div style={{ flex: 1 }}>
                    <TextField
                      label="Search the shop's products"
                      name="q"
                      value={q}
                      onChange={setQ}
                      autoComplete="off"
                    />
                  </div>
                  <Button submit>Search</Button>
                </InlineStack>
              </Form>
            </Card>
            <Card padding="0">
              <IndexTable
                resourceName={{ singular: "variant", plural: "variants" }}
                itemCount={data.products.reduce((n, p) => n + p.variants.length, 0)}
                selectable={false}
                headings={[
                  { title: "Product" },
                  { title: "Variant" },
                  { title: "SKU" },
                  { title: "Catalog variant" },
                  { title: "" },
                ]}
              >
                {data.products.flatMap((p) =>
                  p.variants.map((v, i) => (
                    <IndexTable.Row id={v.id} key={v.id} position={i}>
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
                        {v.connection ? (
                          <Badge tone="success">{v.connection.svcVid}</Badge>
                        ) : (
                          <Badge>Not connected</Badge>
                        )}
                      </IndexTable.Cell>
                      <IndexTable.Cell>
                        {v.connection ? (
                          <Form method="post">
                            <input type="hidden" name="intent" value="disconnect" />
                            <input type="hidden" name="variantId" value={v.id} />
                            <Button submit variant="plain" tone="critical" disabled={busy}>
                              Disconnect
                            </Button>
                          </Form>
                        ) : (
                          <Button
                            variant="plain"
                            disabled={!data.connected}
                            onClick={() => {
                              const next = new URLSearchParams(params);
                              next.set("pick", v.id);
                              next.delete("pid");
                              next.set("catalogQ", p.title.split(" ").slice(-1)[0] ?? "");
                              setParams(next);
                            }}
                          >
                            Choose…
                          </Button>
                        )}
                      </IndexTable.Cell>
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
            <Form method="post">
              <input type="hidden" name="intent" value="import-connections" />
              <Button submit disabled={busy || disabled}>
                Read the service&apos;s connections
              </Button>
            </Form>
            <Form method="post">
              <input type="hidden" name="intent" value="auto-match" />
              <Button submit variant="primary" disabled={busy || disabled || Boolean(running)}>
                Auto-match by SKU
              </Button>
            </Form>
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

type Picker = NonNullable<Data["picker"]>;

function PickerCard({
  picker,
  variant,
}: {
  picker: Picker;
  variant:
    | { id: string; title: string; sku: string | null; product: { id: string; title: string } }
    | undefined;
}) {
  const [params, setParams] = useSearchParams();
  const [catalogQ, setCatalogQ] = useState(picker.catalogQ);
  const busy = useNavigation().state !== "idle";
  const close = () => {
    const next = new URLSearchParams(params);
    for (const k of ["pick", "pid", "catalogQ"]) next.delete(k);
    setParams(next);
  };
  return (
    <Card>
      <BlockStack gap="300">
        <InlineStack align="space-between">
          <Text as="h2" variant="headingMd">
            Choose a catalog variant for{" "}
            {variant
              ? `${variant.product.title} — ${variant.title}`
              : `variant ${picker.variantId}`}
          </Text>
          <Button variant="plain" onClick={close}>
            Close
          </Button>
        </InlineStack>
        {picker.error ? <Banner tone="critical">{picker.error}</Banner> : null}
        <Form method="get">
          {[...params.entries()]
            .filter(([k]) => !["catalogQ", "pid"].includes(k))
            .map(([k, v]) => (
              <input key={k} type="hidden" name={k} value={v} />
            ))}
          <InlineStack gap="200" blockAlign="end">
            <div style={{ flex: 1 }}>
              <TextField
                label="Search the catalog"
                name="catalogQ"
                value={catalogQ}
                onChange={setCatalogQ}
                autoComplete="off"
              />
            </div>
            <Button submit>Search</Button>
          </InlineStack>
        </Form>
        {picker.pid ? (
          <BlockStack gap="200">
            {picker.variants.map((cv) => (
              <InlineStack key={cv.vid} gap="300" blockAlign="center">
                {cv.image ? <Thumbnail source={cv.image} alt="" size="small" /> : null}
                <Text as="span">{cv.name}</Text>
                <Text as="span" tone="subdued">
                  {cv.sku} · {cv.price}
                </Text>
                <Form method="post">
                  <input type="hidden" name="intent" value="connect" />
                  <input type="hidden" name="productId" value={variant?.product.id ?? ""} />
                  <input type="hidden" name="variantId" value={picker.variantId} />
                  <input type="hidden" name="sku" value={variant?.sku ?? ""} />
                  <input type="hidden" name="vid" value={cv.vid} />
                  <Button submit size="slim" disabled={busy || !variant}>
                    Connect
                  </Button>
                </Form>
              </InlineStack>
            ))}
          </BlockStack>
        ) : (
          <BlockStack gap="200">
            {picker.results.length === 0 && picker.catalogQ ? (
              <Text as="p" tone="subdued">
                No catalog product matches.
              </Text>
            ) : null}
            {picker.results.map((r) => (
              <InlineStack key={r.pid} gap="300" blockAlign="center">
                {r.image ? <Thumbnail source={r.image} alt="" size="small" /> : null}
                <Text as="span">{r.name}</Text>
                <Text as="span" tone="subdued">
                  {r.sku} · {r.price}
                </Text>
                <Button
                  size="slim"
                  onClick={() => {
                    const next = new URLSearchParams(params);
                    next.set("pid", r.pid);
                    setParams(next);
                  }}
                >
                  Variants
                </Button>
              </InlineStack>
            ))}
          </BlockStack>
        )}
      </BlockStack>
    </Card>
  );
}
