/** The Retry / Hold / Release / Cancel buttons of the order page, handed to the pipeline. */
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { cancelOrder, holdOrder, releaseOrder, retryOrder } from "../fulfilment/actions.server";
import { productionDeps } from "../fulfilment/deps.server";
import { parseForm } from "./forms.server";

const actionForm = z.object({
  intent: z.enum(["retry", "hold", "release", "cancel"], "Unknown action"),
  note: z.string().trim().max(200, "At most 200 characters").optional(),
});

export type OrderActionResult =
  | { ok: true; intent: string; message: string }
  | { ok: false; intent: string; errors: Record<string, string> };

export async function orderAction(
  db: PrismaClient,
  shop: string,
  orderId: string,
  form: FormData,
): Promise<OrderActionResult> {
  const parsed = parseForm(actionForm, form);
  const intent = String(form.get("intent") ?? "");
  if (!parsed.ok) return { ok: false, intent, errors: parsed.errors };
  const deps = await productionDeps(db);
  const opts = { shopDomain: shop };
  const r =
    parsed.data.intent === "retry"
      ? await retryOrder(deps, orderId, opts)
      : parsed.data.intent === "hold"
        ? await holdOrder(deps, orderId, { ...opts, note: parsed.data.note })
        : parsed.data.intent === "release"
          ? await releaseOrder(deps, orderId, opts)
          : await cancelOrder(deps, { orderId }, { ...opts, source: "merchant" });
  if (!r.ok) return { ok: false, intent, errors: { form: r.error } };
  return {
    ok: true,
    intent,
    message: `Done: the order is now ${r.state}.${r.note ? ` ${r.note}` : ""}`,
  };
}
