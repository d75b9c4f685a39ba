/**
 * Balance and payment (Part 3 §4.4, §4.10–4.12): parent orders, payBalance, payBalanceV2.
 * Amounts are bigint cents; paying a paid order again never deducts again; a short balance
 * answers 1604000 (DESIGN §8) and changes nothing.
 */
import { randomBytes } from "node:crypto";
import type { Ctx, SimRuntime } from "./context";
import { Codes, SvcFault, paramError } from "./envelope";
import { formatMoney, moneyNumber, sumCents } from "./money";
import { emitOrder } from "./orders";
import {
  nextSeq,
  ownOrderById,
  type Account,
  type Shipment,
  type SimOrder,
  type SimState,
} from "./state";
import { str } from "./validate";

export function getBalance(ctx: Ctx): unknown {
  const a = ctx.account;
  return {
    amount: moneyNumber(a.balance),
    noWithdrawalAmount: moneyNumber(a.bonus),
    freezeAmount: moneyNumber(a.frozen),
  };
}

/**
 * Pays the given unpaid orders from the balance (or simulates it for sandbox orders), all or
 * nothing. Throws 1604000 when the balance is short.
 */
export function payOrders(rt: SimRuntime, account: Account, orders: SimOrder[]): void {
  const unpaid = orders.filter((o) => !o.paid);
  if (unpaid.length === 0) return;
  const sandbox = new Set(unpaid.map((o) => o.isSandbox));
  if (sandbox.size > 1)
    throw new SvcFault(
      Codes.PAYMENT_FAILED,
      "sandbox and normal orders cannot share a parent order",
    );
  const isSandbox = unpaid[0]?.isSandbox ?? false;
  const due = sumCents(unpaid.map((o) => o.orderAmount));
  if (!isSandbox) {
    if (account.balance < due) {
      throw new SvcFault(
        Codes.BALANCE_INSUFFICIENT,
        `balance insufficient: ${formatMoney(due)} due, ${formatMoney(account.balance)} available`,
      );
    }
    account.balance -= due;
  }
  const now = rt.state.clock.now();
  for (const o of unpaid) {
    o.paid = true;
    o.paidAt = now;
    o.status = "UNSHIPPED";
    emitOrder(rt, account, o, "UPDATE");
  }
}

function ownShipment(ctx: Ctx, shipmentOrderId: string): Shipment {
  const s = ctx.state.shipments.get(shipmentOrderId);
  if (!s || s.accountId !== ctx.account.accountId)
    throw paramError(`shipmentOrderId ${shipmentOrderId} does not exist`);
  return s;
}

function shipmentOrders(state: SimState, s: Shipment): SimOrder[] {
  return s.orderIds.map((id) => state.orders.get(id)).filter((o): o is SimOrder => o !== undefined);
}

function ensureParent(ctx: Ctx, s: Shipment): void {
  s.parentOrderNumber ??= `PO${String(nextSeq(ctx.state)).padStart(10, "0")}`;
  s.payId ??= `PAY${randomBytes(10).toString("hex").toUpperCase()}`;
}

export function saveGenerateParentOrder(ctx: Ctx): unknown {
  const id = str(ctx.body, "shipmentOrderId", { required: true, max: 200 });
  const s = ownShipment(ctx, id);
  ensureParent(ctx, s);
  const orders = shipmentOrders(ctx.state, s);
  const payable = sumCents(orders.filter((o) => !o.paid).map((o) => o.orderAmount));
  return {
    shipmentOrderId: s.shipmentOrderId,
    parentOrderId: s.parentOrderNumber,
    orderMoney: moneyNumber(sumCents(orders.map((o) => o.orderAmount))),
    payAmount: formatMoney(payable),
    payId: s.payId,
    orderIds: orders.map((o) => o.orderId),
    isSandbox: orders.every((o) => o.isSandbox) ? 1 : 0,
  };
}

export function payBalanceV2(ctx: Ctx): null {
  const id = str(ctx.body, "shipmentOrderId", { required: true, max: 200 });
  const payId = str(ctx.body, "payId", { max: 200 });
  const s = ownShipment(ctx, id);
  if (payId && s.payId && payId !== s.payId)
    throw paramError("payId does not belong to this shipmentOrderId");
  ensureParent(ctx, s);
  if (s.paid) return null; // paid already: no second deduction
  if (ctx.account.paymentRestricted)
    throw new SvcFault(Codes.BALANCE_RESTRICTED, "balance payment is restricted on this account");
  payOrders(ctx.rt, ctx.account, shipmentOrders(ctx.state, s));
  s.paid = true;
  return null;
}

export function payBalance(ctx: Ctx): null {
  const orderId = str(ctx.body, "orderId", { required: true, max: 200 });
  const order = ownOrderById(ctx.state, ctx.account.accountId, orderId);
  if (!order) throw new SvcFault(Codes.ORDER_NOT_FOUND, "order not found");
  if (order.paid) return null;
  if (order.status === "CANCELLED" || order.status === "CLOSED") {
    throw new SvcFault(Codes.PAYMENT_FAILED, `order is ${order.status}`);
  }
  const s = order.shipmentOrderId ? ctx.state.shipments.get(order.shipmentOrderId) : undefined;
  if (s && s.orderIds.length > 1) {
    throw new SvcFault(
      Codes.PAYMENT_FAILED,
      "the parent order has several sub-orders; pay it with payBalanceV2",
    );
  }
  payOrders(ctx.rt, ctx.account, [order]);
  if (s) s.paid = true;
  return null;
}

/**
 * The merchant pays, in the service's web console, the parent order holding this order (every
 * sub-order of it, from the account's balance): what the app asks the merchant to do when a
 * confirmation's reply was lost and its shipmentOrderId with it. Not an API operation.
 */
export function payInConsole(rt: SimRuntime, order: SimOrder): void {
  const s = order.shipmentOrderId ? rt.state.shipments.get(order.shipmentOrderId) : undefined;
  if (!s) throw new Error(`order ${order.orderId ?? order.orderNumber} is not in a parent order`);
  const account = rt.state.accounts.get(s.accountId);
  if (!account) throw new Error(`account ${s.accountId} does not exist`);
  if (s.paid) return;
  payOrders(rt, account, shipmentOrders(rt.state, s));
  s.paid = true;
}
