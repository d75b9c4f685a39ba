import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveSvcWebhook } from "../webhooks/svc.server";

// The service's webhooks (ORDER, LOGISTIC, …): stored with their job, acknowledged at once.
export const action = ({ request, params }: ActionFunctionArgs) =>
  receiveSvcWebhook(request, params.secret ?? "");

// A GET has nothing to see here; the address itself is the secret.
export const loader = () => new Response("Not found", { status: 404 });
