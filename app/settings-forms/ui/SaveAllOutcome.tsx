/**
 * What the settings page's save bar did: the forms saved, in a toast; the forms refused, in a
 * banner at the top of the page naming each with its first error (what was typed is kept).
 */
import { Banner, Layout, List } from "@shopify/polaris";
import { Toast } from "../../components/Toast";
import { type ActionData, FormStatus } from "../../components/FormStatus";
import { PARTS, type PageResult, isSaveAll } from "./parts";

const titleOf = (intent: string) => PARTS.find((p) => p.intent === intent)?.title ?? intent;

/** `other`: the page's last post when it was not the save bar's ("nothing to save" is one). */
export function SaveAllOutcome({ result, other }: { result: PageResult; other: ActionData }) {
  const refused = isSaveAll(result) ? result.results.filter((r) => !r.ok) : [];
  return (
    <>
      {isSaveAll(result) && result.message ? (
        <Toast message={result.message} token={result} />
      ) : null}
      {refused.length > 0 || other?.intent === "save-all" ? (
        <Layout.Section>
          <FormStatus data={other} intent="save-all" />
          {refused.length > 0 ? (
            <Banner
              tone="critical"
              title={`Not saved: ${refused.map((r) => titleOf(r.intent)).join(", ")}`}
            >
              <List>
                {refused.map((r) => (
                  <List.Item key={r.intent}>
                    {`${titleOf(r.intent)}: ${r.ok ? "" : (Object.values(r.errors)[0] ?? "")} What you typed is kept: correct it and save again.`}
                  </List.Item>
                ))}
              </List>
            </Banner>
          ) : null}
        </Layout.Section>
      ) : null}
    </>
  );
}
