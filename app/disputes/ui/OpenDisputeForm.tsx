/**
 * The open-a-dispute form: which items went wrong and why, what the merchant asks for, the
 * message to support and its files, sent once.
 */
import { Form, useNavigation } from "@remix-run/react";
import {
  Banner,
  BlockStack,
  Button,
  Card,
  ChoiceList,
  InlineStack,
  Select,
  Text,
  TextField,
  Thumbnail,
} from "@shopify/polaris";
import { ImageIcon } from "@shopify/polaris-icons";
import { useState } from "react";
import { FormStatus, fieldError, type ActionData } from "../../components/FormStatus";
import { useSubmitOnce } from "../../components/SubmitOnce";
import { AttachmentFields, MessageField } from "./DisputeFields";
import type { OpenOptions } from "./types";

type Line = OpenOptions["lines"][number];

/** What is wrong with a typed quantity, before sending (the server checks again). */
function quantityError(typed: string | undefined, available: number): string | undefined {
  const t = (typed ?? "").trim();
  if (t === "" || t === "0") return undefined;
  const n = Number(t);
  if (!Number.isInteger(n) || n < 0) return "A whole number, 0 or more";
  if (n > available) return `More than the ${available} ordered`;
  return undefined;
}

/** One of the order's lines: its picture, name and price, and how many are disputed. */
function LineQuantity({
  l,
  typed,
  onChange,
}: {
  l: Line;
  typed: string | undefined;
  onChange: (v: string) => void;
}) {
  return (
    <InlineStack gap="300" blockAlign="center" wrap={false}>
      <Thumbnail source={l.image ?? ImageIcon} alt="" size="small" />
      <div style={{ flex: 1, minWidth: 0 }}>
        <BlockStack gap="050">
          <Text as="span" breakWord>
            {l.name}
          </Text>
          <Text as="span" tone="subdued" variant="bodySm">
            {l.canChoose
              ? `${l.price} USD each · up to ${l.available}`
              : "An open dispute already covers it"}
          </Text>
        </BlockStack>
      </div>
      <div style={{ width: 96 }}>
        <TextField
          label={`Quantity of ${l.name}`}
          labelHidden
          type="number"
          name={`qty:${l.lineItemId}`}
          min={0}
          value={typed ?? "0"}
          onChange={onChange}
          disabled={!l.canChoose}
          autoComplete="off"
          error={quantityError(typed, l.available)}
        />
      </div>
    </InlineStack>
  );
}

/** The items with their quantities, and the reason. */
function LinesCard({ options, result }: { options: OpenOptions; result: ActionData }) {
  const [quantities, setQuantities] = useState<Record<string, string>>({});
  const [reasonId, setReasonId] = useState("");
  const linesError = fieldError(result, "open", "lines");
  return (
    <Card>
      <BlockStack gap="300">
        <Text as="h2" variant="headingMd">
          What went wrong with which items
        </Text>
        {linesError ? <Banner tone="critical">{linesError}</Banner> : null}
        {options.lines.map((l) => (
          <LineQuantity
            key={l.lineItemId}
            l={l}
            typed={quantities[l.lineItemId]}
            onChange={(v) => setQuantities((q) => ({ ...q, [l.lineItemId]: v }))}
          />
        ))}
        <Select
          label="Reason"
          name="reasonId"
          options={[
            { label: "Choose a reason", value: "" },
            ...options.reasons.map((r) => ({ label: r.name, value: r.id })),
          ]}
          value={reasonId}
          onChange={setReasonId}
          error={fieldError(result, "open", "reasonId")}
        />
      </BlockStack>
    </Card>
  );
}

/** A refund or a reissue (and where the refund goes), the message and the files. */
function AskCard({
  options,
  result,
  expect,
  setExpect,
  refundTo,
  setRefundTo,
}: {
  options: OpenOptions;
  result: ActionData;
  expect: string[];
  setExpect: (v: string[]) => void;
  refundTo: string[];
  setRefundTo: (v: string[]) => void;
}) {
  const [text, setText] = useState("");
  return (
    <Card>
      <BlockStack gap="300">
        <ChoiceList
          title="What you ask for"
          choices={[
            { label: "A refund", value: "1" },
            { label: "A reissue (the items sent again)", value: "2" },
          ].filter((c) => options.expectOptions.includes(c.value))}
          selected={expect}
          onChange={setExpect}
          error={fieldError(result, "open", "expectType")}
        />
        {expect[0] === "1" ? (
          <ChoiceList
            title="Refund to"
            choices={[
              { label: "Your balance at the service", value: "1" },
              { label: "The way you paid", value: "2" },
            ]}
            selected={refundTo}
            onChange={setRefundTo}
            error={fieldError(result, "open", "refundType")}
          />
        ) : null}
        <MessageField
          label="Describe the problem"
          value={text}
          onChange={setText}
          helpText="Support reads this first. Emoji are removed by the service."
          error={fieldError(result, "open", "text")}
        />
        <AttachmentFields result={result} intent="open" />
      </BlockStack>
    </Card>
  );
}

/** The whole form, with "Cancel" back to the order and "Open dispute". */
export function OpenDisputeForm({
  options,
  result,
  cancelUrl,
}: {
  options: OpenOptions;
  result: ActionData;
  cancelUrl: string;
}) {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const once = useSubmitOnce(navigation.state === "submitting");
  const [expect, setExpect] = useState<string[]>(["1"]);
  const [refundTo, setRefundTo] = useState<string[]>(["1"]);
  return (
    <Form method="post" encType="multipart/form-data" onSubmit={once.onSubmit}>
      <input type="hidden" name="formKey" value={once.key} />
      <input type="hidden" name="expectType" value={expect[0] ?? ""} />
      <input type="hidden" name="refundType" value={refundTo[0] ?? ""} />
      <BlockStack gap="400">
        <FormStatus data={result} summary />
        <LinesCard options={options} result={result} />
        <AskCard
          options={options}
          result={result}
          expect={expect}
          setExpect={setExpect}
          refundTo={refundTo}
          setRefundTo={setRefundTo}
        />
        <InlineStack align="end" gap="200">
          <Button url={cancelUrl}>Cancel</Button>
          <Button submit variant="primary" loading={busy} disabled={busy}>
            Open dispute
          </Button>
        </InlineStack>
      </BlockStack>
    </Form>
  );
}
