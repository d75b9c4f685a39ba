/**
 * The payment call answering late, after the client gave up (kept out of the mutation runs of
 * app/fulfilment/pay/: it waits for the client's time-out, and the dropped reply of pay-batches
 * exercises the same code). The payment is made at most once in effect by the pipeline itself
 * (pay-once.server.ts); there is no second "pay once" in the service client.
 */
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { type ServiceSim, startServiceSim } from "../sim/service/index";
import { balanceCents, batchOf, batchOfTwo, calls, reloadAll, svcOrder } from "./pay-helpers";

let svc: ServiceSim;
beforeAll(async () => {
  svc = await startServiceSim();
});
afterAll(async () => svc?.close());
afterEach(() => svc.clearFaults());

it("answers late, after the client gave up: confirmed by a query, paid once", async () => {
  const { shop, orders, start, amount } = await batchOfTwo(svc, { clientTimeoutMs: 1500 });
  svc.setFaults({ rateTimeout: 1, ops: ["payBalanceV2"], timeoutMs: 3000 });
  expect(await shop.run()).toMatchObject({ batchesPaid: 1, ordersPaid: 2 });
  for (const r of await reloadAll(orders)) expect(r.state).toBe("PAID");
  expect(balanceCents(svc, shop)).toBe(start - amount);
  expect(calls(svc, shop, "payBalanceV2")).toBe(1);
});

it("a timed-out payment is checked, not repeated; a paid batch is not paid again; a 5xx is not retried", async () => {
  const { shop, orders, start, amount, untouched } = await batchOfTwo(svc, {
    clientTimeoutMs: 300,
  });
  // The service takes the payment and answers after the client gave up.
  svc.setFaults({ rateTimeout: 1, ops: ["payBalanceV2"], timeoutMs: 1000 });
  expect(await shop.run()).toEqual({ batchesPaid: 1, ordersPaid: 2, held: 0, failed: 0 });
  for (const r of await reloadAll(orders)) {
    expect(r.state).toBe("PAID");
    expect(r.timeline.at(-1)!.message).toMatch(
      /, confirmed by a query after an unknown outcome\.$/,
    );
  }
  svc.clearFaults();
  // Run again: the paid batch is done, nothing is paid twice.
  expect(await shop.run()).toEqual({ batchesPaid: 0, ordersPaid: 0, held: 0, failed: 0 });
  expect(calls(svc, shop, "payBalanceV2")).toBe(1);
  expect(balanceCents(svc, shop)).toBe(start - amount);

  // A payment that never ran (5xx before the operation): reported, the batch waits, not retried.
  const more = await svcOrder(svc, shop);
  svc.setFaults({ rate5xx: 1, ops: ["payBalanceV2"] });
  await expect(shop.run()).rejects.toThrow(/payBalanceV2/);
  expect((await reloadAll([more]))[0]!.state).toBe("PAYING");
  expect((await batchOf(more)).state).toBe("paying");
  expect(calls(svc, shop, "payBalanceV2")).toBe(2);
  expect(balanceCents(svc, shop)).toBe(start - amount);
  await untouched();
});
