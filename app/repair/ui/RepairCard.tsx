/**
 * The order page's Repair card (issue 14): correct the recipient (with the customs ids the
 * destination needs), choose another method from the service's quote, and see what happens
 * before confirming: a method change goes to the same service order; other corrections place it
 * again as a new service order, the old one left unpaid.
 */
import { Form, useNavigation } from "@remix-run/react";
import {
  Banner,
  BlockStack,
  Button,
  Card,
  FormLayout,
  InlineStack,
  List,
  Select,
  Text,
  TextField,
} from "@shopify/polaris";
import { useEffect, useState } from "react";
import { type ActionData, fieldError } from "../../components/FormStatus";
import { editingProps } from "../../components/useAutoRefresh";
import { useDraft } from "../../components/useDraft";

type Option = {
  logisticName: string;
  priceUsd: string;
  minDays: number | null;
  maxDays: number | null;
};
export interface RepairData {
  repairable: boolean;
  replaced: { svcOrderId: string | null; orderNumber: string; reason: string; at: string }[];
  address?: Record<string, string>;
  addressError?: string | null;
  customs?: Partial<Record<"taxId" | "houseNumber" | "consigneeID", string>>;
  methods?: { options: Option[]; error: string | null };
  current?: string | null;
  atService?: boolean;
  addressChanged?: boolean;
}

const FIELDS: [string, string, number?][] = [
  ["name", "Recipient name"],
  ["address1", "Address"],
  ["address2", "Address line 2"],
  ["city", "City"],
  ["province", "Province or state"],
  ["zip", "Postal code"],
  ["countryCode", "Country code"],
  ["phone", "Phone"],
  ["email", "Email"],
];

export function RepairCard({ data, result }: { data: RepairData; result: ActionData }) {
  const shown = data.address ?? {};
  // What the merchant types survives the page's refreshes: the draft follows the saved address
  // only while it is untouched (useDraft), and the page does not refresh while it is edited.
  const draft = useDraft<Record<string, string>>(shown);
  const { values, set: setValues } = draft;
  const [method, setMethod] = useState("");
  const [confirming, setConfirming] = useState(false);
  const busy = useNavigation().state !== "idle";
  useEffect(() => {
    if (result?.ok && result.intent?.startsWith("repair")) {
      setConfirming(false);
      setMethod("");
      draft.reset();
    }
    // Only a new result resets the form (draft.reset is stable).
  }, [result]);
  const err = (f: string) => fieldError(result, "repair", f);
  const changed = Object.keys(values).filter((k) => (values[k] ?? "") !== (shown[k] ?? ""));
  const methodChanged = method !== "" && method !== data.current;
  const placeAgain = changed.length > 0 || !data.atService;
  const days = (o: Option) => (o.minDays == null ? "" : `, ${o.minDays}–${o.maxDays} days`);
  if (!data.repairable) {
    return data.replaced.length ? <Replaced list={data.replaced} /> : null;
  }
  const editing = changed.length > 0 || methodChanged || confirming;
  return (
    <Card>
      <div {...editingProps(editing)} data-repair-card>
        <BlockStack gap="300">
          <Text as="h2" variant="headingMd">
            Repair
          </Text>
          {data.addressChanged ? (
            <Banner tone="warning" title="The address changed in Shopify">
              <BlockStack gap="200">
                <Text as="p">The service still has the old address.</Text>
                <Form method="post">
                  <input type="hidden" name="intent" value="repair-shop-address" />
                  <Button submit disabled={busy}>
                    Place again with the Shopify address
                  </Button>
                </Form>
              </BlockStack>
            </Banner>
          ) : null}
          {data.addressError ? <Banner tone="info">{data.addressError}</Banner> : null}
          <Form method="post">
            <input type="hidden" name="intent" value="repair" />
            {Object.entries(shown).map(([k, v]) => (
              <input key={k} type="hidden" name={`orig_${k}`} value={v} />
            ))}
            <FormLayout>
              {fieldError(result, "repair", "form") ? (
                <Banner tone="critical">{fieldError(result, "repair", "form")}</Banner>
              ) : null}
              {[FIELDS.slice(0, 2), FIELDS.slice(2, 5), FIELDS.slice(5)].map((group) => (
                <FormLayout.Group condensed key={group[0]![0]}>
                  {group.map(([k, label]) => (
                    <TextField
                      key={k}
                      label={label}
                      name={k}
                      autoComplete="off"
                      value={values[k] ?? ""}
                      onChange={(v) => setValues((o) => ({ ...o, [k]: v }))}
                      error={err(k)}
                    />
                  ))}
                </FormLayout.Group>
              ))}
              {Object.entries(data.customs ?? {}).map(([k, label]) => (
                <TextField
                  key={k}
                  label={`${k === "taxId" ? "Tax id" : k === "houseNumber" ? "House number" : "Customs code"} (${label})`}
                  name={k}
                  autoComplete="off"
                  value={values[k] ?? ""}
                  onChange={(v) => setValues((o) => ({ ...o, [k]: v }))}
                  helpText="Required by the destination's customs"
                  error={err(k)}
                />
              ))}
              <Select
                label="Shipping method"
                name="logisticName"
                options={[
                  {
                    label: data.current ? `Keep ${data.current}` : "Chosen by the shipping rules",
                    value: "",
                  },
                  ...(data.methods?.options ?? []).map((o) => ({
                    label: `${o.logisticName} (${o.priceUsd} USD${days(o)})`,
                    value: o.logisticName,
                  })),
                ]}
                value={method}
                onChange={setMethod}
                helpText={data.methods?.error ?? "From the service's freight quote for this order"}
              />
              {confirming ? (
                <Banner tone="warning" title="Confirm the repair">
                  <BlockStack gap="200">
                    <Text as="p">
                      {placeAgain
                        ? data.atService
                          ? "The order is placed again as a new service order with these details; the current service order is left unpaid and marked replaced."
                          : "The order is placed with these details."
                        : `The shipping method of the service order changes to ${method}.`}
                    </Text>
                    <InlineStack gap="200">
                      <Button submit variant="primary" disabled={busy}>
                        Confirm
                      </Button>
                      <Button onClick={() => setConfirming(false)}>Back</Button>
                    </InlineStack>
                  </BlockStack>
                </Banner>
              ) : (
                <Button
                  onClick={() => setConfirming(true)}
                  disabled={busy || (changed.length === 0 && !methodChanged)}
                >
                  Repair…
                </Button>
              )}
            </FormLayout>
          </Form>
          {data.replaced.length ? <Replaced list={data.replaced} /> : null}
        </BlockStack>
      </div>
    </Card>
  );
}

function Replaced({ list }: { list: RepairData["replaced"] }) {
  return (
    <BlockStack gap="100">
      <Text as="h3" variant="headingSm">
        Replaced service orders (never paid)
      </Text>
      <List>
        {list.map((r) => (
          <List.Item key={r.orderNumber}>
            {r.svcOrderId ?? "—"} ({r.orderNumber}): {r.reason}
          </List.Item>
        ))}
      </List>
    </BlockStack>
  );
}
