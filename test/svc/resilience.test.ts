/**
 * Shared limits, injected faults and secrets, against the simulator: three clients sharing one
 * account stay inside its limits; queries survive faults through retries; creation, payment
 * and dispute replies never run twice; no secret reaches an error or a log line.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { inspect } from "node:util";
import { decryptSecret } from "../../app/crypto.server";
import * as E from "../../app/svc/errors";
import { closeSvcPools } from "../../app/svc/transport.server";
import { subtractMoney, compareMoney } from "../../app/svc/decimal";
import {
  accountFixture,
  captureLogger,
  prisma,
  sampleOrder,
  startServiceSim,
  type ServiceSim,
} from "./sim-helpers";

let sim: ServiceSim;
let vid = "";
let seq = 0;
const orderNo = (p = "R") => `${p}-${Date.now().toString(36)}-${++seq}`;

beforeAll(async () => {
  sim = await startServiceSim({ catalogSize: 20 });
  const fx = await accountFixture(sim, { callsPerSecond: 20, queryCallsPerSecond: 20 });
  const pid = (await fx.client.catalog.listV2({ size: 1 })).items[0]!.productList[0]!.id!;
  vid = (await fx.client.catalog.variants({ pid }))[0]!.vid!;
});
afterAll(async () => {
  await closeSvcPools();
  await sim.close();
});
beforeEach(() => sim.clearFaults());

describe("shared rate limits", () => {
  it("three clients sharing one account keep to its limits, recover any refusal and finish their work once", async () => {
    const fx = await accountFixture(sim, { deps: { tokens: { waitForOtherMs: 5000 } } }); // 1/s and 2/s, the defaults
    const setup = await accountFixture(sim, { callsPerSecond: 20, queryCallsPerSecond: 20 });
    void setup;
    const clients = [fx.client, await fx.newClient(), await fx.newClient()];
    const t0 = Date.now();
    const work = clients.map(async (c, i) => {
      const out: unknown[] = [];
      out.push(await c.payment.getBalance());
      for (let k = 0; k < 3; k++) out.push(await c.orders.getOrderDetailBatch([`SO-${i}-${k}`]));
      out.push(await c.orders.getProofOfDelivery([`SO-${i}`]));
      return out;
    });
    const results = await Promise.all(work);
    const elapsed = Date.now() - t0;
    expect(results.flat()).toHaveLength(15);
    const calls = sim.calls({ accountId: fx.simAccountId });
    expect(calls.filter((c) => c.op === "getAccessToken")).toHaveLength(1);
    // Every call got through exactly once: a refusal (1600200) on a loaded machine is waited
    // out and repeated, never dropped or doubled.
    const accepted = calls.filter((c) => c.code !== 1600200);
    const count = (op: string) => accepted.filter((c) => c.op === op).length;
    expect([
      count("getBalance"),
      count("getOrderDetailBatch"),
      count("getProofOfDelivery"),
    ]).toEqual([3, 9, 3]);
    // 12 query calls at 2/s (shared by both query operations in the client) take a few seconds.
    expect(elapsed).toBeGreaterThan(4000);
  }, 60_000);
});

describe("injected faults", () => {
  it("queries succeed through retries of 5xx, 1600000 and 1600200", async () => {
    const fx = await accountFixture(sim, { callsPerSecond: 20, queryCallsPerSecond: 20 });
    await fx.client.payment.getBalance(); // token first
    sim.setFaults({
      rate5xx: 0.15,
      rateBusy: 0.1,
      rateLimited: 0.05,
      ops: ["getBalance", "getOrderDetailBatch", "listV2", "getCategory"],
      seed: 7,
    });
    for (let i = 0; i < 6; i++) {
      await fx.client.payment.getBalance();
      await fx.client.orders.getOrderDetailBatch(["SO-X"]);
      await fx.client.catalog.listV2({ size: 2 });
      await fx.client.catalog.categories();
    }
    const failed = sim
      .calls({ accountId: fx.simAccountId })
      .filter((c) => c.httpStatus >= 500 || c.code === 1600000 || c.code === 1600200);
    expect(failed.length).toBeGreaterThan(2);
  }, 60_000);

  it("queries survive a timeout (the late answer is abandoned, the retry succeeds)", async () => {
    const fx = await accountFixture(sim, {
      callsPerSecond: 20,
      queryCallsPerSecond: 20,
      deps: { timeoutMs: 300 },
    });
    await fx.client.payment.getBalance();
    sim.setFaults({ rateTimeout: 0.5, ops: ["getOrderDetailBatch"], timeoutMs: 1000, seed: 3 });
    for (let i = 0; i < 4; i++)
      expect(await fx.client.orders.getOrderDetailBatch(["SO-X"])).toEqual([]);
    expect(
      sim.calls({ op: "getOrderDetailBatch", accountId: fx.simAccountId }).length,
    ).toBeGreaterThan(4);
  }, 60_000);

  it("order creation after a timeout: found by orderNumber, never created twice", async () => {
    const fx = await accountFixture(sim, {
      callsPerSecond: 20,
      queryCallsPerSecond: 20,
      deps: { timeoutMs: 300 },
    });
    await fx.client.payment.getBalance();
    sim.setFaults({ rateTimeout: 1, ops: ["createOrderV3"], timeoutMs: 1000 });
    const number = orderNo("TO");
    const r = await fx.client.orders.createOrderSafely(sampleOrder(number, vid));
    expect(r.created).toBe(false);
    expect(r.existing?.orderNum).toBe(number);
    expect(sim.calls({ op: "createOrderV3", accountId: fx.simAccountId })).toHaveLength(1);
    expect(
      sim.orders({ accountId: fx.simAccountId }).filter((o) => o.orderNumber === number),
    ).toHaveLength(1);
    // A plain create under the same fault is not retried either.
    const e = (await fx.client.orders
      .createOrderV3(sampleOrder(orderNo("TO"), vid))
      .catch((x: unknown) => x)) as E.SvcError;
    expect(e).toBeInstanceOf(E.SvcTimeoutError);
    expect(e.outcomeUnknown).toBe(true);
    expect(sim.calls({ op: "createOrderV3", accountId: fx.simAccountId })).toHaveLength(2);
  }, 30_000);

  it("order creation under 5xx and busy replies: looked up, recreated at most once, one order at most", async () => {
    const fx = await accountFixture(sim, { callsPerSecond: 20, queryCallsPerSecond: 20 });
    await fx.client.payment.getBalance();
    sim.setFaults({ rate5xx: 1, ops: ["createOrderV3"] });
    const number = orderNo("5X");
    await expect(
      fx.client.orders.createOrderSafely(sampleOrder(number, vid)),
    ).rejects.toBeInstanceOf(E.SvcServerError);
    expect(sim.calls({ op: "createOrderV3", accountId: fx.simAccountId })).toHaveLength(2);
    expect(
      sim.calls({ op: "getOrderDetailBatch", accountId: fx.simAccountId }).length,
    ).toBeGreaterThanOrEqual(2);
    sim.setFaults({ rateBusy: 0.5, ops: ["createOrderV3"], seed: 11 });
    const numbers = Array.from({ length: 6 }, () => orderNo("BZ"));
    for (const n of numbers)
      await fx.client.orders.createOrderSafely(sampleOrder(n, vid)).catch(() => undefined);
    for (const n of numbers)
      expect(
        sim.orders({ accountId: fx.simAccountId }).filter((o) => o.orderNumber === n).length,
      ).toBeLessThanOrEqual(1);
    expect(
      sim.orders({ accountId: fx.simAccountId }).filter((o) => o.orderNumber === number),
    ).toHaveLength(0);
  }, 30_000);

  it("payment under a timeout or a busy reply is never sent twice; the balance is charged once", async () => {
    const fx = await accountFixture(sim, {
      callsPerSecond: 20,
      queryCallsPerSecond: 20,
      balance: "500.00",
      deps: { timeoutMs: 300 },
    });
    const c = fx.client;
    const o = await c.orders.createOrderV3(sampleOrder(orderNo("PAY"), vid, { isSandbox: 0 }));
    await c.orders.addCart([o.orderId!]);
    const confirm = await c.orders.addCartConfirm([o.orderId!]);
    const parent = await c.orders.saveGenerateParentOrder(confirm.shipmentsId!);
    sim.setFaults({ rateTimeout: 1, ops: ["payBalanceV2"], timeoutMs: 1000 });
    const e = (await c.payment
      .payBalanceV2(confirm.shipmentsId!, parent.payId ?? undefined)
      .catch((x: unknown) => x)) as E.SvcError;
    expect(e).toBeInstanceOf(E.SvcTimeoutError);
    expect(e.outcomeUnknown).toBe(true);
    expect(sim.calls({ op: "payBalanceV2", accountId: fx.simAccountId })).toHaveLength(1);
    sim.clearFaults();
    // The caller checks before paying again: the order is already paid.
    const rec = await c.orders.findOrder(o.orderId!);
    expect(rec!.orderStatus).toBe("UNSHIPPED");
    expect(
      compareMoney(subtractMoney("500.00", sim.getBalance(fx.simAccountId)), o.orderAmount!),
    ).toBe(0);
    // payBalance under a busy reply: one call, an error, no charge.
    const o2 = await c.orders.createOrderV3(sampleOrder(orderNo("PAY"), vid, { isSandbox: 0 }));
    const before = sim.getBalance(fx.simAccountId);
    sim.setFaults({ rateBusy: 1, ops: ["payBalance"] });
    await expect(c.payment.payBalance(o2.orderId!)).rejects.toBeInstanceOf(E.SvcBusyError);
    expect(sim.calls({ op: "payBalance", accountId: fx.simAccountId })).toHaveLength(1);
    expect(sim.getBalance(fx.simAccountId)).toBe(before);
  }, 30_000);

  it("a dispute reply after a timeout is checked against the messages, not resent", async () => {
    const fx = await accountFixture(sim, {
      callsPerSecond: 20,
      queryCallsPerSecond: 20,
      deps: { timeoutMs: 300 },
    });
    const c = fx.client;
    const o = await c.orders.createOrderV3(sampleOrder(orderNo("DR"), vid, { isSandbox: 0 }));
    await c.orders.addCart([o.orderId!]);
    const confirm = await c.orders.addCartConfirm([o.orderId!]);
    await c.payment.payBalanceV2(confirm.shipmentsId!);
    sim.ship(o.orderId!);
    sim.deliver(o.orderId!);
    const line = (await c.disputes.products(o.orderId!)).productInfoList[0]!;
    const info = await c.disputes.confirmInfo(o.orderId!, [
      { lineItemId: line.lineItemId!, quantity: 1, price: line.price! },
    ]);
    await c.disputes.create({
      businessDisputeId: `BD-${seq}`,
      orderId: o.orderId!,
      disputeReasonId: info.disputeReasonList[0]!.disputeReasonId!,
      expectType: 1,
      refundType: 1,
      messageText: "Broken",
      productInfoList: [{ lineItemId: line.lineItemId!, quantity: 1, price: line.price! }],
    });
    const disputeId = (await c.disputes.list({ orderId: o.orderId! })).items[0]!.id;
    sim.setFaults({ rateTimeout: 1, ops: ["disputeReply"], timeoutMs: 1000 });
    const r = await c.disputes.replyOnce({ disputeId, messageText: "Any news?" });
    expect(r).toEqual({ sent: false, alreadyThere: true });
    const replies = sim
      .calls({ accountId: fx.simAccountId })
      .filter((x) => x.path.endsWith("/disputes/reply"));
    expect(replies).toHaveLength(1);
    sim.clearFaults();
    expect(
      (await c.disputes.messages(disputeId)).filter((m) => m.message === "Any news?"),
    ).toHaveLength(1);
  }, 30_000);
});

describe("secrets", () => {
  it("never appear in errors or log lines, through a whole flow with failures", async () => {
    const { lines, logger } = captureLogger();
    const fx = await accountFixture(sim, {
      callsPerSecond: 20,
      queryCallsPerSecond: 20,
      deps: { logger, timeoutMs: 300 },
    });
    const c = fx.client;
    const errors: unknown[] = [];
    await c.payment.getBalance();
    const row = await prisma.svcAccount.findUniqueOrThrow({ where: { id: fx.accountId } });
    const secrets = [
      fx.apiKey,
      decryptSecret(row.accessTokenEnc!),
      decryptSecret(row.refreshTokenEnc!),
    ];
    errors.push(await c.auth.getAccessToken(fx.apiKey).catch((x: unknown) => x)); // 1600200 within 5 minutes
    errors.push(await c.auth.refreshAccessToken("RT-bogus-value-123").catch((x: unknown) => x));
    errors.push(await c.warehouses.detail("nope").catch((x: unknown) => x));
    sim.setFaults({ rate5xx: 1, ops: ["getBalance"] });
    errors.push(await c.payment.getBalance().catch((x: unknown) => x));
    sim.setFaults({ rateTimeout: 1, ops: ["createOrderV3"], timeoutMs: 800 });
    errors.push(
      await c.orders.createOrderV3(sampleOrder(orderNo("S"), vid)).catch((x: unknown) => x),
    );
    sim.clearFaults();
    await c.logout();
    errors.push(
      await c.transport
        .call(
          {
            name: "getBalance",
            method: "GET",
            path: "/shopping/pay/getBalance",
            auth: "token",
            bucket: "default",
            retry: "safe",
          },
          { token: secrets[1] },
          (await import("zod")).z.unknown(),
        )
        .catch((x: unknown) => x),
    );
    expect(errors.every((e) => e instanceof E.SvcError)).toBe(true);
    expect(lines.length).toBeGreaterThan(5);
    const text = [
      ...lines,
      ...errors.map(
        (e) =>
          `${String(e)} ${(e as Error).stack} ${JSON.stringify(e)} ${inspect(e, { depth: 6, showHidden: true })}`,
      ),
    ].join("\n");
    for (const s of secrets) expect(text).not.toContain(s);
    expect(text).not.toContain("RT-bogus-value-123");
  }, 30_000);
});
