import { Banner } from "@shopify/polaris";
import { Toast } from "./Toast";

export type ActionData =
  | { ok: true; intent: string; message: string; warning?: string | null }
  | { ok: false; intent: string; errors: Record<string, string> }
  | undefined;

/**
 * The outcome of the last post: a success toast (and a banner for what still needs the
 * merchant), or the error that belongs to no field, as a banner that stays.
 */
export function FormStatus({
  data,
  intent,
  summary = false,
}: {
  data: ActionData;
  intent?: string;
  /** A form of several fields: a refusal also shows a banner that says nothing was saved. */
  summary?: boolean;
}) {
  if (!data || (intent && data.intent !== intent)) return null;
  if (data.ok) {
    return (
      <>
        <Toast message={data.message} token={data} />
        {data.warning ? <Banner tone="warning">{data.warning}</Banner> : null}
      </>
    );
  }
  if (data.errors.form) return <Banner tone="critical">{data.errors.form}</Banner>;
  // Errors by field: each sentence stands by its field; the summary says nothing was saved.
  const fields = Object.keys(data.errors).length;
  if (!summary || fields === 0) return null;
  return (
    <Banner tone="critical" title="Not saved">
      {`${fields === 1 ? "One field needs" : `${fields} fields need`} a change: see the message${fields === 1 ? "" : "s"} below. Nothing was changed.`}
    </Banner>
  );
}

/** The error of a field of the last post of this intent, if any. */
export function fieldError(data: ActionData, intent: string, field: string): string | undefined {
  if (!data || data.ok || data.intent !== intent) return undefined;
  return data.errors[field];
}
