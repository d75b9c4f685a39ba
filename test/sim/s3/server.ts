/**
 * An S3-compatible object store on a loopback port, as strict as S3 about what the app uses:
 * path-style PUT and GET of one bucket, Signature Version 4 checked on every request (a wrong
 * key id, secret, scope or signature is 403 SignatureDoesNotMatch / InvalidAccessKeyId), the
 * signed payload hash checked against the body (XAmzContentSHA256Mismatch), a clock skew over
 * 15 minutes refused (RequestTimeTooSkewed), NoSuchKey / NoSuchBucket as S3 answers them.
 */
import { createHash, createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { listenOnLoopback } from "../../helpers/loopback";

export interface S3Sim {
  url: string;
  /** ARCHIVE_S3_URL for this store. */
  archiveUrl: string;
  objects: Map<string, { bytes: Buffer; type: string }>;
  requests: { method: string; path: string; status: number }[];
  close(): Promise<void>;
}

const xml = (res: ServerResponse, status: number, code: string) =>
  void res
    .writeHead(status, { "content-type": "application/xml" })
    .end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code></Error>`);

const hex = (key: Buffer, s: string) => createHmac("sha256", key).update(s).digest("hex");
const raw = (key: Buffer | string, s: string) => createHmac("sha256", key).update(s).digest();

/** Why the request's signature is not S3's, or undefined. */
function signatureProblem(
  req: IncomingMessage,
  body: Buffer,
  keys: { id: string; secret: string; region: string },
): { status: number; code: string } | undefined {
  const auth = req.headers.authorization ?? "";
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!m) return { status: 403, code: "AccessDenied" };
  const [, keyId, day, region, signed, signature] = m as unknown as string[];
  if (keyId !== keys.id) return { status: 403, code: "InvalidAccessKeyId" };
  const amzDate = String(req.headers["x-amz-date"] ?? "");
  const at = Date.parse(
    amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, "$1-$2-$3T$4:$5:$6Z"),
  );
  if (!Number.isFinite(at) || amzDate.slice(0, 8) !== day || region !== keys.region)
    return { status: 403, code: "SignatureDoesNotMatch" };
  if (Math.abs(Date.now() - at) > 15 * 60_000) return { status: 403, code: "RequestTimeTooSkewed" };
  const payloadHash = String(req.headers["x-amz-content-sha256"] ?? "");
  if (payloadHash !== createHash("sha256").update(body).digest("hex"))
    return { status: 400, code: "XAmzContentSHA256Mismatch" };
  const names = signed!.split(";");
  if (!names.includes("host") || !names.includes("x-amz-date"))
    return { status: 403, code: "SignatureDoesNotMatch" };
  const canonical = [
    req.method,
    (req.url ?? "/").split("?")[0],
    (req.url ?? "").split("?")[1] ?? "",
    ...names.map((n) => `${n}:${String(req.headers[n] ?? "").trim()}`),
    "",
    signed,
    payloadHash,
  ].join("\n");
  const scope = `${day}/${region}/s3/aws4_request`;
  const toSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${createHash("sha256").update(canonical).digest("hex")}`;
  let k = raw(`AWS4${keys.secret}`, day!);
  for (const part of [region!, "s3", "aws4_request"]) k = raw(k, part);
  return hex(k, toSign) === signature ? undefined : { status: 403, code: "SignatureDoesNotMatch" };
}

export async function startS3Sim(
  opts: { bucket?: string; keyId?: string; secret?: string; region?: string } = {},
): Promise<S3Sim> {
  const bucket = opts.bucket ?? "app-files";
  const keys = {
    id: opts.keyId ?? "AKIDTEST0001",
    secret: opts.secret ?? "s3cret/with+chars",
    region: opts.region ?? "eu-central-1",
  };
  const objects = new Map<string, { bytes: Buffer; type: string }>();
  const requests: S3Sim["requests"] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks);
      const path = (req.url ?? "/").split("?")[0]!;
      const done = (status: number) => requests.push({ method: req.method ?? "", path, status });
      const problem = signatureProblem(req, body, keys);
      if (problem) {
        done(problem.status);
        return xml(res, problem.status, problem.code);
      }
      const [, b, ...rest] = path.split("/").map(decodeURIComponent);
      if (b !== bucket) {
        done(404);
        return xml(res, 404, "NoSuchBucket");
      }
      const key = rest.join("/");
      if (req.method === "PUT") {
        objects.set(key, {
          bytes: body,
          type: String(req.headers["content-type"] ?? "binary/octet-stream"),
        });
        done(200);
        return void res
          .writeHead(200, { etag: `"${createHash("md5").update(body).digest("hex")}"` })
          .end();
      }
      if (req.method === "GET") {
        const o = objects.get(key);
        if (!o) {
          done(404);
          return xml(res, 404, "NoSuchKey");
        }
        done(200);
        return void res.writeHead(200, { "content-type": o.type }).end(o.bytes);
      }
      if (req.method === "DELETE") {
        // S3 answers 204 whether or not the key was there.
        objects.delete(key);
        done(204);
        return void res.writeHead(204).end();
      }
      done(405);
      xml(res, 405, "MethodNotAllowed");
    })();
  });
  const l = await listenOnLoopback(server);
  const host = new URL(l.url).host;
  return {
    url: l.url,
    archiveUrl: `http://${encodeURIComponent(keys.id)}:${encodeURIComponent(keys.secret)}@${host}/${bucket}?region=${keys.region}`,
    objects,
    requests,
    close: l.close,
  };
}
