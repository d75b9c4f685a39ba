/**
 * The settings page's forms as drafts, and the one save bar's Save and Discard: every changed
 * form posted together (each as it would post itself), one save at a time; once the page is
 * idle again, the saved forms show what was saved; the first refused field gets the focus as
 * soon as the refusal shows.
 */
import { useNavigation, useSubmit } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { useDraft } from "../../components/useDraft";
import { ORDERS_INTENT, ordersSaved } from "../../fulfilment/ui/OrdersForm";
import { SHIPPING_INTENT, type RuleRow, shippingSaved } from "../../shipping/ui/ShippingRules";
import { FX_INTENT, fxSaved } from "../../fx/ui/FxRatesForm";
import { PRICING_INTENT, pricingSaved } from "../../catalog/ui/PricingForm";
import { NOTIFY_INTENT, notificationsSaved } from "../../notify/ui/NotificationsForm";
import { PARTS, type PageResult, type PartIntent, type SettingsData, isSaveAll } from "./parts";

/**
 * Each form's values as the merchant edits them: kept through every reload of the page (a
 * refresh, another form's post) while they differ from what is saved.
 */
export function useSettingsDrafts(data: SettingsData) {
  return {
    [ORDERS_INTENT]: useDraft(ordersSaved(data.settings)),
    [SHIPPING_INTENT]: useDraft(shippingSaved(data.settings.shippingRules as RuleRow[])),
    [FX_INTENT]: useDraft(fxSaved(data.settings)),
    [PRICING_INTENT]: useDraft(pricingSaved(data.settings)),
    [NOTIFY_INTENT]: useDraft(notificationsSaved(data.settings)),
  } satisfies Record<PartIntent, unknown>;
}

type Drafts = ReturnType<typeof useSettingsDrafts>;

/** Every changed form, each as it posts itself, in one post of the save bar's Save. */
function saveAllPost(changed: readonly { intent: PartIntent }[]): FormData {
  const post = new FormData();
  post.set("intent", "save-all");
  for (const p of changed) {
    const form = document.querySelector<HTMLFormElement>(`form[data-settings-part="${p.intent}"]`);
    if (!form) continue;
    const fields = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (typeof v === "string") fields.append(k, v);
    post.append("part", fields.toString());
  }
  return post;
}

/** The first refused form of a save: its first refused field (or the card) in view, focused. */
function showRefused(intent: string) {
  const card = document.querySelector<HTMLElement>(`[data-settings-card="${intent}"]`);
  const field = card?.querySelector<HTMLElement>('[aria-invalid="true"]');
  (field ?? card)?.scrollIntoView({ block: "center" });
  field?.focus({ preventScroll: true });
}

/** The save bar's Save and Discard over the page's drafts, and the forms changed. */
export function useSaveAll(drafts: Drafts, result: PageResult) {
  const navigation = useNavigation();
  const submit = useSubmit();
  const busy = navigation.state !== "idle";
  const changed = PARTS.filter((p) => drafts[p.intent].dirty);

  // One save at a time: a second click before the page is idle again is dropped.
  const inFlight = useRef(false);
  // What each form held when it was sent: a form changed again since keeps the new input.
  const posted = useRef<Record<string, string>>({});
  useEffect(() => {
    if (navigation.state === "idle") inFlight.current = false;
  }, [navigation.state]);
  const save = () => {
    if (inFlight.current || busy || changed.length === 0) return;
    const post = saveAllPost(changed);
    inFlight.current = true;
    posted.current = Object.fromEntries(
      changed.map((p) => [p.intent, JSON.stringify(drafts[p.intent].values)]),
    );
    submit(post, { method: "post" });
  };
  const discard = () => {
    for (const p of PARTS) drafts[p.intent].reset();
  };

  const resetOf = useRef(drafts);
  resetOf.current = drafts;
  // A refusal shows with the action's result, before the page's data has reloaded: the first
  // refused field gets the focus then, while its error is read, not a reload later.
  const focused = useRef<PageResult>(undefined);
  useEffect(() => {
    if (focused.current === result) return;
    focused.current = result;
    const refused = isSaveAll(result) ? result.results.find((r) => !r.ok) : undefined;
    if (refused) showRefused(refused.intent);
  }, [result]);
  // The saved forms' drafts are dropped once the page is idle again, with the saved values
  // loaded (dropped earlier, a form would show what was there before the save for a moment).
  const handled = useRef<PageResult>(undefined);
  useEffect(() => {
    if (navigation.state !== "idle" || handled.current === result) return;
    handled.current = result;
    if (!isSaveAll(result)) return;
    for (const r of result.results) {
      const draft = resetOf.current[r.intent as PartIntent];
      if (r.ok && draft && JSON.stringify(draft.values) === posted.current[r.intent]) draft.reset();
    }
  }, [result, navigation.state]);

  return { changed, busy, save, discard };
}
