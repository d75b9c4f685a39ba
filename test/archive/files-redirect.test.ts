/**
 * The archive's download follows redirects only to public hosts (issue 35): the private-network
 * check holds on every hop, not only the first, so a service link that redirects to a private,
 * loopback or link-local address (a cloud metadata endpoint) is refused before that address is
 * asked, and nothing is kept.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { downloadFile } from "../../app/archive/download.server";
import { FileRefusedError } from "../../app/archive/files.server";
import { PNG_1PX, publicDns, serveFiles } from "../helpers/file-server";

let files: Awaited<ReturnType<typeof serveFiles>>;
let trustedHost: string;
beforeAll(async () => {
  files = await serveFiles({ "/ok": { bytes: PNG_1PX }, "/secret": { bytes: PNG_1PX } });
  trustedHost = new URL(files.url).host;
});
afterAll(async () => files?.close());

/** Real fetch for the test's own server; any other address answers a PNG, and is recorded. */
function recordingFetch() {
  const asked: string[] = [];
  const impl: typeof fetch = (input, init) => {
    const url = String(input);
    asked.push(url);
    if (url.startsWith(files.url)) return fetch(input, init);
    return Promise.resolve(new Response(new Uint8Array(PNG_1PX), { status: 200 }));
  };
  return { asked, impl };
}

describe("redirects and private addresses", () => {
  it("a redirect from the trusted host to a public one is followed", async () => {
    const f = recordingFetch();
    files.paths["/to-public"] = { redirect: "https://files.example.com/photo.png" };
    const got = await downloadFile(`${files.url}/to-public`, {
      maxBytes: 1024,
      trustedHost,
      fetchImpl: f.impl,
      resolve: publicDns,
    });
    expect(got.type).toBe("image/png");
    expect(f.asked).toEqual([`${files.url}/to-public`, "https://files.example.com/photo.png"]);
  });

  for (const target of [
    "http://169.254.169.254/latest/meta-data/iam",
    "http://10.0.0.5/internal.png",
    "http://192.168.1.1/router.png",
    "http://[fe80::1]/link-local.png",
    "http://[::1]/loopback.png",
    "http://metadata.internal/photo.png",
  ]) {
    it(`a redirect to ${new URL(target).hostname} is refused before it is asked`, async () => {
      const f = recordingFetch();
      const path = `/to-${encodeURIComponent(target)}`;
      files.paths[path] = { redirect: target };
      const download = downloadFile(`${files.url}${path}`, {
        maxBytes: 1024,
        trustedHost,
        fetchImpl: f.impl,
        resolve: publicDns,
      });
      await expect(download).rejects.toThrow(FileRefusedError);
      await expect(download).rejects.toThrow("the address is not allowed");
      expect(f.asked).toEqual([`${files.url}${path}`]);
    });
  }

  it("a second hop to the loopback under another name (not the trusted host) is refused", async () => {
    const port = new URL(files.url).port;
    files.paths["/hop1"] = { redirect: "/hop2" };
    files.paths["/hop2"] = { redirect: `http://localhost:${port}/secret` };
    const before = files.hits.length;
    await expect(
      downloadFile(`${files.url}/hop1`, { maxBytes: 1024, trustedHost }),
    ).rejects.toThrow("the address is not allowed");
    expect(files.hits.slice(before)).toEqual(["/hop1", "/hop2"]);
  });
});
