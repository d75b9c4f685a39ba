import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import { requireAdmin } from "../pages/context.server";
import { sandboxEnabled } from "../sandbox/auth.server";
import { SandboxDemoError, placeTestOrderOnce, shipTestOrder } from "../sandbox/demo.server";
import { prisma } from "../db.server";
import { readForm } from "../page-kit/forms.server";

/** The sandbox's demo buttons (place a customer order, ship an order). 404 outside the sandbox. */
export const action = async ({ request }: ActionFunctionArgs) => {
  if (!sandboxEnabled()) throw new Response("Not found", { status: 404 });
  const { shop } = await requireAdmin(request);
  const form = await readForm(request);
  const intent = form.get("intent");
  try {
    if (intent === "place-order") {
      const name = await placeTestOrderOnce(prisma, shop, String(form.get("key") ?? ""));
      return redirect(`/app/orders?placed=${encodeURIComponent(name)}`);
    }
    if (intent === "ship") {
      const id = String(form.get("orderId") ?? "");
      await shipTestOrder(prisma, shop, id);
      return redirect(`/app/orders/${encodeURIComponent(id)}?shipped=1`);
    }
    return { ok: false, error: "Unknown sandbox action" };
  } catch (error) {
    if (error instanceof SandboxDemoError) return { ok: false, error: error.message };
    throw error;
  }
};

export const loader = () => {
  throw new Response("Not found", { status: 404 });
};
