/**
 * The dispute use cases (app/disputes/open.server.ts, app/disputes/reply-cancel.server.ts and
 * app/disputes/forms.server.ts) against the service simulator over HTTP, on paid orders made
 * directly at the service (no order pipeline, so each case is fast):
 * the errors in the merchant's words, attachments, the open form's options, opening (input,
 * double submits, refusals, an unknown outcome), replying, cancelling, and the form runner.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DisputeInputError,
  addressLines,
  attachmentsOf,
  DISPUTE_UPLOAD,
  disputeFormOf,
  attachmentsToService,
  disputeErrorText,
  runDisputeForm,
} from "../../app/disputes/forms.server";
import { chosenLines, openDispute, openOptions } from "../../app/disputes/open.server";
import { cancelDispute, refreshOne, replyToDispute } from "../../app/disputes/reply-cancel.server";
import { loader as publicFileRoute } from "../../app/routes/files.$token";
import * as E from "../../app/svc/errors";
import { serveRoutes } from "../helpers/app-server";
import { PNG_1PX, serveFiles } from "../helpers/file-server";
import { saveFile } from "../../app/archive/files.server";
import { type DisputeFixture, disputeFixture, prisma } from "./fixture";

const SHOP = "disputes-actions.myshopify.com";
let f: DisputeFixture;
let app: Awaited<ReturnType<typeof serveRoutes>>;
let files: Awaited<ReturnType<typeof serveFiles>>;

const MP4 = Buffer.concat([Buffer.from("\0\0\0\x18ftypmp42", "latin1"), Buffer.alloc(16)]);
const PDF = Buffer.from("%PDF-1.4\n% a document, not a photo\n");
const photo = (name = "damaged.png") => new File([new Uint8Array(PNG_1PX)], name);
let keySeq = 0;
const key = () => `form-key-${++keySeq}-${Date.now()}`;
const simDispute = (id: string) => f.svc.state.disputes.get(id)!;
const calls = (op: string) => f.svc.calls({ op, accountId: f.simAccountId });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected a failure");
    },
    (e: unknown) => e as Error,
  );

beforeAll(async () => {
  f = await disputeFixture(SHOP, { clientTimeoutMs: 2_000 });
  app = await serveRoutes({ "/files/:token": publicFileRoute });
  files = await serveFiles({
    "/a.png": { bytes: PNG_1PX },
    "/b.png": { bytes: PNG_1PX },
    "/clip.MP4": { bytes: MP4 },
    "/clip.mp4x": { bytes: PNG_1PX },
  });
});
afterAll(async () => {
  await files?.close();
  await app?.close();
  await f?.close();
});

describe("disputeErrorText", () => {
  const op = { operation: "disputes/reply", message: "nope" };
  it("says each refusal in the merchant's words", () => {
    expect(disputeErrorText(new DisputeInputError("Fix the text", "text"))).toBe("Fix the text");
    expect(disputeErrorText(new E.SvcDisputeStateError(op))).toMatch(
      /^This dispute no longer takes messages/,
    );
    expect(disputeErrorText(new E.SvcNotFoundError(op))).toMatch(
      /^The service does not know this dispute or order on your account/,
    );
    expect(disputeErrorText(new E.SvcParamError({ ...op, code: 1600100 }))).toBe(
      "The service refused it: disputes/reply: nope (code 1600100)",
    );
    expect(disputeErrorText(new E.SvcTimeoutError({ ...op, outcomeUnknown: true }))).toMatch(
      /^The service did not answer clearly \(it may be down\)\. Nothing is sent twice/,
    );
    expect(disputeErrorText(new E.SvcServerError(op))).toBe(
      "The service did not take it: disputes/reply: nope",
    );
    expect(disputeErrorText(new Error("socket"))).toBe(
      "The service could not be reached. Try again in a minute.",
    );
  });

  it("while only reading, an outage is said as such and nothing changed", () => {
    const outage = /^The service is not answering now\. Nothing changed/;
    expect(disputeErrorText(new E.SvcServerError(op), true)).toMatch(outage);
    expect(disputeErrorText(new Error("socket"), true)).toMatch(outage);
    // A refusal is not an outage, read or not.
    expect(disputeErrorText(new E.SvcNotFoundError(op), true)).toMatch(/does not know/);
    expect(disputeErrorText(new DisputeInputError("Mine"), true)).toBe("Mine");
    expect(new DisputeInputError("Mine").field).toBe("form");
    expect(new DisputeInputError("Mine").name).toBe("DisputeInputError");
  });
});

describe("the form's attachments", () => {
  it("addressLines keeps one address a line, trimmed, never split at a space", () => {
    expect(addressLines(" https://a.example/x \r\n\n https://b.example/y z\n  \n")).toEqual([
      "https://a.example/x",
      "https://b.example/y z",
    ]);
    expect(addressLines("")).toEqual([]);
  });

  it("attachmentsOf takes the non-empty files and the address lines", () => {
    const form = new FormData();
    form.append("files", photo("one.png"));
    form.append("files", new File([], "empty.png"));
    form.append("files", "not a file");
    form.append("addresses", "https://a.example/1\nhttps://a.example/2");
    const got = attachmentsOf(form);
    expect(got.files.map((x) => x.name)).toEqual(["one.png"]);
    expect(got.addresses).toEqual(["https://a.example/1", "https://a.example/2"]);
    expect(attachmentsOf(new FormData())).toEqual({ files: [], addresses: [] });
  });

  const toService = (input: { files?: File[]; addresses?: string[] }, appUrl = app.url) =>
    attachmentsToService(prisma, f.client, SHOP, appUrl, {
      files: input.files ?? [],
      addresses: input.addresses ?? [],
    });
  const refused = async (
    input: { files?: File[]; addresses?: string[] },
    field: string,
    message: string,
  ) => {
    const before = calls("uploadFile").length;
    const e = await failure(toService(input));
    expect(e).toBeInstanceOf(DisputeInputError);
    expect({ field: (e as DisputeInputError).field, message: e.message }).toEqual({
      field,
      message,
    });
    // Checked before anything is copied.
    expect(calls("uploadFile")).toHaveLength(before);
  };

  it("refuses more than six, counting neither empty files nor blank lines", async () => {
    const seven = Array.from({ length: 7 }, (_, i) => `https://a.example/${i}.png`);
    await refused({ addresses: seven }, "files", "Attach at most 6 files.");
    await refused(
      { files: [photo()], addresses: seven.slice(1) },
      "files",
      "Attach at most 6 files.",
    );
    // Six are taken (the sixth is then checked as an address), an empty file and a blank
    // address are not counted.
    await refused(
      {
        files: [new File([], "empty.txt")],
        addresses: [...seven.slice(0, 5), "   ", "ftp://a.example/6.png"],
      },
      "addresses",
      'Line 6: "ftp://a.example/6.png" is not a web address. Put one address on each line, starting with https:// and without spaces.',
    );
  });

  it("refuses a file over 10 MB, and one that is neither a photo nor a video", async () => {
    const big = new File([new Uint8Array(10 * 1024 * 1024 + 1)], "big.png");
    await refused({ files: [big] }, "files", "big.png is larger than 10 MB.");
    // Exactly 10 MB is not too large (then its content is checked).
    const tenMb = new File([new Uint8Array(10 * 1024 * 1024)], "ten.bin");
    await refused(
      { files: [tenMb] },
      "files",
      "ten.bin is not a photo (jpg, png, webp, gif) or a video (mp4, mov, webm).",
    );
    await refused(
      { files: [new File([PDF], "invoice.pdf")] },
      "files",
      "invoice.pdf is not a photo (jpg, png, webp, gif) or a video (mp4, mov, webm).",
    );
    await refused(
      { files: [new File([Buffer.from("hi")], "tiny.png")] },
      "files",
      "tiny.png is not a photo (jpg, png, webp, gif) or a video (mp4, mov, webm).",
    );
    expect(await prisma.storedFile.count({ where: { shopDomain: SHOP } })).toBe(0);
  });

  it("a refusal keeps no file: every file and address is checked before one is kept", async () => {
    // A good photo, then a bad one; a good photo, then a bad address.
    await refused(
      { files: [photo("good.png"), new File([PDF], "invoice.pdf")] },
      "files",
      "invoice.pdf is not a photo (jpg, png, webp, gif) or a video (mp4, mov, webm).",
    );
    await refused(
      { files: [photo("good.png")], addresses: ["not an address"] },
      "addresses",
      '"not an address" is not a web address. Put one address on each line, starting with https:// and without spaces.',
    );
    expect(await prisma.storedFile.count({ where: { shopDomain: SHOP } })).toBe(0);
  });

  it("a copy the service fails deletes the files this post kept", async () => {
    const before = calls("uploadFile").length;
    // The second source is an address the service refuses (not public).
    const e = await failure(
      toService({ files: [photo("kept.png")], addresses: ["http://10.0.0.1/x.png"] }),
    );
    expect(e).not.toBeInstanceOf(DisputeInputError);
    expect(calls("uploadFile")).toHaveLength(before + 2);
    expect(await prisma.storedFile.count({ where: { shopDomain: SHOP } })).toBe(0);
  });

  it("that deletion takes only the post's own files, of its own shop", async () => {
    const earlier = await saveFile(prisma, {
      shopDomain: SHOP,
      purpose: "dispute_upload",
      name: "earlier.png",
      bytes: PNG_1PX,
      type: "image/png",
    });
    const elsewhere = await saveFile(prisma, {
      shopDomain: "another-shop.myshopify.com",
      purpose: "dispute_upload",
      name: "theirs.png",
      bytes: PNG_1PX,
      type: "image/png",
    });
    await failure(toService({ files: [photo("kept.png")], addresses: ["http://10.0.0.1/x.png"] }));
    const left = await prisma.storedFile.findMany({ select: { id: true } });
    expect(left.map((f) => f.id).sort()).toEqual([earlier.id, elsewhere.id].sort());
    await prisma.storedFile.deleteMany({ where: { id: { in: [earlier.id, elsewhere.id] } } });
  });

  it("a dispute page's post: its form, or a refusal by its field; what is not a form is a 400", async () => {
    expect(DISPUTE_UPLOAD).toEqual({
      fileField: "files",
      maxFiles: 6,
      maxFileBytes: 10 * 1024 * 1024,
      maxFieldBytes: 64 * 1024,
    });
    const plain = new Request("https://app.test/app/disputes/1", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "intent=cancel",
    });
    const form = await disputeFormOf(plain, SHOP, "reply");
    expect(form).toBeInstanceOf(FormData);
    expect((form as FormData).get("intent")).toBe("cancel");
    const seven = new FormData();
    for (let i = 0; i < 7; i++) seven.append("files", photo(`p${i}.png`));
    const many = new Request("https://app.test/app/disputes/new", { method: "POST", body: seven });
    expect(await disputeFormOf(many, SHOP, "open")).toEqual({
      ok: false,
      intent: "open",
      errors: { files: "Attach at most 6 files." },
    });
    const json = new Request("https://app.test/app/disputes/1", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    const thrown = await disputeFormOf(json, SHOP, "reply").catch((x: unknown) => x);
    expect(thrown).toBeInstanceOf(Response);
    expect((thrown as Response).status).toBe(400);
  });

  it("refuses what is not a web address, by line, shortened past 80 characters", async () => {
    const msg = (line: string, shown: string) =>
      `${line}"${shown}" is not a web address. Put one address on each line, starting with https:// and without spaces.`;
    await refused(
      { addresses: ["https://a.example/x y.png"] },
      "addresses",
      msg("", "https://a.example/x y.png"),
    );
    await refused(
      { addresses: ["ftp://a.example/x.png"] },
      "addresses",
      msg("", "ftp://a.example/x.png"),
    );
    const eighty = "x".repeat(80);
    await refused({ addresses: [eighty] }, "addresses", msg("", eighty));
    const long = `${"y".repeat(81)}`;
    await refused({ addresses: [long] }, "addresses", msg("", `${"y".repeat(80)}…`));
    // https and http are web addresses: the second line is the bad one.
    await refused(
      { addresses: ["https://a.example/ok.png", "not an address"] },
      "addresses",
      msg("Line 2: ", "not an address"),
    );
    await refused(
      { addresses: ["  http://a.example/ok.png  ", "mailto:x@a.example"] },
      "addresses",
      msg("Line 2: ", "mailto:x@a.example"),
    );
  });

  it("copies files through the app's own address and addresses as they are, photos and videos apart", async () => {
    const out = await toService(
      {
        files: [photo("shot.png"), new File([MP4], "clip.mp4")],
        addresses: [`${files.url}/a.png`, ` ${files.url}/clip.MP4 `, `${files.url}/clip.mp4x`],
      },
      `${app.url}/`,
    );
    const kept = await prisma.storedFile.findMany({
      where: { shopDomain: SHOP, purpose: "dispute_upload" },
      orderBy: { createdAt: "asc" },
    });
    expect(kept.map((k) => [k.name, k.contentType])).toEqual([
      ["shot.png", "image/png"],
      ["clip.mp4", "video/mp4"],
    ]);
    for (const k of kept) {
      expect(k.publicUntil!.getTime() - k.createdAt.getTime()).toBeGreaterThan(3500_000);
      expect(k.publicUntil!.getTime() - k.createdAt.getTime()).toBeLessThanOrEqual(
        3600_000 + 5_000,
      );
    }
    expect(f.svc.uploadFetches().slice(-5)).toEqual([
      `${app.url}/files/${kept[0]!.publicToken}`,
      `${app.url}/files/${kept[1]!.publicToken}`,
      `${files.url}/a.png`,
      `${files.url}/clip.MP4`,
      `${files.url}/clip.mp4x`,
    ]);
    expect(out.imageUrl).toHaveLength(3);
    expect(out.videoUrl).toHaveLength(2);
    for (const u of [...out.imageUrl, ...out.videoUrl]) expect(u).toMatch(/\/__files\/u\//);
    // The service's copies, in the order sent: the photo file, then the two image addresses.
    const fetched = f.svc.uploadFetches().slice(-5);
    const copies = calls("uploadFile").slice(-5);
    expect(copies.map((c) => (c.body as { fileUrl: string }).fileUrl)).toEqual(fetched);
    expect(out).toEqual({
      imageUrl: [0, 2, 4].map((i) => (copies[i]!.response as { data: string }).data),
      videoUrl: [1, 3].map((i) => (copies[i]!.response as { data: string }).data),
    });
  });

  it("nothing attached copies nothing", async () => {
    const before = calls("uploadFile").length;
    expect(await toService({ files: [new File([], "x.png")], addresses: ["", "  "] })).toEqual({
      imageUrl: [],
      videoUrl: [],
    });
    expect(calls("uploadFile")).toHaveLength(before);
  });
});

describe("chosenLines", () => {
  const lines = [
    { lineItemId: "L1", svcProductName: "Mug", sku: "MUG-1", quantity: 2, price: "12.00" },
    { lineItemId: "L2", svcProductName: null, sku: "LAMP-1", quantity: 1, canChoose: true },
    { lineItemId: "L3", svcProductName: null, sku: null, quantity: 3, canChoose: false },
    { lineItemId: null, quantity: null },
  ];
  const refusal = (q: Record<string, number>) => {
    try {
      chosenLines(lines, q);
    } catch (e) {
      expect(e).toBeInstanceOf(DisputeInputError);
      expect((e as DisputeInputError).field).toBe("lines");
      return (e as Error).message;
    }
    throw new Error("expected a refusal");
  };

  it("takes each asked quantity up to what can be disputed, with the line's price", () => {
    expect(chosenLines(lines, { L1: 2, L2: 1, L3: 0, nope: 0 })).toEqual([
      { lineItemId: "L1", quantity: 2, price: "12.00" },
      { lineItemId: "L2", quantity: 1, price: "0" },
    ]);
    expect(chosenLines(lines, { L1: 1 })).toEqual([
      { lineItemId: "L1", quantity: 1, price: "12.00" },
    ]);
  });

  it("refuses a bad quantity by the line's name", () => {
    expect(refusal({ L1: 1.5 })).toBe("Mug: quantities are whole numbers, 0 or more.");
    expect(refusal({ L2: -1 })).toBe("LAMP-1: quantities are whole numbers, 0 or more.");
    expect(refusal({ L1: 3 })).toBe(
      "Mug: 3 is more than the 2 ordered; at most 2 can be disputed.",
    );
    expect(refusal({ L3: 1 })).toBe("A line: an open dispute already covers it.");
    // A line without an id or a quantity: nothing of it can be disputed.
    expect(refusal({ "": 1 })).toBe(
      "A line: 1 is more than the 0 ordered; at most 0 can be disputed.",
    );
  });

  it("refuses a line the order no longer has, and an empty choice", () => {
    expect(refusal({ L1: 1, gone: 1 })).toBe(
      "One of the lines is no longer on the order at the service: reload the page and choose again.",
    );
    expect(refusal({})).toBe(
      "Choose at least one line: give the quantity of each item that went wrong.",
    );
    expect(refusal({ L1: 0, gone: 0 })).toMatch(/^Choose at least one line/);
  });
});

describe("openOptions", () => {
  it("offers the order's lines and the service's reasons and outcomes", async () => {
    const order = await f.paidOrder();
    const sim = f.svc.order(order.svcOrderId)!;
    const o = await openOptions(f.client, order.svcOrderId);
    expect(o.orderNumber).toBe(sim.orderNumber);
    expect(o.lines).toEqual(
      sim.lines.map((l) => {
        const v = f.svc.state.catalog.variantByVid.get(l.vid)!;
        return {
          lineItemId: l.lineItemId,
          name: f.svc.state.catalog.byPid.get(v.pid)!.nameEn,
          sku: v.sku,
          image: v.image,
          price: expect.any(String),
          available: l.quantity,
          canChoose: true,
        };
      }),
    );
    expect(o.reasons).toEqual([
      { id: "1", name: "Item not received" },
      { id: "2", name: "Item damaged" },
      { id: "3", name: "Wrong item" },
      { id: "4", name: "Quality issue" },
    ]);
    expect(o.expectOptions).toEqual(["1", "2"]);
    const confirm = calls("disputeConfirmInfo").at(-1)!.body as {
      productInfoList: { lineItemId: string; quantity: number }[];
    };
    expect(confirm.productInfoList.map((l) => [l.lineItemId, l.quantity])).toEqual([
      [order.lineIds[0], 1],
      [order.lineIds[1], 1],
    ]);
  });

  it("asks the confirm info only for the lines that can still be disputed", async () => {
    const order = await f.paidOrder();
    await openDispute(prisma, f.client, f.account, app.url, {
      ...baseInput(order),
      quantities: { [order.lineIds[1]]: 1 },
    });
    const confirmCalls = calls("disputeConfirmInfo").length;
    const o = await openOptions(f.client, order.svcOrderId);
    expect(o.lines.map((l) => [l.available, l.canChoose])).toEqual([
      [2, true],
      [0, false],
    ]);
    expect(calls("disputeConfirmInfo")).toHaveLength(confirmCalls + 1);
    const body = calls("disputeConfirmInfo").at(-1)!.body as {
      productInfoList: { lineItemId: string }[];
    };
    expect(body.productInfoList.map((l) => l.lineItemId)).toEqual([order.lineIds[0]]);

    // Everything disputed: no confirm info, no reasons, both outcomes offered as the default.
    await openDispute(prisma, f.client, f.account, app.url, {
      ...baseInput(order),
      quantities: { [order.lineIds[0]]: 2 },
    });
    const before = calls("disputeConfirmInfo").length;
    const none = await openOptions(f.client, order.svcOrderId);
    expect(calls("disputeConfirmInfo")).toHaveLength(before);
    expect(none.lines.map((l) => l.canChoose)).toEqual([false, false]);
    expect(none.reasons).toEqual([]);
    expect(none.expectOptions).toEqual(["1", "2"]);
  });
});

function baseInput(
  order: { id: string; lineIds: [string, string] },
  over: Partial<Parameters<typeof openDispute>[4]> = {},
): Parameters<typeof openDispute>[4] {
  return {
    orderId: order.id,
    quantities: { [order.lineIds[0]]: 1 },
    reasonId: "2",
    expectType: "1",
    refundType: "1",
    text: "The mug arrived broken.",
    clientKey: key(),
    files: [],
    addresses: [],
    ...over,
  };
}

describe("openDispute", () => {
  let order: Awaited<ReturnType<DisputeFixture["paidOrder"]>>;
  beforeAll(async () => {
    order = await f.paidOrder();
  });
  const open = (over: Partial<Parameters<typeof openDispute>[4]> = {}, o = order) =>
    openDispute(prisma, f.client, f.account, app.url, baseInput(o, over));
  const inputError = async (p: Promise<unknown>) => {
    const e = await failure(p);
    expect(e).toBeInstanceOf(DisputeInputError);
    return { field: (e as DisputeInputError).field, message: e.message };
  };
  const rowsOf = (orderId: string) => prisma.dispute.count({ where: { orderId } });

  it("checks the form first, field by field", async () => {
    const creates = calls("disputeCreate").length;
    const cases: [Partial<Parameters<typeof openDispute>[4]>, string, string][] = [
      [{ reasonId: "0" }, "reasonId", "Choose a reason"],
      [{ reasonId: "2.5" }, "reasonId", "Invalid input: expected int, received number"],
      [{ expectType: "3" }, "expectType", "Choose a refund or a reissue"],
      [{ refundType: "0" }, "refundType", "Choose where the refund goes"],
      [{ text: "   " }, "text", "Say what went wrong"],
      [{ text: "x".repeat(501) }, "text", "At most 500 characters"],
      [{ text: "📦🙏" }, "text", "Emoji are removed by the service: add words"],
      [{ clientKey: "1234567" }, "clientKey", expect.any(String) as unknown as string],
      [{ clientKey: "k".repeat(65) }, "clientKey", expect.any(String) as unknown as string],
    ];
    for (const [over, field, message] of cases) {
      expect(await inputError(open(over)), JSON.stringify(over)).toEqual({ field, message });
    }
    expect(calls("disputeCreate")).toHaveLength(creates);
    expect(await rowsOf(order.id)).toBe(0);
  });

  it("takes the longest text and keys (trimmed first), then wants a paid service order of the shop", async () => {
    const notPaid = {
      field: "form",
      message: "Disputes can be opened on orders paid at the service only.",
    };
    const ok = [
      { text: `  ${"x".repeat(500)}  `, clientKey: "k".repeat(8) },
      { clientKey: "k".repeat(64) },
    ];
    for (const over of ok)
      expect(await inputError(open({ ...over, orderId: "no-such-order" }))).toEqual(notPaid);
    const other = await prisma.shopOrder.create({
      data: {
        shopDomain: "another-shop.myshopify.com",
        shopifyOrderId: "1",
        orderNumber: `other-${key()}`,
        svcOrderId: order.svcOrderId,
        paidAt: new Date(),
      },
    });
    expect(await inputError(open({ orderId: other.id }))).toEqual(notPaid);
    const unpaid = await prisma.shopOrder.create({
      data: {
        shopDomain: SHOP,
        shopifyOrderId: "2",
        orderNumber: `unpaid-${key()}`,
        svcOrderId: order.svcOrderId,
      },
    });
    expect(await inputError(open({ orderId: unpaid.id }))).toEqual(notPaid);
    const unplaced = await prisma.shopOrder.create({
      data: {
        shopDomain: SHOP,
        shopifyOrderId: "3",
        orderNumber: `unplaced-${key()}`,
        paidAt: new Date(),
      },
    });
    expect(await inputError(open({ orderId: unplaced.id }))).toEqual(notPaid);
    expect(await prisma.dispute.count({ where: { shopDomain: SHOP, orderId: order.id } })).toBe(0);
  });

  it("refuses a reason the service does not offer, and lines it would not take; the row goes", async () => {
    const creates = calls("disputeCreate").length;
    expect(await inputError(open({ reasonId: "99" }))).toEqual({
      field: "reasonId",
      message: "Choose one of the reasons the service offers.",
    });
    expect(await inputError(open({ quantities: {} }))).toMatchObject({ field: "lines" });
    expect(await inputError(open({ addresses: ["not an address"] }))).toMatchObject({
      field: "addresses",
    });
    expect(calls("disputeCreate")).toHaveLength(creates);
    expect(await rowsOf(order.id)).toBe(0);
  });

  it("opens a refund: the service gets the form, the order's timeline says so, the row is the listed one", async () => {
    const input = baseInput(order, {
      quantities: { [order.lineIds[0]]: 2, [order.lineIds[1]]: 1 },
      reasonId: "3",
      refundType: "2",
      text: "  Both arrived broken.  ",
    });
    const r = await openDispute(prisma, f.client, f.account, app.url, input);
    expect(r.already).toBe(false);
    const body = calls("disputeCreate").at(-1)!.body as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      [
        "businessDisputeId",
        "orderId",
        "disputeReasonId",
        "expectType",
        "refundType",
        "messageText",
        "productInfoList",
      ].sort(),
    );
    const sim = f.svc.order(order.svcOrderId)!;
    expect(body).toMatchObject({
      businessDisputeId: expect.stringMatching(/^bd-[0-9a-f]{32}$/),
      orderId: order.svcOrderId,
      disputeReasonId: 3,
      expectType: 1,
      refundType: 2,
      messageText: "Both arrived broken.",
    });
    const row = await prisma.dispute.findUniqueOrThrow({
      where: { id: r.disputeId },
      include: { messages: true },
    });
    const listed = [...f.svc.state.disputes.values()].find(
      (d) => d.businessDisputeId === body.businessDisputeId,
    )!;
    expect(listed.lines.map((l) => [l.lineItemId, l.quantity])).toEqual([
      [order.lineIds[0], 2],
      [order.lineIds[1], 1],
    ]);
    expect(row).toMatchObject({
      shopDomain: SHOP,
      svcAccountId: f.account.id,
      svcDisputeId: listed.id,
      businessDisputeId: body.businessDisputeId,
      orderId: order.id,
      svcOrderId: order.svcOrderId,
      orderNumber: sim.orderNumber,
      status: "Pending processing",
      expectType: 1,
      reason: "Wrong item",
    });
    expect(row.messages.map((m) => [m.fromSupport, m.text])).toEqual([
      [false, "Both arrived broken."],
    ]);
    const timeline = await prisma.timelineEntry.findMany({
      where: { orderId: order.id, step: "dispute" },
    });
    expect(timeline.map((t) => [t.outcome, t.message])).toEqual([
      ["info", "Dispute opened: refund of 3 item(s), Wrong item."],
    ]);

    // The same form again, at once or later: the first one's row, nothing sent.
    const creates = calls("disputeCreate").length;
    expect(await openDispute(prisma, f.client, f.account, app.url, input)).toEqual({
      disputeId: r.disputeId,
      already: true,
    });
    expect(calls("disputeCreate")).toHaveLength(creates);
  });

  it("a reissue with attachments; a double submit at the same moment sends once", async () => {
    const o = await f.paidOrder();
    const input = baseInput(o, {
      expectType: "2",
      reasonId: "4",
      files: [photo()],
      addresses: [`${files.url}/clip.MP4`],
    });
    const [a, b] = await Promise.all([
      openDispute(prisma, f.client, f.account, app.url, input),
      openDispute(prisma, f.client, f.account, app.url, input),
    ]);
    expect([a.already, b.already].sort()).toEqual([false, true]);
    expect(a.disputeId).toBe(b.disputeId);
    const sent = calls("disputeCreate").filter(
      (c) => (c.body as { orderId: string }).orderId === o.svcOrderId,
    );
    expect(sent).toHaveLength(1);
    const body = sent[0]!.body as { imageUrl?: string[]; videoUrl?: string[]; expectType: number };
    expect(body.expectType).toBe(2);
    expect(body.imageUrl).toHaveLength(1);
    expect(body.videoUrl).toHaveLength(1);
    const timeline = await prisma.timelineEntry.findMany({ where: { orderId: o.id } });
    expect(timeline.map((t) => t.message)).toEqual([
      "Dispute opened: reissue of 1 item(s), Quality issue.",
    ]);
  });

  it("a refusal of the service removes the row, so the form can be sent again", async () => {
    const o = await f.paidOrder();
    // The service holds the order as unpaid (its lines and reasons are still offered).
    const sim = f.svc.order(o.svcOrderId)!;
    sim.paid = false;
    let e: Error;
    try {
      e = await failure(open({}, o));
    } finally {
      sim.paid = true;
    }
    expect(e).toBeInstanceOf(E.SvcParamError);
    expect(e.message).toMatch(/paid orders only/);
    expect(await rowsOf(o.id)).toBe(0);
    expect(await open({}, o)).toMatchObject({ already: false });
    expect(await rowsOf(o.id)).toBe(1);
  });

  it("an unknown outcome keeps the row; sent once more, 'already exists' means it was made", async () => {
    const o = await f.paidOrder();
    // Both creates time out: the row stays (a pending id) for the sync to claim.
    f.svc.setFaults({
      ops: ["disputeCreate"],
      rateTimeout: 1,
      timeoutMs: 2_500,
      timeoutDrop: true,
    });
    let e: Error;
    try {
      e = await failure(open({}, o));
    } finally {
      f.svc.clearFaults();
    }
    expect((e as E.SvcError).outcomeUnknown).toBe(true);
    const kept = await prisma.dispute.findMany({ where: { orderId: o.id } });
    expect(kept.map((d) => d.svcDisputeId)).toEqual([`pending:${kept[0]!.businessDisputeId}`]);
    expect(await prisma.timelineEntry.count({ where: { orderId: o.id } })).toBe(0);

    // The first create times out (it ran), the second is told it exists: made, once.
    const o2 = await f.paidOrder();
    f.svc.setFaults({
      ops: ["disputeCreate"],
      rateTimeout: 0.5,
      timeoutMs: 2_500,
      timeoutDrop: true,
      seed: 8,
    });
    let r: Awaited<ReturnType<typeof open>>;
    try {
      r = await open({}, o2);
    } finally {
      f.svc.clearFaults();
    }
    expect(r.already).toBe(false);
    const made = calls("disputeCreate").filter(
      (c) => (c.body as { orderId: string }).orderId === o2.svcOrderId,
    );
    expect(made.map((c) => c.fault ?? c.code)).toEqual(["timeout", 1600100]);
    expect(
      [...f.svc.state.disputes.values()].filter((d) => d.orderId === o2.svcOrderId),
    ).toHaveLength(1);
    const row = await prisma.dispute.findUniqueOrThrow({ where: { id: r.disputeId } });
    expect(row.svcDisputeId).toMatch(/^\d+$/);
    expect(await prisma.timelineEntry.count({ where: { orderId: o2.id } })).toBe(1);
  });

  it("the page's refresh failing does not undo an opened dispute", async () => {
    const o = await f.paidOrder();
    f.svc.setFaults({ ops: ["getDisputeList"], rate5xx: 1 });
    let r: Awaited<ReturnType<typeof open>>;
    try {
      r = await open({}, o);
    } finally {
      f.svc.clearFaults();
    }
    expect(r.already).toBe(false);
    const row = await prisma.dispute.findUniqueOrThrow({ where: { id: r.disputeId } });
    expect(row.svcDisputeId).toMatch(/^pending:/);
    expect(row.reason).toBe("Item damaged");
  });
});

describe("replies and cancels", () => {
  // Opened by the first test that needs it, not in a hook: the use case's code would then
  // count as run by every test of the file (a static mutant, for the mutation run).
  let opened: string | undefined;
  const theDispute = async () =>
    (opened ??= (
      await openDispute(prisma, f.client, f.account, app.url, baseInput(await f.paidOrder()))
    ).disputeId);
  const reply = async (over: Partial<Parameters<typeof replyToDispute>[4]> = {}) =>
    replyToDispute(prisma, f.client, f.account, app.url, {
      id: await theDispute(),
      text: "Here is the box.",
      clientKey: key(),
      files: [],
      addresses: [],
      ...over,
    });
  // The messages as kept for the page: a reply's lock row (`key:`) is not one.
  const rowOf = (id: string) =>
    prisma.dispute.findUniqueOrThrow({
      where: { id },
      include: {
        messages: {
          where: { NOT: { messageId: { startsWith: "key:" } } },
          orderBy: { at: "asc" },
        },
      },
    });

  it("refuses a bad form, another shop's dispute and one not listed yet", async () => {
    const cases: [Partial<Parameters<typeof replyToDispute>[4]>, string, string][] = [
      [{ text: " " }, "text", "Write a message"],
      [{ text: "y".repeat(501) }, "text", "At most 500 characters"],
      [{ clientKey: "short" }, "clientKey", expect.any(String) as unknown as string],
    ];
    for (const [over, field, message] of cases) {
      const e = await failure(reply(over));
      expect(e).toBeInstanceOf(DisputeInputError);
      expect({ field: (e as DisputeInputError).field, message: e.message }).toEqual({
        field,
        message,
      });
    }
    const foreign = await prisma.dispute.create({
      data: {
        shopDomain: "another-shop.myshopify.com",
        svcAccountId: "elsewhere",
        svcDisputeId: "123",
        status: "Pending processing",
        svcCreatedAt: new Date(),
      },
    });
    expect((await failure(reply({ id: foreign.id }))).message).toBe(
      "This dispute is not on your account.",
    );
    const pending = await prisma.dispute.create({
      data: {
        shopDomain: SHOP,
        svcAccountId: f.account.id,
        svcDisputeId: "pending:bd-waiting",
        status: "Sent",
        svcCreatedAt: new Date(),
      },
    });
    const e = await failure(reply({ id: pending.id }));
    expect(e.message).toBe("The service has not listed this dispute yet. Try again in a minute.");
    expect(await failure(cancelDispute(prisma, f.client, f.account, pending.id))).toMatchObject({
      message: "The service has not listed this dispute yet. Try again in a minute.",
    });
    expect(await prisma.disputeMessage.count({ where: { disputeId: pending.id } })).toBe(0);
    expect(calls("disputeReply")).toHaveLength(0);
  });

  it("sends a reply once per form, trimmed, and marks the dispute read", async () => {
    const disputeId = await theDispute();
    await prisma.dispute.update({ where: { id: disputeId }, data: { unread: true } });
    const row = await rowOf(disputeId);
    const form = { text: "  Here is the box.  ", clientKey: key() };
    expect(await reply(form)).toEqual({ sent: true, already: false });
    const sim = simDispute(row.svcDisputeId);
    expect(sim.messages.map((m) => m.message)).toEqual([
      "The mug arrived broken.",
      "Here is the box.",
    ]);
    const after = await rowOf(disputeId);
    expect(after.unread).toBe(false);
    // Read back: the service's own message replaced the stand-in.
    expect(after.messages.map((m) => [m.messageId, m.text])).toEqual([
      [sim.messages[0]!.messageId, "The mug arrived broken."],
      [sim.messages[1]!.messageId, "Here is the box."],
    ]);
  });

  it("the same form sent twice at the same moment is sent once", async () => {
    const disputeId = await theDispute();
    const row = await rowOf(disputeId);
    const sim = simDispute(row.svcDisputeId);
    const before = sim.messages.length;
    const form = { text: "Sent twice by a double click.", clientKey: key() };
    const both = await Promise.all([reply(form), reply(form)]);
    expect(both.map((r) => r.already).sort()).toEqual([false, true]);
    expect(both.find((r) => r.already)).toEqual({ sent: false, already: true });
    expect(sim.messages).toHaveLength(before + 1);
  });

  it("keeps the attachments on its own message while the service has not listed it", async () => {
    const disputeId = await theDispute();
    const row = await rowOf(disputeId);
    const before = simDispute(row.svcDisputeId).messages.length;
    f.svc.setFaults({ ops: ["getDisputeList"], rate5xx: 1 });
    try {
      expect(
        await reply({
          text: "Photos 📦 attached",
          addresses: [`${files.url}/b.png`, `${files.url}/clip.MP4`],
        }),
      ).toEqual({ sent: true, already: false });
    } finally {
      f.svc.clearFaults();
    }
    const sim = simDispute(row.svcDisputeId);
    expect(sim.messages).toHaveLength(before + 1);
    const sent = sim.messages.at(-1)!;
    expect(sent.message).toBe("Photos  attached");
    const mine = await prisma.disputeMessage.findFirstOrThrow({
      where: { disputeId, messageId: { startsWith: "pending:" } },
    });
    expect(mine).toMatchObject({
      fromSupport: false,
      text: "Photos attached",
      imageUrls: sent.imageUrl,
      videoUrls: sent.videoUrl,
    });
    expect(sent.imageUrl).toHaveLength(1);
    expect(sent.videoUrl).toHaveLength(1);
    const body = calls("disputeReply").at(-1)!.body as Record<string, unknown>;
    expect(body).toMatchObject({ imageUrl: sent.imageUrl, videoUrl: sent.videoUrl });
    // Without attachments the reply names none.
    await reply({ text: "No files this time." });
    expect(Object.keys(calls("disputeReply").at(-1)!.body as object).sort()).toEqual([
      "disputeId",
      "messageText",
    ]);
  });

  it("a reply whose outcome is unknown keeps its lock: the same form sends nothing more", async () => {
    const disputeId = await theDispute();
    const row = await rowOf(disputeId);
    const sim = simDispute(row.svcDisputeId);
    const before = sim.messages.length;
    const form = { text: "Is anyone there?", clientKey: key() };
    f.svc.setFaults({
      ops: ["disputeReply", "getDisputeMessages"],
      rateTimeout: 1,
      timeoutMs: 2_500,
      timeoutDrop: true,
    });
    try {
      expect((await failure(reply(form))) as E.SvcError).toMatchObject({ outcomeUnknown: true });
    } finally {
      f.svc.clearFaults();
    }
    expect(await reply(form)).toEqual({ sent: false, already: true });
    expect(sim.messages.filter((m) => m.message === form.text)).toHaveLength(1);
    expect(sim.messages).toHaveLength(before + 1);
  });

  it("cancels at the service and notes it; a second cancel sends nothing", async () => {
    const o = await f.paidOrder();
    const { disputeId: id } = await openDispute(prisma, f.client, f.account, app.url, baseInput(o));
    const row = await rowOf(id);
    await cancelDispute(prisma, f.client, f.account, id);
    expect(simDispute(row.svcDisputeId).statusCode).toBe(700);
    const after = await rowOf(id);
    expect(after.status).toBe("Cancelled");
    expect(after.cancelledAt).not.toBeNull();
    const timeline = await prisma.timelineEntry.findMany({
      where: { orderId: o.id, step: "dispute" },
      orderBy: { id: "asc" },
    });
    expect(timeline.map((t) => [t.outcome, t.message])).toEqual([
      ["info", "Dispute opened: refund of 1 item(s), Item damaged."],
      ["info", `Dispute ${row.svcDisputeId} cancelled.`],
      ["info", `Dispute ${row.svcDisputeId} (order ${o.name}) is now Cancelled.`],
    ]);
    const cancels = calls("disputeCancel").length;
    await cancelDispute(prisma, f.client, f.account, id);
    expect(calls("disputeCancel")).toHaveLength(cancels);

    // A cancelled dispute takes no reply: the refusal removes the stand-in.
    const e = await failure(reply({ id, text: "Still there?" }));
    expect(e).toBeInstanceOf(E.SvcDisputeStateError);
    expect((await rowOf(id)).messages.map((m) => m.text)).toEqual(["The mug arrived broken."]);
  });

  it("a dispute cancelled elsewhere reads cancelled; a completed one is refused", async () => {
    const o = await f.paidOrder();
    const { disputeId: id } = await openDispute(prisma, f.client, f.account, app.url, baseInput(o));
    const row = await rowOf(id);
    // Cancelled on the service's site (or the first answer was lost): refused, then read.
    simDispute(row.svcDisputeId).statusCode = 700;
    await cancelDispute(prisma, f.client, f.account, id);
    const after = await rowOf(id);
    expect([after.status, after.cancelledAt !== null]).toEqual(["Cancelled", true]);

    const o2 = await f.paidOrder();
    const { disputeId: id2 } = await openDispute(
      prisma,
      f.client,
      f.account,
      app.url,
      baseInput(o2),
    );
    const row2 = await rowOf(id2);
    f.svc.setDisputeStatus(row2.svcDisputeId, 600, "Refunded.");
    const e = await failure(cancelDispute(prisma, f.client, f.account, id2));
    expect(e).toBeInstanceOf(E.SvcParamError);
    const after2 = await rowOf(id2);
    expect([after2.status, after2.cancelledAt]).toEqual(["Completed", null]);
    expect(
      await prisma.timelineEntry.count({
        where: { orderId: o2.id, message: { contains: "cancelled" } },
      }),
    ).toBe(0);
  });

  it("a cancel the service does not take for another reason is passed on, unread", async () => {
    const o = await f.paidOrder();
    const { disputeId: id } = await openDispute(prisma, f.client, f.account, app.url, baseInput(o));
    const lists = calls("getDisputeList").length;
    f.svc.setFaults({ ops: ["disputeCancel"], rateBusy: 1 });
    try {
      expect(await failure(cancelDispute(prisma, f.client, f.account, id))).toBeInstanceOf(
        E.SvcBusyError,
      );
    } finally {
      f.svc.clearFaults();
    }
    expect(calls("getDisputeList")).toHaveLength(lists);
    expect((await rowOf(id)).cancelledAt).toBeNull();
  });

  it("a dispute whose order is not known cannot be cancelled; one without a shop order is cancelled quietly", async () => {
    const orphan = await prisma.dispute.create({
      data: {
        shopDomain: SHOP,
        svcAccountId: f.account.id,
        svcDisputeId: "700999",
        status: "Pending processing",
        svcCreatedAt: new Date(),
      },
    });
    expect(await failure(cancelDispute(prisma, f.client, f.account, orphan.id))).toMatchObject({
      name: "DisputeInputError",
      message: "The dispute's order is not known yet.",
    });

    const o = await f.paidOrder();
    const { disputeId: id } = await openDispute(prisma, f.client, f.account, app.url, baseInput(o));
    await prisma.dispute.update({ where: { id }, data: { orderId: null } });
    await prisma.shopOrder.update({ where: { id: o.id }, data: { svcOrderId: null } });
    const entries = await prisma.timelineEntry.count();
    await cancelDispute(prisma, f.client, f.account, id);
    expect((await rowOf(id)).cancelledAt).not.toBeNull();
    expect(await prisma.timelineEntry.count()).toBe(entries);
  });

  it("refreshOne reads only a service id", async () => {
    const disputeId = await theDispute();
    const lists = calls("getDisputeList").length;
    for (const id of ["pending:bd-1", "12a", "a12", ""])
      await refreshOne(prisma, f.client, f.account, id);
    expect(calls("getDisputeList")).toHaveLength(lists);
    const row = await rowOf(disputeId);
    await prisma.dispute.update({ where: { id: disputeId }, data: { status: "Old" } });
    await refreshOne(prisma, f.client, f.account, row.svcDisputeId);
    expect(calls("getDisputeList")).toHaveLength(lists + 1);
    expect(calls("getDisputeList").at(-1)!.body).toMatchObject({
      disputeId: row.svcDisputeId,
      pageSize: "1",
    });
    expect((await rowOf(disputeId)).status).toBe("Pending processing");
  });
});

describe("runDisputeForm", () => {
  it("without a connected account, asks to connect one", async () => {
    let ran = false;
    expect(
      await runDisputeForm(prisma, "nobody.myshopify.com", "open", async () => {
        ran = true;
        return "done";
      }),
    ).toEqual({
      ok: false,
      intent: "open",
      errors: { form: "Connect a service account first (Settings)." },
    });
    expect(ran).toBe(false);
  });

  it("runs the use case with the shop's account and client, and says how it went", async () => {
    const seen: unknown[] = [];
    expect(
      await runDisputeForm(prisma, SHOP, "reply", async (client, account) => {
        seen.push(account, await client.disputes.list({ pageSize: 1 }).then(() => "listed"));
        return "Sent.";
      }),
    ).toEqual({ ok: true, intent: "reply", message: "Sent." });
    expect(seen).toEqual([f.account, "listed"]);
    expect(
      await runDisputeForm(prisma, SHOP, "open", async () => ({ message: "Opened.", id: "d1" })),
    ).toEqual({ ok: true, intent: "open", message: "Opened.", id: "d1" });
  });

  it("a refusal or a failure is an error by field, in the merchant's words", async () => {
    const fail = (intent: string, error: unknown) =>
      runDisputeForm(prisma, SHOP, intent, async () => {
        throw error;
      });
    expect(await fail("open", new DisputeInputError("Choose a line", "lines"))).toEqual({
      ok: false,
      intent: "open",
      errors: { lines: "Choose a line" },
    });
    const param = new E.SvcParamError({ operation: "disputes/create", message: "bad" });
    expect(await fail("open", param)).toEqual({
      ok: false,
      intent: "open",
      errors: { form: "The service refused it: disputes/create: bad" },
    });
    expect(await fail("check", new E.SvcServerError({ operation: "x", message: "503" }))).toEqual({
      ok: false,
      intent: "check",
      errors: { form: expect.stringMatching(/^The service is not answering now/) },
    });
    expect(await fail("open", new TypeError("boom"))).toEqual({
      ok: false,
      intent: "open",
      errors: { form: "The service could not be reached. Try again in a minute." },
    });
    expect(await fail("check", "a string")).toEqual({
      ok: false,
      intent: "check",
      errors: { form: expect.stringMatching(/^The service is not answering now/) },
    });
  });
});
