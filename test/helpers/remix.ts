import type { ActionFunctionArgs } from "@remix-run/node";

/** Calls a Remix loader or action the way Remix does: a thrown Response is the response. */
export async function callRoute(
  fn: (args: ActionFunctionArgs) => unknown,
  request: Request,
  params: Record<string, string> = {},
): Promise<Response> {
  try {
    const result = await fn({ request, params, context: {} });
    if (result instanceof Response) return result;
    return new Response(JSON.stringify(result ?? null), { status: 200 });
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}
