import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceSim, type ServiceSim } from "./index";
import { client, orderBody, variants, type Client } from "./test-helpers";
import { PNG_1PX, serveFiles } from "../../helpers/file-server";

let sim: ServiceSim;
beforeAll(async () => {
  sim = await startServiceSim({ catalogSize: 30 });
});
afterAll(() => sim.close());

async function paidOrder(c: Client, number: string, quantity = 2): Promise<string> {
  const [v] = variants(sim, 1);
  const res = await c.post(
    "/shopping/order/createOrderV3",
    orderBody(number, [{ vid: v?.vid, quantity }]),
  );
  expect((await c.post("/shopping/pay/payBalance", { orderId: res.data.orderId })).code).toBe(200);
  return res.data.orderId as string;
}

describe("disputes", () => {
  it("runs products → confirm info → create → list → detail → messages → reply → cancel", async () => {
    const c = await client(sim, { balance: "500.00" });
    const orderId = await paidOrder(c, "D-1");
    const products = await c.get("/disputes/disputeProducts", { orderId });
    expect(products.code).toBe(200);
    const line = products.data.productInfoList[0];
    expect(line).toMatchObject({ canChoose: true, quantity: 2 });

    const info = await c.post("/disputes/disputeConfirmInfo", {
      orderId,
      productInfoList: [{ lineItemId: line.lineItemId, quantity: 1, price: line.price }],
    });
    expect(info.data.maxProductPrice).toBe(line.price);
    expect(info.data.expectResultOptionList).toEqual(["1", "2"]);
    const reasonId = info.data.disputeReasonList[0].disputeReasonId as number;

    const create = {
      businessDisputeId: "biz-1",
      orderId,
      disputeReasonId: reasonId,
      expectType: 1,
      refundType: 1,
      messageText: "Arrived broken",
      productInfoList: [{ lineItemId: line.lineItemId, quantity: 1, price: line.price }],
    };
    expect(await c.post("/disputes/create", create)).toMatchObject({ code: 200, data: true });
    expect((await c.post("/disputes/create", create)).code).toBe(1600100); // businessDisputeId reused

    const after = await c.get("/disputes/disputeProducts", { orderId });
    expect(after.data.productInfoList[0]).toMatchObject({ canChoose: false, quantity: 1 });

    const list = await c.get("/disputes/getDisputeList", { orderId });
    expect(list.data).toMatchObject({ pageNum: 1, total: 1 });
    const dispute = list.data.list[0];
    expect(dispute).toMatchObject({ status: "Pending processing", money: line.price });
    expect(typeof dispute.createDate).toBe("number");
    expect((await c.get("/disputes/getDisputeList", { status: "700" })).data.total).toBe(0);

    const detail = await c.get("/disputes/getDisputeDetail", { disputeId: dispute.id });
    expect(detail.data).toMatchObject({ id: dispute.id, refundAmount: line.price });

    expect(
      (
        await c.post("/disputes/reply", {
          disputeId: dispute.id,
          messageText: "Photos attached 📷",
        })
      ).data,
    ).toBe(true);
    expect(
      (await c.post("/disputes/reply", { disputeId: dispute.id, messageText: "   " })).code,
    ).toBe(1600100);
    const messages = await c.post("/disputes/getDisputeMessages", {
      disputeId: dispute.id,
      pageSize: 50,
    });
    expect(messages.data.list.map((m: { message: string }) => m.message)).toEqual([
      "Arrived broken",
      "Photos attached ",
    ]);
    expect(
      (await c.post("/disputes/getDisputeMessages", { disputeId: dispute.id, pageSize: 51 })).code,
    ).toBe(1600100);

    expect((await c.post("/disputes/cancel", { orderId, disputeId: dispute.id })).data).toBe(true);
    const reply = await c.post("/disputes/reply", {
      disputeId: dispute.id,
      messageText: "still there?",
    });
    expect(reply.code).toBe(9063);
  });

  it("answers 1005 for disputes of other accounts, and checks the list window", async () => {
    const c = await client(sim, { balance: "500.00" });
    const other = await client(sim);
    const orderId = await paidOrder(c, "D-2", 1);
    const products = await c.get("/disputes/disputeProducts", { orderId });
    const line = products.data.productInfoList[0];
    await c.post("/disputes/create", {
      businessDisputeId: "biz-2",
      orderId,
      disputeReasonId: 1,
      expectType: 2,
      refundType: 1,
      messageText: "x",
      productInfoList: [{ lineItemId: line.lineItemId, quantity: 1, price: line.price }],
    });
    const id = (await c.get("/disputes/getDisputeList")).data.list[0].id as string;
    expect((await other.get("/disputes/getDisputeDetail", { disputeId: id })).code).toBe(1005);
    expect((await other.post("/disputes/getDisputeMessages", { disputeId: id })).code).toBe(1005);
    expect((await other.post("/disputes/reply", { disputeId: id, messageText: "hi" })).code).toBe(
      1005,
    );

    const now = sim.clock.now();
    expect(
      (await c.get("/disputes/getDisputeList", { startDate: now - 91 * 86_400_000, endDate: now }))
        .code,
    ).toBe(1600100);
    expect((await c.get("/disputes/getDisputeList", { startDate: now - 86_400_000 })).code).toBe(
      1600100,
    );
    expect(
      (await c.get("/disputes/getDisputeList", { startDate: now - 86_400_000, endDate: now + 1 }))
        .data.total,
    ).toBe(1);

    // Support moves it to "customer confirmation" (500): replies are refused there, accepted when completed (600).
    sim.setDisputeStatus(id, 500, "Please confirm");
    expect((await c.post("/disputes/reply", { disputeId: id, messageText: "ok" })).code).toBe(9063);
    sim.setDisputeStatus(id, 600);
    expect((await c.post("/disputes/reply", { disputeId: id, messageText: "thanks" })).code).toBe(
      200,
    );
  });

  it("uploadFile accepts public addresses only", async () => {
    const c = await client(sim);
    for (const fileUrl of [
      "http://127.0.0.1/a.png",
      "http://localhost:8080/a.png",
      "https://user:pw@cdn.example.com/a.png",
      "https://cdn.example.com:8443/a.png",
      "ftp://cdn.example.com/a.png",
      "http://192.168.1.5/a.png",
    ]) {
      expect((await c.post("/disputes/uploadFile", { fileUrl })).code, fileUrl).toBe(1600100);
    }
    expect(
      (
        await c.post("/disputes/uploadFile", {
          fileUrl: `https://cdn.example.com/${"a".repeat(2000)}`,
        })
      ).code,
    ).toBe(1600100);
  });

  it("uploadFile downloads the source, detects its type from content, and keeps a copy", async () => {
    const open = await startServiceSim({ catalogSize: 5, allowLoopbackUploads: true });
    const files = await serveFiles({
      "/signed": { bytes: PNG_1PX, type: "application/octet-stream" },
      "/hop1": { redirect: "/signed" },
      "/r1": { redirect: "/r2" },
      "/r2": { redirect: "/r3" },
      "/r3": { redirect: "/r4" },
      "/r4": { redirect: "/signed" },
      "/text": { bytes: Buffer.from("not an image"), type: "image/png" },
      "/gone": { status: 410 },
      "/big": { bytes: Buffer.concat([PNG_1PX, Buffer.alloc(10 * 1024 * 1024)]) },
    });
    try {
      const c = await client(open);
      const ok = await c.post("/disputes/uploadFile", { fileUrl: `${files.url}/hop1?sig=abc` });
      expect(ok.code).toBe(200);
      expect(ok.data).toMatch(/\/__files\/u\/[0-9a-f]{24}\.png$/);
      expect(open.uploadFetches()).toEqual([`${files.url}/signed`]);
      // The copy is the source's bytes and stays while the service's own links expire.
      open.expireFileLinks();
      const copy = await fetch(ok.data as string);
      expect(copy.status).toBe(200);
      expect(Buffer.from(await copy.arrayBuffer()).equals(PNG_1PX)).toBe(true);
      for (const [path, why] of [
        ["/r1", /more than 3 times/],
        ["/text", /type is not supported/],
        ["/gone", /HTTP 410/],
        ["/big", /larger than 10 MB/],
      ] as const) {
        const r = await c.post("/disputes/uploadFile", { fileUrl: `${files.url}${path}` });
        expect(r.code, path).toBe(1600100);
        expect(r.message, path).toMatch(why);
      }
    } finally {
      await files.close();
      await open.close();
    }
  });
});
