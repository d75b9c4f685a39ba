/**
 * The order page's Repair card (issue 14): correct the recipient (with the customs ids the
 * destination needs), choose another method from the service's quote, and see what happens
 * before confirming: a method change goes to the same service order; other corrections place it
 * again as a new service order, the old one left unpaid. Its fields are ./RepairFields.tsx.
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
  Text,
} from "@shopify/polaris";
import { useEffect, useState } from "react";
import { type ActionData, fieldError } from "../../components/FormStatus";
import { editingProps } from "../../components/useAutoRefresh";
import { useDraft } from "../../components/useDraft";
import type { RepairData } from "./repair-data";
import { customsFields, MethodSelect, recipientFields } from "./RepairFields";

export type { RepairData };

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
  const setField = (k: string, v: string) => setValues((o) => ({ ...o, [k]: v }));
  const changed = Object.keys(values).filter((k) => (values[k] ?? "") !== (shown[k] ?? ""));
  const methodChanged = method !== "" && method !== data.current;
  if (!data.repairable) {
    return data.replaced.length ? <Replaced list={data.replaced} /> : null;
  }
  const editing = changed.length > 0 || methodChanged || confirming;
  const fields = { values, setField, error: err };
  return (
    <Card>
      <div {...editingProps(editing)} data-repair-card>
        <BlockStack gap="300">
          <Text as="h2" variant="headingMd">
            Repair
          </Text>
          {data.addressChanged ? <AddressChanged busy={busy} /> : null}
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
              {recipientFields(fields)}
              {customsFields({ ...fields, customs: data.customs })}
              <MethodSelect data={data} method={method} setMethod={setMethod} />
              {confirming ? (
                <ConfirmRepair
                  placeAgain={changed.length > 0 || !data.atService}
                  atService={data.atService}
                  method={method}
                  busy={busy}
                  back={() => setConfirming(false)}
                />
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

/** The shop's address moved after placing: place the order again with it, in one click. */
function AddressChanged({ busy }: { busy: boolean }) {
  return (
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
  );
}

/** What the repair will do, said before it is sent: Confirm submits the form, Back returns. */
function ConfirmRepair({
  placeAgain,
  atService,
  method,
  busy,
  back,
}: {
  placeAgain: boolean;
  atService: boolean | undefined;
  method: string;
  busy: boolean;
  back: () => void;
}) {
  return (
    <Banner tone="warning" title="Confirm the repair">
      <BlockStack gap="200">
        <Text as="p">
          {placeAgain
            ? atService
              ? "The order is placed again as a new service order with these details; the current service order is left unpaid and marked replaced."
              : "The order is placed with these details."
            : `The shipping method of the service order changes to ${method}.`}
        </Text>
        <InlineStack gap="200">
          <Button submit variant="primary" disabled={busy}>
            Confirm
          </Button>
          <Button onClick={back}>Back</Button>
        </InlineStack>
      </BlockStack>
    </Banner>
  );
}

/** The service orders this order replaced (never paid), with why. */
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
