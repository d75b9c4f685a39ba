import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceSim, type ServiceSim } from "./index";
import { formatMoney } from "./money";
import { client, orderBody, variants, type Client } from "./test-helpers";

let sim: ServiceSim;
beforeAll(async () => {
  sim = await startServiceSim({ catalogSize: 60 });
});
afterAll(() => sim.close());

async function createOrders(
  c: Client,
  prefix: string,
  n: number,
  extra: Record<string, unknown> = {},
): Promise<string[]> {
  const vs = variants(sim, n);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await c.post(
      "/shopping/order/createOrderV3",
      orderBody(`${prefix}-${i}`, [{ vid: vs[i]?.vid, quantity: i + 1 }], extra),
    );
    expect(res.code).toBe(200);
    ids.push(res.data.orderId as string);
  }
  return ids;
}

async function toShipment(
  c: Client,
  ids: string[],
): Promise<{ shipmentOrderId: string; payId: string; payAmount: string }> {
  expect((await c.post("/shopping/order/addCart", { svcOrderIdList: ids })).data.successCount).toBe(
    ids.length,
  );
  const confirm = await c.post("/shopping/order/addCartConfirm", { svcOrderIdList: ids });
  expect(confirm.data).toMatchObject({
    successCount: ids.length,
    submitSuccess: true,
    interceptOrders: [],
  });
  const parent = await c.post("/shopping/order/saveGenerateParentOrder", {
    shipmentOrderId: confirm.data.shipmentsId,
  });
  expect(parent.code).toBe(200);
  expect(parent.data.shipmentOrderId).toBe(confirm.data.shipmentsId);
  expect(parent.data.payId).toEqual(expect.any(String));
  return parent.data as { shipmentOrderId: string; payId: string; payAmount: string };
}

const sum = (ids: string[]) => ids.reduce((a, id) => a + (sim.order(id)?.orderAmount ?? 0n), 0n);

describe("cart, parent order and balance payment", () => {
  it("pays N orders with one parent order and deducts the exact amount, once", async () => {
    const c = await client(sim, { balance: "1000.07" });
    const ids = await createOrders(c, "P", 3);
    const parent = await toShipment(c, ids);
    const due = sum(ids);
    expect(parent.payAmount).toBe(formatMoney(due));

    const pay = await c.post("/shopping/pay/payBalanceV2", {
      shipmentOrderId: parent.shipmentOrderId,
      payId: parent.payId,
    });
    expect(pay).toMatchObject({ code: 200, data: null });
    expect(sim.getBalance(c.accountId)).toBe(formatMoney(100007n - due));
    for (const id of ids) expect(sim.order(id)?.status).toBe("UNSHIPPED");

    // Paying again must not deduct again.
    expect(
      (await c.post("/shopping/pay/payBalanceV2", { shipmentOrderId: parent.shipmentOrderId }))
        .code,
    ).toBe(200);
    expect(sim.getBalance(c.accountId)).toBe(formatMoney(100007n - due));
    const balance = await c.get("/shopping/pay/getBalance");
    expect(balance.data.amount).toBe(Number(formatMoney(100007n - due)));

    const detail = await c.post("/shopping/order/getOrderDetailBatch", { orderIds: ids });
    expect(
      detail.data.map((o: { orderStatus: string; subStatus: string }) => [
        o.orderStatus,
        o.subStatus,
      ]),
    ).toEqual(ids.map(() => ["UNSHIPPED", "PENDING"]));
    sim.clock.advance(3_600_000);
    const later = await c.post("/shopping/order/getOrderDetailBatch", {
      orderIds: ids.slice(0, 1),
    });
    expect(later.data[0].subStatus).toBe("PROCESSING");
  });

  it("answers 1604000 on a short balance and changes nothing", async () => {
    const c = await client(sim, { balance: "1.00" });
    const ids = await createOrders(c, "S", 2);
    const parent = await toShipment(c, ids);
    const pay = await c.post("/shopping/pay/payBalanceV2", {
      shipmentOrderId: parent.shipmentOrderId,
    });
    expect(pay.code).toBe(1604000);
    expect(pay.data).toBeNull();
    expect(sim.getBalance(c.accountId)).toBe("1.00");
    for (const id of ids) expect(sim.order(id)?.status).toBe("UNPAID");

    // Top up to exactly the amount due: the balance reaches zero.
    sim.setBalance(c.accountId, formatMoney(sum(ids)));
    expect(
      (await c.post("/shopping/pay/payBalanceV2", { shipmentOrderId: parent.shipmentOrderId }))
        .code,
    ).toBe(200);
    expect(sim.getBalance(c.accountId)).toBe("0.00");
  });

  it("payBalance pays a single order, refuses a multi-order parent, and never pays twice", async () => {
    const c = await client(sim, { balance: "500.00" });
    const [single] = await createOrders(c, "PB", 1);
    const due = sum([single ?? ""]);
    expect((await c.post("/shopping/pay/payBalance", { orderId: single })).code).toBe(200);
    expect((await c.post("/shopping/pay/payBalance", { orderId: single })).code).toBe(200);
    expect(sim.getBalance(c.accountId)).toBe(formatMoney(50000n - due));

    const pair = await createOrders(c, "PB2", 2);
    await toShipment(c, pair);
    expect((await c.post("/shopping/pay/payBalance", { orderId: pair[0] })).code).toBe(1603101);
    expect((await c.post("/shopping/pay/payBalance", { orderId: "SO-unknown" })).code).toBe(803);
  });

  it("the console pays a confirmed order's whole parent once (admin API), and nothing unconfirmed", async () => {
    const c = await client(sim, { balance: "500.00" });
    const ids = await createOrders(c, "CON", 2);
    const [lone] = await createOrders(c, "CON-LONE", 1);
    expect(() => sim.payInConsole(lone!)).toThrow(/not in a parent order/);
    await c.post("/shopping/order/addCart", { svcOrderIdList: ids });
    await c.post("/shopping/order/addCartConfirm", { svcOrderIdList: ids });
    const res = await fetch(`${sim.url}/__sim/orders/${ids[0]}/console-pay`, { method: "POST" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe("UNSHIPPED");
    expect(sim.order(ids[1]!)?.status).toBe("UNSHIPPED");
    sim.payInConsole(ids[1]!);
    expect(sim.getBalance(c.accountId)).toBe(formatMoney(50000n - sum(ids)));
    expect(sim.order(lone!)?.status).toBe("CREATED");
  });

  it("sandbox orders are not charged and cannot share a parent with normal orders", async () => {
    const c = await client(sim, { balance: "10.00" });
    const sandbox = await createOrders(c, "SB", 2, { isSandbox: 1 });
    const parent = await toShipment(c, sandbox);
    expect(
      (await c.post("/shopping/pay/payBalanceV2", { shipmentOrderId: parent.shipmentOrderId }))
        .code,
    ).toBe(200);
    expect(sim.getBalance(c.accountId)).toBe("10.00");
    expect(sim.order(sandbox[0] ?? "")?.paid).toBe(true);

    const [normal] = await createOrders(c, "NM", 1);
    const [sb] = await createOrders(c, "SB2", 1, { isSandbox: 1 });
    await c.post("/shopping/order/addCart", { svcOrderIdList: [normal, sb] });
    const mixed = await c.post("/shopping/order/addCartConfirm", { svcOrderIdList: [normal, sb] });
    expect(mixed.code).toBe(1603001);
  });

  it("intercepts orders at confirmation with reasons and confirms the rest", async () => {
    const c = await client(sim, { balance: "100.00" });
    const [good] = await createOrders(c, "IC", 1);
    const [, v] = variants(sim, 2);
    const bad = await c.post(
      "/shopping/order/createOrderV3",
      orderBody("IC-PO", [{ vid: v?.vid, quantity: 1 }], { shippingAddress: "PO Box 12" }),
    );
    const ids = [good, bad.data.orderId as string];
    await c.post("/shopping/order/addCart", { svcOrderIdList: ids });
    const confirm = await c.post("/shopping/order/addCartConfirm", { svcOrderIdList: ids });
    expect(confirm.data.successCount).toBe(1);
    expect(confirm.data.interceptOrders).toEqual([bad.data.orderId]);
    expect(confirm.data.interceptOrderReasons[0].message).toContain("PO Box");
    expect(sim.order(good ?? "")?.shipmentOrderId).toBe(confirm.data.shipmentsId);

    const none = await c.post("/shopping/order/addCart", { svcOrderIdList: ["SO-unknown"] });
    expect(none.code).toBe(1603001);
  });

  it("createOrderV2 with payType 2 pays in the same call", async () => {
    const c = await client(sim, { balance: "300.00" });
    const [v] = variants(sim, 1);
    const res = await c.post(
      "/shopping/order/createOrderV2",
      orderBody("V2-1", [{ vid: v?.vid, quantity: 1 }], { payType: 2 }),
    );
    expect(res.data.orderStatus).toBe("UNSHIPPED");
    expect(res.data.shipmentOrderId).toEqual(expect.any(String));
    expect(sim.getBalance(c.accountId)).toBe(
      formatMoney(30000n - (sim.order("V2-1")?.orderAmount ?? 0n)),
    );
  });
});

describe("logistics and sandbox tracking", () => {
  it("updateLogistics changes a cart order and answers 8002 once paid", async () => {
    const c = await client(sim, { balance: "300.00" });
    const [id] = await createOrders(c, "UL", 1);
    const before = sim.order(id ?? "")?.postageAmount;
    // The ids come from the order's optional logistics, for this order only.
    expect(
      (await c.post("/shopping/order/updateLogistics", { id: 9003, orderCode: id })).code,
    ).toBe(1605001);
    const options = (await c.post("/shopping/order/getOptionalLogistics", { svcOrderId: id }))
      .data as Array<{ id: number; logisticsName: string; postage: number }>;
    expect(options.map((o) => o.logisticsName)).toEqual([
      "SvcPacket Ordinary",
      "SvcPacket Sensitive",
      "Express Air",
      "USPS",
    ]);
    const express = options.find((o) => o.logisticsName === "Express Air")!;
    const ok = await c.post("/shopping/order/updateLogistics", {
      id: express.id,
      orderCode: id,
      logisticsName: "Express Air",
    });
    expect(ok.code).toBe(200);
    expect(sim.order(id ?? "")?.logisticName).toBe("Express Air");
    expect(sim.order(id ?? "")?.postageAmount).not.toBe(before);
    expect(
      (
        await c.post("/shopping/order/updateLogistics", {
          id: express.id,
          orderCode: id,
          logisticsName: "USPS",
        })
      ).code,
    ).toBe(1605001);
    await c.post("/shopping/pay/payBalance", { orderId: id });
    expect(
      (await c.post("/shopping/order/updateLogistics", { id: 9004, orderCode: id })).code,
    ).toBe(8002);
  });

  it("updateTrackNumber: 811, 818, 819, length 64, and success read back from the query", async () => {
    const c = await client(sim, { balance: "300.00" });
    const other = await client(sim);
    const [normal] = await createOrders(c, "TN", 1);
    const [sb] = await createOrders(c, "TNS", 1, { isSandbox: 1 });
    const track = (cl: Client, orderId: string | undefined, trackNumber = "TRACK-1") =>
      cl.post("/shopping/sandbox/updateTrackNumber", { orderId, trackNumber });
    expect((await track(c, normal)).code).toBe(811);
    expect((await track(c, sb)).code).toBe(819);
    expect((await track(c, sb)).message).toContain("UNPAID");
    expect((await track(other, sb)).code).toBe(818);
    expect((await track(c, "SO-none")).code).toBe(803);
    await c.post("/shopping/pay/payBalance", { orderId: sb });
    expect((await track(c, sb, "x".repeat(65))).code).toBe(1600100);
    expect((await track(c, sb, "x".repeat(64))).code).toBe(200);
    expect((await track(c, sb, "LAST-WINS")).code).toBe(200);
    const q = await c.post("/shopping/order/getOrderDetailBatch", { orderIds: [sb] });
    expect(q.data[0]).toMatchObject({
      trackNumber: "LAST-WINS",
      orderStatus: "SHIPPED",
      isSandbox: 1,
    });
  });
});
