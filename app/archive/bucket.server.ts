/**
 * An S3-compatible bucket for the app's files (ARCHIVE_S3_URL), when PostgreSQL should not hold
 * them: AWS S3, MinIO, Cloudflare R2, Backblaze B2 and the like. Path-style addresses and
 * Signature Version 4, written here with node:crypto (no SDK).
 *
 * ARCHIVE_S3_URL = https://<access key id>:<secret access key>@<endpoint host>/<bucket>?region=<region>
 * (the key id and secret URL-encoded; region defaults to us-east-1).
 */
import { createHash, createHmac } from "node:crypto";

export interface Bucket {
  /** Where objects go, without credentials (for logs and errors). */
  readonly where: string;
  put(key: string, bytes: Buffer, type: string): Promise<void>;
  get(key: string): Promise<Buffer>;
  /** Removes an object; one already gone is no error (S3's DeleteObject). */
  delete(key: string): Promise<void>;
}

export class BucketError extends Error {
  override name = "BucketError";
}

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const hmac = (key: string | Buffer, data: string) =>
  createHmac("sha256", key).update(data).digest();

/** RFC 3986 encoding of one path segment, as SigV4 wants it. */
const encodeSegment = (s: string) =>
  encodeURIComponent(s).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

export interface BucketConfig {
  endpoint: URL;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** Reads ARCHIVE_S3_URL; throws BucketError (without the secret) when it is malformed. */
export function parseBucketUrl(raw: string): BucketConfig {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BucketError("ARCHIVE_S3_URL is not a URL");
  }
  const bucket = decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, ""));
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new BucketError("ARCHIVE_S3_URL must be http(s)://key:secret@host/bucket");
  if (!url.username || !url.password)
    throw new BucketError("ARCHIVE_S3_URL must carry the access key id and secret");
  if (!bucket || bucket.includes("/"))
    throw new BucketError("ARCHIVE_S3_URL must name one bucket as its path");
  return {
    endpoint: new URL(`${url.protocol}//${url.host}`),
    bucket,
    region: url.searchParams.get("region") || "us-east-1",
    accessKeyId: decodeURIComponent(url.username),
    secretAccessKey: decodeURIComponent(url.password),
  };
}

/** The headers of a signed request (SigV4, payload hash signed, no query string). */
export function signRequest(
  c: BucketConfig,
  method: "GET" | "PUT" | "DELETE",
  path: string,
  payload: Buffer,
  extra: Record<string, string>,
  now = new Date(),
): Record<string, string> {
  const amzDate = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = {
    ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k.toLowerCase(), v.trim()])),
    host: c.endpoint.host,
    "x-amz-content-sha256": sha256(payload),
    "x-amz-date": amzDate,
  };
  const names = Object.keys(headers).sort();
  const canonical = [
    method,
    path,
    "",
    ...names.map((n) => `${n}:${headers[n]}`),
    "",
    names.join(";"),
    headers["x-amz-content-sha256"],
  ].join("\n");
  const scope = `${day}/${c.region}/s3/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonical)].join("\n");
  const key = hmac(
    hmac(hmac(hmac(`AWS4${c.secretAccessKey}`, day), c.region), "s3"),
    "aws4_request",
  );
  const signature = createHmac("sha256", key).update(toSign).digest("hex");
  const { host: _host, ...sent } = headers;
  return {
    ...sent,
    authorization: `AWS4-HMAC-SHA256 Credential=${c.accessKeyId}/${scope}, SignedHeaders=${names.join(";")}, Signature=${signature}`,
  };
}

export function bucketFrom(raw: string, fetchImpl: typeof fetch = fetch): Bucket {
  const c = parseBucketUrl(raw);
  const where = `${c.endpoint.origin}/${c.bucket}`;
  const pathOf = (key: string) =>
    `/${encodeSegment(c.bucket)}/${key.split("/").map(encodeSegment).join("/")}`;
  const call = async (
    method: "GET" | "PUT" | "DELETE",
    key: string,
    body: Buffer,
    type?: string,
  ) => {
    const path = pathOf(key);
    const headers = signRequest(c, method, path, body, type ? { "content-type": type } : {});
    const res = await fetchImpl(new URL(path, c.endpoint), {
      method,
      headers,
      body: method === "PUT" ? new Uint8Array(body) : undefined,
      signal: AbortSignal.timeout(60_000),
    });
    if (!res.ok) {
      const text = (await res.text()).slice(0, 500);
      const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? `HTTP ${res.status}`;
      throw new BucketError(`${method} ${where}/${key}: ${code}`);
    }
    return res;
  };
  return {
    where,
    async put(key, bytes, type) {
      await call("PUT", key, bytes, type);
    },
    async get(key) {
      const res = await call("GET", key, Buffer.alloc(0));
      return Buffer.from(await res.arrayBuffer());
    },
    async delete(key) {
      const res = await call("DELETE", key, Buffer.alloc(0));
      await res.body?.cancel();
    },
  };
}
