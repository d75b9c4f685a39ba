/**
 * A post with files, read as a stream (app/page-kit/upload-form.server.ts, issue 37): the read
 * stops at the first excess (a file over its size, one file too many, a field too long), so the
 * bytes taken from the client stay near the limit however much it sends; uploads are bounded
 * per shop and per process; what is not a readable form is a 400.
 */
import { describe, expect, it } from "vitest";
import {
  readUploadForm,
  UploadRefusedError,
  UPLOADS_PER_PROCESS,
  UPLOADS_PER_SHOP,
} from "../../app/page-kit/upload-form.server";

const MB = 1024 * 1024;
const LIMITS = { fileField: "files", maxFiles: 3, maxFileBytes: 2 * MB, maxFieldBytes: 1024 };
const BOUNDARY = "----upload-test-boundary";
const enc = new TextEncoder();

type Part = { name: string; value: string } | { name: string; filename: string; size: number };

/**
 * A multipart body sent in 64 KB chunks as the reader asks for them, counting what it gave:
 * a file's bytes are made as they are sent, never held. `hold` keeps the body open at its end
 * until released (an upload still arriving).
 */
function post(parts: Part[], opts: { hold?: Promise<void>; type?: string } = {}) {
  let pulled = 0;
  async function* chunks() {
    for (const p of parts) {
      const head =
        "filename" in p
          ? `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: image/png\r\n\r\n`
          : `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}`;
      yield enc.encode(head);
      if ("filename" in p)
        for (let left = p.size; left > 0; left -= 64 * 1024)
          yield new Uint8Array(Math.min(64 * 1024, left)).fill(7);
      yield enc.encode("\r\n");
    }
    await opts.hold;
    yield enc.encode(`--${BOUNDARY}--\r\n`);
  }
  const it = chunks();
  const body = new ReadableStream<Uint8Array>({
    async pull(c) {
      const n = await it.next();
      if (n.done) return c.close();
      pulled += n.value.length;
      c.enqueue(n.value);
    },
  });
  const request = new Request("https://app.example/app/disputes/new", {
    method: "POST",
    headers: { "content-type": opts.type ?? `multipart/form-data; boundary=${BOUNDARY}` },
    body,
    duplex: "half",
  } as RequestInit);
  return { request, pulled: () => pulled };
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected a refusal");
    },
    (e: unknown) => e,
  );

describe("a post with files", () => {
  it("is read whole within the limits: fields as text, files with their names", async () => {
    const { request } = post([
      { name: "text", value: "The parcel came crushed" },
      { name: "files", filename: "a.png", size: 2 * MB },
      { name: "files", filename: "", size: 0 },
      { name: "files", filename: "b.png", size: 10 },
      { name: "files", filename: "c.png", size: 1 },
    ]);
    const form = await readUploadForm(request, "s1.myshopify.com", LIMITS);
    expect(form.get("text")).toBe("The parcel came crushed");
    // As many files as the limit allows (3), each with its name and type.
    const files = form.getAll("files") as File[];
    expect(files.map((f) => [f.name, f.size, f.type])).toEqual([
      ["a.png", 2 * MB, "image/png"],
      ["b.png", 10, "image/png"],
      ["c.png", 1, "image/png"],
    ]);
  });

  it("stops at the first byte over a file's limit: a 64 MB file costs about 2 MB read", async () => {
    const { request, pulled } = post([{ name: "files", filename: "huge.png", size: 64 * MB }]);
    const e = await refusal(readUploadForm(request, "s1.myshopify.com", LIMITS));
    expect(e).toBeInstanceOf(UploadRefusedError);
    expect(e).toMatchObject({ field: "files", message: "huge.png is larger than 2 MB." });
    expect((e as Error).name).toBe("UploadRefusedError");
    expect(pulled()).toBeLessThan(3 * MB);
  });

  it("stops at the file one too many, before reading it", async () => {
    const parts: Part[] = Array.from({ length: 20 }, (_, i) => ({
      name: "files",
      filename: `p${i}.png`,
      size: MB,
    }));
    const { request, pulled } = post(parts);
    const e = await refusal(readUploadForm(request, "s1.myshopify.com", LIMITS));
    expect(e).toMatchObject({ field: "files", message: "Attach at most 3 files." });
    expect(pulled()).toBeLessThan(4.2 * MB);
  });

  it("refuses a field over its length by the field's name, and files under another name", async () => {
    const long = post([{ name: "text", value: "x".repeat(1025) }]);
    expect(await refusal(readUploadForm(long.request, "s1.myshopify.com", LIMITS))).toMatchObject({
      field: "text",
      message: "This is too long.",
    });
    const exact = post([{ name: "text", value: "x".repeat(1024) }]);
    expect(
      (await readUploadForm(exact.request, "s1.myshopify.com", LIMITS)).get("text"),
    ).toHaveLength(1024);
    const elsewhere = post([{ name: "avatar", filename: "a.png", size: 10 }]);
    expect(
      await refusal(readUploadForm(elsewhere.request, "s1.myshopify.com", LIMITS)),
    ).toMatchObject({ field: "files", message: "Files go in the files field only." });
  });

  it("a form without files is read as usual; what is not a form is a 400", async () => {
    const plain = new Request("https://app.example/app/disputes/1", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "intent=cancel",
    });
    expect((await readUploadForm(plain, "s1.myshopify.com", LIMITS)).get("intent")).toBe("cancel");
    // Only a type that starts with multipart/form-data is read as one.
    const named = new Request("https://app.example/app/disputes/1", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded; x=multipart/form-data;" },
      body: "intent=check",
    });
    expect((await readUploadForm(named, "s1.myshopify.com", LIMITS)).get("intent")).toBe("check");
    const bad = [
      post([], { type: "multipart/form-data" }).request,
      new Request("https://app.example/x", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"intent":"cancel"}',
      }),
      new Request("https://app.example/x", {
        method: "POST",
        headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
        body: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="a.png"\r\n\r\nabc`,
      }),
    ];
    for (const r of bad) {
      const e = await refusal(readUploadForm(r, "s1.myshopify.com", LIMITS));
      expect(e, r.headers.get("content-type")!).toBeInstanceOf(Response);
      expect((e as Response).status).toBe(400);
      expect(await (e as Response).text()).toBe("The form could not be read.");
    }
  });

  it("reads two uploads of a shop at once and turns a third away; the process holds four", async () => {
    expect([UPLOADS_PER_SHOP, UPLOADS_PER_PROCESS]).toEqual([2, 4]);
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    const slow = (shop: string) =>
      readUploadForm(
        post([{ name: "files", filename: "a.png", size: 10 }], { hold }).request,
        shop,
        LIMITS,
      );
    const a = [slow("a.myshopify.com"), slow("a.myshopify.com")];
    const third = await refusal(slow("a.myshopify.com"));
    expect(third).toMatchObject({
      field: "files",
      message: "Another upload is still being received. Wait a moment, then send it again.",
    });
    const b = [slow("b.myshopify.com"), slow("b.myshopify.com")];
    // Four read now: a fifth, of any shop, waits its turn.
    expect(await refusal(slow("c.myshopify.com"))).toBeInstanceOf(UploadRefusedError);
    release();
    for (const f of await Promise.all([...a, ...b])) expect((f.get("files") as File).size).toBe(10);
    // All done: the slots are free again.
    expect(
      (
        await readUploadForm(post([{ name: "t", value: "ok" }]).request, "a.myshopify.com", LIMITS)
      ).get("t"),
    ).toBe("ok");
  });
});

describe("the uploads of a shop", () => {
  it("count down as each finishes: one of two done, one more fits, then none", async () => {
    const holds: (() => void)[] = [];
    const slow = () => {
      let release!: () => void;
      const hold = new Promise<void>((r) => (release = r));
      holds.push(release);
      return readUploadForm(
        post([{ name: "files", filename: "a.png", size: 10 }], { hold }).request,
        "d.myshopify.com",
        LIMITS,
      );
    };
    const first = slow();
    const second = slow();
    holds[0]!();
    await first;
    // One still being read: one more fits, a fourth does not.
    const third = slow();
    expect(await refusal(slow())).toBeInstanceOf(UploadRefusedError);
    holds[1]!();
    holds[2]!();
    await Promise.all([second, third]);
    // All done: two fit again.
    const again = [slow(), slow()];
    holds[4]!();
    holds[5]!();
    expect(await Promise.all(again)).toHaveLength(2);
  });
});
