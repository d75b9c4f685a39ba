/**
 * The payment call answering late, after the client gave up (kept out of the mutation runs of
 * app/fulfilment/pay/: it waits for the client's time-out, and the dropped reply of pay-batches
 * exercises the same code).
 */
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { type ServiceSim, startServiceSim } from "../sim/service/index";
import { balanceCents, batchOfTwo, calls, reloadAll } from "./pay-helpers";

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
