import { createServer } from "node:http";
import { listenOnLoopback } from "./loopback";

/** What a path of the file server answers: bytes with a type, a redirect, or a status. */
export type FileAnswer =
  | { bytes: Buffer; type?: string; delayMs?: number }
  | { redirect: string }
  | { status: number };

/** A 1×1 PNG (the smallest real image the service's type detection accepts). */
export const PNG_1PX = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

/**
 * A stand-in for a public web server on a loopback port (for the service simulator's
 * uploadFile with allowLoopbackUploads, and the archiver's downloads): `paths` maps a path to
 * its answer; every request is counted in `hits`.
 */
export async function serveFiles(paths: Record<string, FileAnswer>) {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    hits.push(path);
    const a = paths[path];
    if (!a) return void res.writeHead(404).end();
    if ("redirect" in a) return void res.writeHead(302, { location: a.redirect }).end();
    if ("status" in a) return void res.writeHead(a.status).end();
    const send = () =>
      res.writeHead(200, { "content-type": a.type ?? "application/octet-stream" }).end(a.bytes);
    if (a.delayMs) setTimeout(send, a.delayMs);
    else send();
  });
  const l = await listenOnLoopback(server);
  return { ...l, hits, paths };
}

/**
 * A resolver for the tests' made-up public names (files.example.com …): every name is a public
 * address, so the download's rules are what is tested, not this machine's DNS.
 */
export const publicDns = async (_hostname: string): Promise<string[]> => ["93.184.216.34"];
