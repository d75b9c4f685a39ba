import type { Bucket, OperationDef } from "./transport.server";

/** Shorthand for an operation definition with a token. */
export function defineOp(
  name: string,
  method: OperationDef["method"],
  path: string,
  retry: "safe" | "never",
  extra: {
    bucket?: Bucket;
    platformToken?: boolean;
    successCodes?: number[];
    minTimeoutMs?: number;
  } = {},
): OperationDef {
  return { name, method, path, auth: "token", bucket: extra.bucket ?? "default", retry, ...extra };
}
