import { Banner } from "@shopify/polaris";

export type ActionData =
  | { ok: true; intent: string; message: string; warning?: string | null }
  | { ok: false; intent: string; errors: Record<string, string> }
  | undefined;

/** The outcome of the last post: a success banner, or the error that belongs to no field. */
export function FormStatus({ data, intent }: { data: ActionData; intent?: string }) {
  if (!data || (intent && data.intent !== intent)) return null;
  if (data.ok) {
    return (
      <>
        <Banner tone="success">{data.message}</Banner>
        {data.warning ? <Banner tone="warning">{data.warning}</Banner> : null}
      </>
    );
  }
  return data.errors.form ? <Banner tone="critical">{data.errors.form}</Banner> : null;
}

/** The error of a field of the last post of this intent, if any. */
export function fieldError(data: ActionData, intent: string, field: string): string | undefined {
  if (!data || data.ok || data.intent !== intent) return undefined;
  return data.errors[field];
}
