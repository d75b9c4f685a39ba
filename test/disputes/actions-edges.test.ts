/**
 * Edges of the dispute use cases (app/disputes/open.server.ts and app/disputes/forms.server.ts)
 * that the core tests leave open: the open form's lines when a line is covered by an open dispute yet has items left, or
 * is free of open disputes yet has none left; the prices carried; a create the service refuses
 * is sent once; a failure that is neither the merchant's input nor the service's answer is
 * logged for the operator, and only such a one.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DisputeInputError, runDisputeForm } from "../../app/disputes/forms.server";
import { openDispute, openOptions } from "../../app/disputes/open.server";
import { logger } from "../../app/logger.server";
import * as E from "../../app/svc/errors";
import { type DisputeFixture, disputeFixture, prisma } from "./fixture";

const SHOP = "disputes-edges.myshopify.com";
let f: DisputeFixture;
let keySeq = 0;
const key = () => `edges-key-${++keySeq}-${Date.now()}`;
const calls = (op: string) => f.svc.calls({ op, accountId: f.simAccountId });
const open = (o: { id: string }, quantities: Record<string, number>) =>
  openDispute(prisma, f.client, f.account, "http://127.0.0.1", {
    orderId: o.id,
    quantities,
    reasonId: "2",
    expectType: "1",
    refundType: "1",
    text: "The mug arrived broken.",
    clientKey: key(),
    files: [],
    addresses: [],
  });

beforeAll(async () => {
  f = await disputeFixture(SHOP);
});
afterAll(async () => {
  await f?.close();
});

describe("openOptions", () => {
  it("carries each line's price to the confirm info and the form", async () => {
    const order = await f.paidOrder();
    const asked = await f.client.disputes.products(order.svcOrderId);
    const prices = asked.productInfoList.map((l) => l.price);
    expect(prices.every((p) => p && Number(p) > 0)).toBe(true);
    const o = await openOptions(f.client, order.svcOrderId);
    expect(o.lines.map((l) => l.price)).toEqual(prices);
    const body = calls("disputeConfirmInfo").at(-1)!.body as {
      productInfoList: { price: string | number }[];
    };
    expect(body.productInfoList.map((l) => String(l.price))).toEqual(
      prices.map((p) => String(Number(p))),
    );
  });

  it("a line under an open dispute, or with nothing left, cannot be chosen", async () => {
    const order = await f.paidOrder();
    // Line 1: one of its two items under an open dispute. Line 2: its one item disputed, and
    // that dispute completed (no longer open, but the item is spent).
    await open(order, { [order.lineIds[0]]: 1 });
    const done = await open(order, { [order.lineIds[1]]: 1 });
    const row = await prisma.dispute.findUniqueOrThrow({ where: { id: done.disputeId } });
    f.svc.state.disputes.get(row.svcDisputeId)!.statusCode = 600;
    const asked = await f.client.disputes.products(order.svcOrderId);
    expect(asked.productInfoList.map((l) => [l.canChoose, l.quantity])).toEqual([
      [false, 1],
      [true, 0],
    ]);
    const before = calls("disputeConfirmInfo").length;
    const o = await openOptions(f.client, order.svcOrderId);
    expect(o.lines.map((l) => [l.available, l.canChoose])).toEqual([
      [1, false],
      [0, false],
    ]);
    // Nothing to choose: the confirm info is not asked, no reason is offered.
    expect(calls("disputeConfirmInfo")).toHaveLength(before);
    expect(o.reasons).toEqual([]);
  });
});

describe("openDispute", () => {
  it("a create the service refuses is sent once, not again", async () => {
    const order = await f.paidOrder();
    const sim = f.svc.order(order.svcOrderId)!;
    sim.paid = false;
    let error: unknown;
    try {
      error = await open(order, { [order.lineIds[0]]: 1 }).then(
        () => null,
        (e: unknown) => e,
      );
    } finally {
      sim.paid = true;
    }
    expect(error).toBeInstanceOf(E.SvcParamError);
    const sent = calls("disputeCreate").filter(
      (c) => (c.body as { orderId: string }).orderId === order.svcOrderId,
    );
    expect(sent).toHaveLength(1);
  });
});

describe("runDisputeForm", () => {
  it("logs a failure that is neither the merchant's input nor the service's answer", async () => {
    const spy = vi.spyOn(logger, "error");
    try {
      const fail = (intent: string, error: unknown) =>
        runDisputeForm(prisma, SHOP, intent, async () => {
          throw error;
        });
      await fail("open", new DisputeInputError("Choose a line", "lines"));
      await fail("reply", new E.SvcParamError({ operation: "disputes/reply", message: "bad" }));
      await fail("check", new E.SvcServerError({ operation: "x", message: "503" }));
      expect(spy).not.toHaveBeenCalled();
      await fail("open", new TypeError("boom"));
      await fail("check", "a string");
      expect(spy.mock.calls).toEqual([
        [{ err: "boom", intent: "open" }, "dispute form failed"],
        [{ err: "a string", intent: "check" }, "dispute form failed"],
      ]);
    } finally {
      spy.mockRestore();
    }
  });
});
