/**
 * The orders list's selection and the bulk action being confirmed: a started run clears both
 * and renews the form's one-time key. The selection is kept by order id, so a refresh keeps it.
 */
import { useIndexResourceState } from "@shopify/polaris";
import { useEffect, useState } from "react";
import type { ActionData } from "../../../components/FormStatus";
import { useSubmitOnce } from "../../../components/SubmitOnce";
import type { BulkIntent } from "../../order-fit";
import type { Row } from "./types";

export function useBulkSelection(orders: Row[], result: ActionData, submitting: boolean) {
  const resources = useIndexResourceState(orders);
  const { selectedResources, clearSelection } = resources;
  const selected = orders.filter((o) => selectedResources.includes(o.id));
  const [confirming, setConfirming] = useState<BulkIntent | null>(null);
  const once = useSubmitOnce(submitting);
  useEffect(() => {
    if (result?.ok) {
      setConfirming(null);
      clearSelection();
      once.renew();
    }
    // A new outcome only (clearSelection and renew are stable).
  }, [result, clearSelection, once.renew]);
  return { ...resources, selected, confirming, setConfirming, once };
}
