/**
 * The contract suite: every client operation against the service simulator, its success and
 * each error code the contract lists for it (server-side codes that the client's own checks
 * would refuse first are provoked through the transport with the same operation definition).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PNG_1PX, serveFiles } from "../helpers/file-server";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import * as E from "../../app/svc/errors";
import { AUTH_OPS } from "../../app/svc/auth.server";
import {
  receiveAuthorizationCode,
  startAuthorization,
} from "../../app/svc-account/authorize.server";
import { svcClientForAccount, type SvcClient } from "../../app/svc/client.server";
import { CATALOG_OPS } from "../../app/svc/catalog.server";
import { ORDER_OPS } from "../../app/svc/orders.server";
import { STORAGE_OPS } from "../../app/svc/storage.server";
import { DISPUTE_OPS } from "../../app/svc/disputes.server";
import { collect, iterateListV2 } from "../../app/svc/pagination";
import { closeSvcPools } from "../../app/svc/transport.server";
import { compareMoney, subtractMoney } from "../../app/svc/decimal";
import {
  accountFixture,
  expectCode,
  prisma,
  sampleOrder,
  simClock,
  startServiceSim,
  type Fixture,
  type ServiceSim,
} from "./sim-helpers";

let sim: ServiceSim;
let fx: Fixture;
let c: SvcClient;
let vid = "";
let pid = "";
const raw = z.unknown();

beforeAll(async () => {
  sim = await startServiceSim({ catalogSize: 60, allowLoopbackUploads: true });
  fx = await accountFixture(sim, {
    callsPerSecond: 50,
    queryCallsPerSecond: 50,
    balance: "500.00",
  });
  c = fx.client;
  const first = (await c.catalog.listV2({ size: 5 })).items[0]!.productList[0]!;
  pid = first.id!;
  const detail = await c.catalog.product({ pid });
  vid = detail.variants[0]!.vid!;
});
afterAll(async () => {
  await closeSvcPools();
  await sim.close();
});

let seq = 0;
const orderNo = (p = "CT") => `${p}-${Date.now().toString(36)}-${++seq}`;

async function createSandboxOrder(over: Record<string, unknown> = {}) {
  const r = await c.orders.createOrderV3(sampleOrder(orderNo(), vid, over));
  return r;
}
async function payOrders(orderIds: string[]) {
  await c.orders.addCart(orderIds);
  const confirm = await c.orders.addCartConfirm(orderIds);
  const parent = await c.orders.saveGenerateParentOrder(confirm.shipmentsId!);
  await c.payment.payBalanceV2(confirm.shipmentsId!, parent.payId ?? undefined);
  return { confirm, parent };
}

describe("contract: authentication (Part 1 §4.1–4.5, §6.3)", () => {
  it("getAccessToken: success returns a token record with dates; 1601000 for an unknown key", async () => {
    const fresh = sim.createAccount();
    const rec = await c.auth.getAccessToken(fresh.apiKey);
    expect(rec.openId).toBe(fresh.openId);
    expect(rec.accessToken).toMatch(/.+/);
    expect(rec.openId).toMatch(/^\d+$/);
    expect(rec.accessTokenExpiryDate).toBeInstanceOf(Date);
    expect(rec.refreshTokenExpiryDate!.getTime()).toBeGreaterThan(
      rec.accessTokenExpiryDate!.getTime(),
    );
    await expectCode(c.auth.getAccessToken("no-such-key"), 1601000, E.SvcAuthError);
  });

  it("refreshAccessToken: success without openId; 1600003 for an unknown refresh token", async () => {
    const stored = await c.tokens!.currentToken();
    expect(stored).toBeDefined();
    const rec0 = await prisma.svcAccount.findUniqueOrThrow({ where: { id: fx.accountId } });
    const { decryptSecret } = await import("../../app/crypto.server");
    const rec = await c.auth.refreshAccessToken(decryptSecret(rec0.refreshTokenEnc!));
    expect(rec.accessToken).toBe(stored);
    expect(rec.openId ?? undefined).toBeUndefined();
    await expectCode(c.auth.refreshAccessToken("RTnope"), 1600003, E.SvcAuthError);
  });

  it("logout: success invalidates the token; 1600001 with an invalid token", async () => {
    const other = await accountFixture(sim);
    const token = await other.client.tokens!.getToken();
    await other.client.logout();
    expect(await other.client.tokens!.currentToken()).toBeUndefined();
    await expectCode(other.client.auth.logout({ token }), 1600001, E.SvcAuthError);
    // The raw old token is refused by any operation.
    await expectCode(
      other.client.transport.call(ORDER_OPS.getBalance, { token }, raw),
      1600001,
      E.SvcAuthError,
    );
  });

  it("getAuthorizeUrl, code receiver, exchangeAccessToken: the affiliated flow; 1601000 for code and token", async () => {
    const received: unknown[] = [];
    const receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", async () => {
        const reply = await receiveAuthorizationCode(
          { prisma, partnerAuth: c.auth, baseUrl: sim.url, clock: simClock(sim) },
          JSON.parse(body),
        );
        received.push(reply);
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ result: reply.result, message: reply.message }));
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    const callbackUri = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/svc/code`;
    try {
      const { url, state } = await startAuthorization(
        { prisma, partnerAuth: c.auth, clock: simClock(sim) },
        {
          shopDomain: "affiliated.myshopify.com",
          callbackUri,
          redirectUri: "https://app.test/done",
          email: "aff@shop.test",
        },
      );
      expect(url).toMatch(/^http/);
      expect(state.length).toBeLessThanOrEqual(40);
      const stored = await prisma.authState.findUniqueOrThrow({ where: { state } });
      expect(stored.shopDomain).toBe("affiliated.myshopify.com");
      // The user logs in on the service's page; the service posts the code to the receiver.
      const res = await fetch(url, { method: "POST" });
      expect(res.status).toBeLessThan(400);
      expect(received).toEqual([
        expect.objectContaining({ result: "0", shopDomain: "affiliated.myshopify.com" }),
      ]);
      const account = await prisma.svcAccount.findUniqueOrThrow({
        where: { shopDomain: "affiliated.myshopify.com" },
      });
      expect(account.authMethod).toBe("authorizationCode");
      expect(account.accessTokenEnc).toMatch(/^v2\./);
      const affiliated = await svcClientForAccount(account.id, { prisma, clock: simClock(sim) });
      const balance = await affiliated.payment.getBalance();
      expect(balance.amount).toBeDefined();
      // Single use: the same state again is refused, and the code cannot be exchanged twice.
      const again = await receiveAuthorizationCode(
        { prisma, partnerAuth: c.auth, baseUrl: sim.url },
        { code: "x", state },
      );
      expect(again.result).not.toBe("0");
      // An affiliated merchant cannot start an authorization: 1601000.
      await expectCode(
        affiliated.auth.getAuthorizeUrl({ callbackUri, state: "s" }),
        1601000,
        E.SvcAuthError,
      );
    } finally {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    }
    await expectCode(c.auth.exchangeAccessToken("unknown-code"), 1601000, E.SvcAuthError);
  });

  it("code receiver: refuses unknown, expired and other-shop states", async () => {
    const deps = { prisma, partnerAuth: c.auth, baseUrl: sim.url, clock: simClock(sim) };
    expect((await receiveAuthorizationCode(deps, { code: "c", state: "nope" })).result).toBe("1");
    expect((await receiveAuthorizationCode(deps, { state: "nope" })).result).toBe("1");
    await prisma.authState.create({
      data: {
        state: "expired-state",
        shopDomain: "x.myshopify.com",
        expiresAt: new Date(sim.clock.now() - 1000),
      },
    });
    expect(
      (await receiveAuthorizationCode(deps, { code: "c", state: "expired-state" })).result,
    ).toBe("1");
    await prisma.authState.create({
      data: {
        state: "shop-state",
        shopDomain: "a.myshopify.com",
        expiresAt: new Date(sim.clock.now() + 60_000),
      },
    });
    expect(
      (
        await receiveAuthorizationCode(
          deps,
          { code: "c", state: "shop-state" },
          { expectedShop: "b.myshopify.com" },
        )
      ).result,
    ).toBe("1");
    expect(
      (await prisma.authState.findUniqueOrThrow({ where: { state: "shop-state" } })).usedAt,
    ).toBeNull();
  });
});

describe("contract: storage, inventory, photos, webhooks (Part 1 §4.6–4.9)", () => {
  it("warehouse/detail: success; 1608001 for an unknown id", async () => {
    const s = await c.warehouses.detail("STG-US-1");
    expect(s).toMatchObject({ id: "STG-US-1", areaCountryCode: "US" });
    expect(s.logisticsBrandList.length).toBeGreaterThan(0);
    await expectCode(c.warehouses.detail("STG-NOPE"), 1608001, E.SvcNotFoundError);
  });

  it("private inventory: the five queries (shape A pages and arrays)", async () => {
    const spu = await c.inventory.querySpuPage({ pageSize: 5 });
    expect(spu.items.length).toBeGreaterThan(0);
    expect(spu.total).toBeGreaterThanOrEqual(spu.items.length);
    const productId = spu.items[0]!.productId!;
    const skus = await c.inventory.querySkuListByProductId({ productId });
    expect(skus.length).toBeGreaterThan(0);
    const sku = skus[0]!.sku!;
    const details = await c.inventory.querySkuDetailPage({ sku });
    expect(details.items[0]).toMatchObject({ sku });
    const batches = await c.inventory.querySkuDetailListBySku({ sku });
    expect(Array.isArray(batches)).toBe(true);
    const flows = await c.inventory.querySkuFlowByCondition({ sku });
    expect(flows.items.length).toBeGreaterThan(0);
    expect(flows.items[0]!.createDate).toBeInstanceOf(Date);
  });

  it("querySkuFlowByCondition and syncStorehouseVideoRequests: 1600100", async () => {
    await expectCode(
      c.transport.call(STORAGE_OPS.querySkuFlowByCondition, { body: { clientVisible: 7 } }, raw),
      1600100,
      E.SvcParamError,
    );
    await expectCode(
      c.transport.call(STORAGE_OPS.syncStorehouseVideoRequests, { body: {} }, raw),
      1600100,
      E.SvcParamError,
    );
  });

  it("syncStorehouseVideoRequests: photos of paid orders", async () => {
    const o = await createSandboxOrder();
    await payOrders([o.orderId!]);
    const photos = await c.warehouses.orderPhotos([o.orderId!]);
    expect(photos[0]).toMatchObject({ orderId: o.orderId });
    expect(photos[0]!.pictureJson[0]!.url).toMatch(/^https?:.+\.jpg/);
  });

  it("webhook/set: success; 1607001 for a loopback address", async () => {
    expect(
      await c.webhooks.set({
        order: { type: "ENABLE", callbackUrls: ["https://app.example.com/webhooks/svc/abc"] },
      }),
    ).toBe(true);
    expect(await c.webhooks.set({ order: { type: "CANCEL", callbackUrls: [] } })).toBe(true);
    const e = await expectCode(
      c.webhooks.set({ logistics: { type: "ENABLE", callbackUrls: ["https://localhost/hook"] } }),
      1607001,
      E.SvcWebhookAddressError,
    );
    expect((e as Error).message.length).toBeGreaterThan(20);
  });
});

describe("contract: catalog and connections (Part 2)", () => {
  it("getCategory: the three-level tree", async () => {
    const tree = await c.catalog.categories();
    expect(tree[0]!.categoryFirstList[0]!.categorySecondList[0]!.categoryId).toMatch(/.+/);
  });

  it("listV2: shape A pages of product groups, iterated with the caps", async () => {
    const p = await c.catalog.listV2({ page: 1, size: 7, features: ["enable_category"] });
    expect(p.pageNumber).toBe(1);
    expect(p.items[0]!.productList.length).toBe(7);
    // Array parameters reach the service: features=enable_category adds the category names.
    expect((p.items[0]!.productList[0] as Record<string, unknown>).threeCategoryName).toEqual(
      expect.any(String),
    );
    expect(p.total).toBeGreaterThanOrEqual(7);
    const all = await collect(iterateListV2(c.catalog, {}, 25));
    expect(all.length).toBe(p.total);
    expect(new Set(all.map((x) => x.id)).size).toBe(all.length);
  });

  it("list (V1): shape B page with exact money", async () => {
    const p = await c.catalog.list({ pageNum: 1, pageSize: 5 });
    expect(p.items.length).toBe(5);
    expect(p.total).toBeGreaterThan(5);
    expect(p.items[0]!.sellPrice).toMatch(/^\d+\.\d{2,}$/);
  });

  it("globalWarehouseList: success (with `success`, maybe without `result`)", async () => {
    const w = await c.catalog.globalWarehouses();
    expect(w.length).toBeGreaterThan(0);
    expect(w[0]!.countryCode).toMatch(/^[A-Z]{2}$/);
  });

  it("product query, variants by product and by vid", async () => {
    const d = await c.catalog.product({ pid, features: ["enable_video"] });
    expect(d.pid).toBe(pid);
    expect(d.variants.length).toBeGreaterThan(0);
    const vs = await c.catalog.variants({ pid });
    expect(vs.map((v) => v.vid)).toContain(vid);
    const v = await c.catalog.variantByVid(vid);
    expect(v).toMatchObject({ vid, pid });
    expect(v.variantSellPrice).toMatch(/^\d+\.\d{2,}$/);
  });

  it("queryVideosByProductId: code 0 is success; 1600100 for an empty productId", async () => {
    const withVideo = (await c.catalog.listV2({ size: 50, productType: 10 })).items.flatMap(
      (g) => g.productList,
    )[0];
    const videos = await c.catalog.videos(withVideo?.id ?? pid);
    expect(Array.isArray(videos)).toBe(true);
    await expectCode(
      c.transport.call(CATALOG_OPS.queryVideosByProductId, { body: { productId: "" } }, raw),
      1600100,
      E.SvcParamError,
    );
  });

  it("addToMyProduct: success; 1600000 the second time, not retried", async () => {
    expect(await c.catalog.addToMyProduct(pid)).toBe(true);
    const before = sim.calls({ op: "addToMyProduct" }).length;
    await expectCode(c.catalog.addToMyProduct(pid), 1600000, E.SvcBusyError);
    expect(sim.calls({ op: "addToMyProduct" }).length).toBe(before + 1);
  });

  it("connections: create, list (total + list), delete", async () => {
    const platformProductId = `gid-prod-${Date.now()}`;
    expect(
      await c.connections.create({
        defaultArea: 1,
        logistics: "SvcPacket Ordinary",
        svcProductId: pid,
        platformProductId,
        variantList: [{ svcVariantId: vid, platformVariantId: `${platformProductId}-v1` }],
      }),
    ).toBe(true);
    const list = await c.connections.list({ platformProductId });
    expect(list.total).toBe(1);
    expect(list.items[0]).toMatchObject({ platformProductId, svcVariantId: vid });
    expect(await c.connections.delete({ platformProductId })).toBe(true);
    expect((await c.connections.list({ platformProductId })).total).toBe(0);
    await expectCode(
      c.transport.call(CATALOG_OPS.connectionCreate, { body: { platformProductId } }, raw),
      1600100,
      E.SvcParamError,
    );
  });
});

describe("contract: orders, payment, logistics (Part 3)", () => {
  it("createOrderV3: success; 1600100, 1603003 duplicate, 1605001 invalid logistics", async () => {
    const number = orderNo();
    const r = await c.orders.createOrderV3(
      sampleOrder(number, vid, { products: [{ vid, quantity: 2, unitPrice: "9.90" }] }),
    );
    expect(r.orderId).toMatch(/.+/);
    expect(r.orderNumber).toBe(number);
    expect(r.productInfoList[0]!.quantity).toBe(2);
    expect(r.orderAmount).toMatch(/^\d+\.\d{2}$/);
    await expectCode(
      c.orders.createOrderV3(sampleOrder(number, vid)),
      1603003,
      E.SvcDuplicateOrderError,
    );
    await expectCode(
      c.orders.createOrderV3(sampleOrder(orderNo(), vid, { logisticName: "Teleport" })),
      1605001,
      E.SvcLogisticsError,
    );
    await expectCode(
      c.orders.createOrderV3(
        sampleOrder(orderNo(), vid, { storeOrderTime: Math.floor(sim.clock.now() / 1000) + 3600 }),
      ),
      1600100,
      E.SvcParamError,
    );
    expect(
      sim.orders({ accountId: fx.simAccountId }).filter((o) => o.orderNumber === number),
    ).toHaveLength(1);
  });

  it("createOrderV3 store flow (orderFlow=2) with an unconnected shop variant", async () => {
    const r = await c.orders.createOrderV3(
      sampleOrder(orderNo("SF"), "shop-variant-1", {
        orderFlow: 2,
        products: [
          {
            vid: "shop-variant-1",
            storeProductId: "shop-product-1",
            storeLineItemId: "li-1",
            storeProductName: "Mug",
            quantity: 1,
            unitPrice: 5,
          },
        ],
      }),
    );
    expect(r.orderNumber).toMatch(/^SF-/);
  });

  it("createOrderV2: success with payType 3; 1600100", async () => {
    const r = await c.orders.createOrderV2({ ...sampleOrder(orderNo("V2"), vid), payType: 3 });
    expect(r.orderId).toMatch(/.+/);
    await expectCode(
      c.orders.createOrderV2({ ...sampleOrder(orderNo("V2"), vid), storeName: "not-my-store" }),
      1600100,
      E.SvcParamError,
    );
  });

  it("addCart, addCartConfirm, saveGenerateParentOrder, payBalanceV2: the paid chain; 1603001", async () => {
    const a = await createSandboxOrder();
    const b = await createSandboxOrder();
    const ids = [a.orderId!, b.orderId!];
    const cart = await c.orders.addCart(ids);
    expect(cart.successCount).toBe(2);
    const confirm = await c.orders.addCartConfirm(ids);
    expect(confirm.submitSuccess).toBe(true);
    expect(confirm.shipmentsId).toMatch(/.+/);
    const parent = await c.orders.saveGenerateParentOrder(confirm.shipmentsId!);
    expect(parent.orderMoney).toMatch(/^\d+\.\d{2}$/);
    await c.payment.payBalanceV2(confirm.shipmentsId!, parent.payId ?? undefined);
    const records = await c.orders.getOrderDetailBatch(ids);
    expect(records.map((r) => r.orderStatus)).toEqual(["UNSHIPPED", "UNSHIPPED"]);
    expect(records[0]!.subStatus).toMatch(/PENDING|PROCESSING/);
    await expectCode(c.orders.addCart(["SO-NOPE"]), 1603001, E.SvcCartError);
    await expectCode(c.orders.addCartConfirm(["SO-NOPE"]), 1603001, E.SvcCartError);
  });

  it("getBalance, payBalance, payBalanceV2: exact money; 1604000 when the balance is short", async () => {
    const poor = await accountFixture(sim, {
      balance: "0.05",
      callsPerSecond: 50,
      queryCallsPerSecond: 50,
    });
    const before = await poor.client.payment.getBalance();
    expect(before.amount).toBe("0.05");
    const o1 = await poor.client.orders.createOrderV3(
      sampleOrder(orderNo("P"), vid, { isSandbox: 0 }),
    );
    await expectCode(
      poor.client.payment.payBalance(o1.orderId!),
      1604000,
      E.SvcInsufficientBalanceError,
    );
    await poor.client.orders.addCart([o1.orderId!]);
    const confirm = await poor.client.orders.addCartConfirm([o1.orderId!]);
    await expectCode(
      poor.client.payment.payBalanceV2(confirm.shipmentsId!),
      1604000,
      E.SvcInsufficientBalanceError,
    );
    sim.setBalance(poor.simAccountId, "1000.00");
    const o2 = await poor.client.orders.createOrderV3(
      sampleOrder(orderNo("P"), vid, { isSandbox: 0 }),
    );
    await poor.client.payment.payBalance(o2.orderId!);
    const after = await poor.client.payment.getBalance();
    expect(after.amount).toBe(sim.getBalance(poor.simAccountId));
    expect(compareMoney(subtractMoney("1000.00", after.amount), o2.orderAmount!)).toBe(0);
  });

  it("updateLogistics: success before the cart; 8002 once paid; 803 for an unknown order", async () => {
    const o = await createSandboxOrder();
    const options = await c.logistics.optionalLogistics(o.orderId!);
    const usps = options.find((x) => x.logisticsName === "USPS")!;
    expect(usps.postage).toBe("3.99");
    const r = await c.logistics.updateLogistics({
      id: usps.id!,
      orderCode: o.orderId!,
      logisticsName: "USPS",
    });
    expect(r.interceptAbnormalReasons).toEqual([]);
    expect((await c.orders.findOrder(o.orderId!))!.logisticName).toBe("USPS");
    await payOrders([o.orderId!]);
    await expectCode(
      c.logistics.updateLogistics({
        id: 9001,
        orderCode: o.orderId!,
        logisticsName: "SvcPacket Ordinary",
      }),
      8002,
      E.SvcOrderStateError,
    );
    await expectCode(
      c.logistics.updateLogistics({ id: 9001, orderCode: "SO-NOPE" }),
      803,
      E.SvcNotFoundError,
    );
  });

  it("sandbox updateTrackNumber: success; 811, 819, 803", async () => {
    const o = await createSandboxOrder();
    await expectCode(
      c.logistics.updateSandboxTrackNumber(o.orderId!, "TRK1"),
      819,
      E.SvcOrderStateError,
    );
    await payOrders([o.orderId!]);
    expect(await c.logistics.updateSandboxTrackNumber(o.orderId!, "TRK1")).toBe(true);
    expect(await c.logistics.updateSandboxTrackNumber(o.orderId!, "TRK2")).toBe(true);
    expect((await c.orders.findOrder(o.orderId!))!.trackNumber).toBe("TRK2");
    const real = await c.orders.createOrderV3(sampleOrder(orderNo(), vid, { isSandbox: 0 }));
    await expectCode(
      c.logistics.updateSandboxTrackNumber(real.orderId!, "TRK"),
      811,
      E.SvcForbiddenError,
    );
    await expectCode(
      c.logistics.updateSandboxTrackNumber("SO-NOPE", "TRK"),
      803,
      E.SvcNotFoundError,
    );
  });

  it("getOrderDetailBatch: by id and orderNumber, unknown ids skipped; 1600300 over 100 ids", async () => {
    const o = await createSandboxOrder();
    const found = await c.orders.getOrderDetailBatch([o.orderId!, "SO-NOPE", o.orderNumber!]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ orderId: o.orderId, orderNum: o.orderNumber, isSandbox: 1 });
    expect(found[0]!.createDate).toBeInstanceOf(Date);
    const many = Array.from({ length: 101 }, (_, i) => `X${i}`);
    const e = await c.transport
      .call(ORDER_OPS.getOrderDetailBatch, { body: { orderIds: many } }, raw)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(E.SvcParamError);
    expect([1600300, 1600100]).toContain((e as E.SvcError).code);
    expect(await c.orders.getOrdersDetail([...many.slice(0, 60), o.orderId!], 20)).toHaveLength(1);
  });

  it("getProofOfDelivery: empty until delivered, then addresses; unknown ids absent", async () => {
    const o = await createSandboxOrder();
    await payOrders([o.orderId!]);
    expect(await c.orders.getProofOfDelivery([o.orderId!, "SO-NOPE"])).toEqual([
      { orderId: o.orderId, proofOfDeliveryList: [] },
    ]);
    sim.ship(o.orderId!, { trackNumber: "TRK-POD" });
    sim.deliver(o.orderId!);
    const pod = await c.orders.getProofOfDelivery([o.orderId!]);
    expect(pod[0]!.proofOfDeliveryList.length).toBeGreaterThan(0);
    const rec = await c.orders.findOrder(o.orderId!);
    expect(rec!.orderStatus).toBe("DELIVERED");
  });
});

describe("contract: disputes (Part 3 §4.13)", () => {
  let orderId = "";
  let disputeId = "";

  beforeAll(async () => {
    const o = await c.orders.createOrderV3(sampleOrder(orderNo("D"), vid, { isSandbox: 0 }));
    orderId = o.orderId!;
    await payOrders([orderId]);
    sim.ship(orderId);
    sim.deliver(orderId);
  });

  it("disputeProducts, disputeConfirmInfo, create, list, detail, messages, reply, cancel", async () => {
    const products = await c.disputes.products(orderId);
    const line = products.productInfoList[0]!;
    expect(line.canChoose).toBe(true);
    const info = await c.disputes.confirmInfo(orderId, [
      { lineItemId: line.lineItemId!, quantity: 1, price: line.price! },
    ]);
    expect(info.maxAmount).toMatch(/^\d+\.\d{2}$/);
    const reason = info.disputeReasonList[0]!.disputeReasonId!;
    const businessDisputeId = `B-${Date.now()}`;
    expect(
      await c.disputes.create({
        businessDisputeId,
        orderId,
        disputeReasonId: reason,
        expectType: 1,
        refundType: 1,
        messageText: "Arrived broken",
        productInfoList: [{ lineItemId: line.lineItemId!, quantity: 1, price: line.price! }],
      }),
    ).toBe(true);
    const list = await c.disputes.list({ orderId });
    expect(list.items).toHaveLength(1);
    disputeId = list.items[0]!.id;
    const detail = await c.disputes.detail(disputeId);
    expect(detail.id).toBe(disputeId);
    expect(await c.disputes.reply({ disputeId, messageText: "Photo attached" })).toBe(true);
    const messages = await c.disputes.messages(disputeId);
    expect(messages.some((m) => m.message === "Photo attached")).toBe(true);
    const once = await c.disputes.replyOnce({ disputeId, messageText: "Second" });
    expect(once.sent).toBe(true);
    expect(await c.disputes.cancel(orderId, disputeId)).toBe(true);
    // A cancelled dispute (700) accepts no message: 9063.
    await expectCode(
      c.disputes.reply({ disputeId, messageText: "still there?" }),
      9063,
      E.SvcDisputeStateError,
    );
  });

  it("getDisputeMessages and reply: 1005 for an unknown dispute", async () => {
    await expectCode(c.disputes.messagesPage("D-NOPE"), 1005, E.SvcNotFoundError);
    await expectCode(
      c.disputes.reply({ disputeId: "D-NOPE", messageText: "hello" }),
      1005,
      E.SvcNotFoundError,
    );
  });

  it("getDisputeList: windowed walk finds the dispute once", async () => {
    const { walkDisputes } = await import("../../app/svc/pagination");
    const now = sim.clock.now();
    const all = await collect(
      walkDisputes(c.disputes, now - 200 * 24 * 3600_000, now + 60_000, { pageSize: 10 }),
    );
    expect(all.filter((d) => d.id === disputeId)).toHaveLength(1);
  });

  it("uploadFile: a service-hosted address", async () => {
    const files = await serveFiles({ "/photo": { bytes: PNG_1PX } });
    const url = await c.disputes
      .uploadFile(`${files.url}/photo?sig=1`)
      .finally(() => files.close());
    expect(url).toMatch(/^https?:.+\.png$/);
    await expectCode(
      c.transport.call(DISPUTE_OPS.uploadFile, { body: {} }, raw),
      1600100,
      E.SvcParamError,
    );
  });
});

describe("contract: operations listed as codes only", () => {
  it("the auth operation definitions carry the contract's paths", () => {
    expect(AUTH_OPS.getAccessToken.path).toBe("/authentication/getAccessToken");
    expect(ORDER_OPS.getOrderDetailBatch.bucket).toBe("query");
    expect(ORDER_OPS.createOrderV3.retry).toBe("never");
    expect(ORDER_OPS.payBalanceV2.retry).toBe("never");
    expect(DISPUTE_OPS.reply.retry).toBe("never");
  });
});
