import { json } from "@remix-run/node";
import { checkDatabase } from "../health.server";

/** Liveness and readiness for load balancers: 200 once the database answers a real query. */
export const loader = async () => {
  const db = await checkDatabase();
  return json(
    { db },
    { status: db === "ok" ? 200 : 503, headers: { "Cache-Control": "no-store" } },
  );
};
