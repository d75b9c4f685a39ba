/**
 * Orders (Part 3 §4.0–4.9): createOrderV2/V3 with the store order flow, cart, confirmation,
 * logistics change, sandbox tracking, batch query, proof of delivery, and the simulator's own
 * ship/deliver moves with their ORDER and LOGISTIC webhooks.
 */
import {
  agingTo,
  LOGISTICS,
  logisticsByName,
  logisticsOffered,
  offers,
  postageTo,
} from "./catalog";
import { formatUtc } from "./clock";
import type { Ctx, SimRuntime } from "./context";
import { Codes, SvcFault, paramError } from "./envelope";
import { ensureFile } from "./files";
import { moneyNumber, sumCents } from "./money";
import { payOrders } from "./payment";
import {
  nextSeq,
  ownOrderById,
  type Account,
  type Shipment,
  type SimOrder,
  type SimOrderLine,
  type SimState,
} from "./state";
import { asObject, int, list, money, str, strList, type Json } from "./validate";

export const BATCH_MAX_IDS = 100;
/** Destinations whose customs need the recipient's tax id (intercepted at confirmation without). */
export const TAX_ID_REQUIRED = ["BR", "CL", "MX", "TR"];
/** Destinations the simulated service refuses at confirmation (an interception reason). */
export const BLOCKED_COUNTRIES = ["KP", "IR", "SY", "CU"];
/** A paid order moves from PENDING to PROCESSING after this long on the clock. */
export const PROCESSING_AFTER_MS = 3_600_000;

// ---------------------------------------------------------------------------------------------
// Creation

export function createOrderV2(ctx: Ctx): unknown {
  return createOrder(ctx, "createOrderV2");
}

export function createOrderV3(ctx: Ctx): unknown {
  return createOrder(ctx, "createOrderV3");
}

/**
 * Destinations whose addresses need a state or province: an order to them without one is
 * refused (1600100), as the service refuses a label it cannot route. Elsewhere the field may be
 * empty (countries without provinces). The simulator keeps its own list, apart from the app's.
 */
const PROVINCE_COUNTRIES = new Set([
  "AR",
  "AU",
  "BR",
  "CA",
  "CN",
  "ES",
  "ID",
  "IN",
  "IT",
  "JP",
  "MX",
  "MY",
  "US",
]);

function createOrder(ctx: Ctx, via: SimOrder["via"]): unknown {
  const b = ctx.body;
  const v3 = via === "createOrderV3";
  const { state } = ctx;
  const account = ctx.account;
  const orderNumber = str(b, "orderNumber", { required: true, max: 50 });
  const shipping: SimOrder["shipping"] = {
    zip: str(b, "shippingZip", { max: 20 }),
    countryCode: str(b, "shippingCountryCode", { required: true, max: 20 }),
    country: str(b, "shippingCountry", { required: true, max: 50 }),
    province: str(b, "shippingProvince", { max: 50 }),
    city: str(b, "shippingCity", { required: true, max: 50 }),
    county: str(b, "shippingCounty", { max: 50 }),
    phone: str(b, "shippingPhone", { max: 20 }),
    customerName: str(b, "shippingCustomerName", { required: true, max: 50 }),
    address: str(b, "shippingAddress", { required: true, max: 500 }),
    address2: str(b, "shippingAddress2", { max: 500 }),
  };
  if (!shipping.province && PROVINCE_COUNTRIES.has(shipping.countryCode.toUpperCase())) {
    throw paramError(`shippingProvince must not be empty for ${shipping.countryCode}`);
  }
  shipping.houseNumber = str(b, "houseNumber", { max: 20 });
  const email = str(b, "email", { max: 50 });
  shipping.taxId = str(b, "taxId", { max: 20 });
  const remark = str(b, "remark", { max: 500 });
  shipping.consigneeID = str(b, "consigneeID", { max: 20 });
  const payType = v3 ? undefined : int(b, "payType", { min: 1, max: 3 });
  const isSandbox = int(b, "isSandbox", { min: 0, max: 1 }) === 1;
  money(b, "shopAmount");
  const logisticName = str(b, "logisticName", { required: true, max: 50 });
  const fromCountryCode = str(b, "fromCountryCode", { required: true, max: 20 });
  const platform = str(b, "platform", { max: 20 }) ?? "Api";
  const shopLogisticsType = int(b, "shopLogisticsType", { min: 1, max: 3 }) ?? 2;
  const storageId = str(b, "storageId", { max: 40 });
  if (shopLogisticsType === 1 && !storageId)
    throw paramError("storageId is required when shopLogisticsType=1");
  if (
    storageId &&
    shopLogisticsType === 1 &&
    !state.catalog.storages.some((s) => s.id === storageId)
  ) {
    throw paramError(`storageId ${storageId} does not exist`);
  }
  int(b, "iossType", { min: 1, max: 3 });
  str(b, "iossNumber", { max: 10 });
  const storeName = str(b, "storeName", { max: 50 });
  if (storeName && storeName !== account.shopName)
    throw paramError(`store ${storeName} is not an API store of this account`);
  const storeOrderTime = int(b, "storeOrderTime");
  if (storeOrderTime !== undefined && storeOrderTime * 1000 > state.clock.now()) {
    throw paramError("storeOrderTime must not be later than now");
  }
  const orderFlow = int(b, "orderFlow", { min: 1, max: 2 }) ?? 1;
  if (orderFlow === 2 && !v3) throw paramError("orderFlow=2 requires createOrderV3");
  const rawLines = list(b, "products", { required: true }) ?? [];
  const option = logisticsByName(logisticName);
  if (!option)
    throw new SvcFault(Codes.INVALID_LOGISTICS, `invalid logistics method: ${logisticName}`);
  if (state.suspendedLogistics.has(option.logisticsName.toLowerCase())) {
    throw new SvcFault(
      Codes.INVALID_LOGISTICS,
      `logistics method ${option.logisticsName} is suspended by the carrier`,
    );
  }
  if (!offers(option, fromCountryCode, shipping.countryCode)) {
    throw new SvcFault(
      Codes.INVALID_LOGISTICS,
      `logistics method ${option.logisticsName} is not available from ${fromCountryCode} to ${shipping.countryCode}`,
    );
  }

  const lines = rawLines.map((raw, i) =>
    parseLine(ctx, asObject(raw, `products[${i}]`), i, v3, orderFlow),
  );

  const duplicate = [...state.orders.values()].find(
    (o) => o.accountId === account.accountId && o.orderNumber === orderNumber,
  );
  if (duplicate) {
    throw new SvcFault(
      Codes.DUPLICATE_ORDER,
      duplicate.invalid
        ? `order ${orderNumber} already exists and waits for its products to be connected`
        : `order ${orderNumber} already exists`,
    );
  }

  const seq = nextSeq(state);
  const now = state.clock.now();
  const internalId = `SO${formatUtc(now).slice(0, 10).replace(/-/g, "")}${String(seq).padStart(8, "0")}`;
  const order: SimOrder = {
    internalId,
    accountId: account.accountId,
    orderNumber,
    status: "CREATED",
    invalid: false,
    isSandbox,
    via,
    orderFlow,
    shipping,
    email,
    remark,
    logisticName: option.logisticsName,
    fromCountryCode,
    shopLogisticsType,
    storageId,
    platform,
    storeName,
    storeOrderTime,
    lines: lines.map((l, i) => ({ ...l, lineItemId: `${internalId}-${i + 1}` })),
    productAmount: 0n,
    postageAmount: 0n,
    orderAmount: 0n,
    createdAt: now,
    paid: false,
    interceptReasons: [],
    shopId: account.shopId,
    shopName: account.shopName,
  };
  for (const line of order.lines) if (!line.connected) rememberShopProduct(state, account, line);
  order.invalid = order.lines.some((l) => !l.connected);
  if (!order.invalid) assignServiceId(order);
  recomputeAmounts(order);
  state.orders.set(internalId, order);

  if (order.orderId) emitOrder(ctx.rt, account, order, "INSERT");

  let svcPayUrl: string | null = null;
  if (!order.invalid && !v3) {
    if (payType === 2) payInline(ctx.rt, account, order);
    else if (payType !== 3) svcPayUrl = `${ctx.rt.baseUrl()}/__sim/pay/${order.orderId}`;
  }
  return creationResult(order, svcPayUrl);
}

type ParsedLine = Omit<SimOrderLine, "lineItemId">;

function parseLine(ctx: Ctx, l: Json, i: number, v3: boolean, orderFlow: number): ParsedLine {
  const { catalog } = ctx.state;
  const vid = str(l, "vid", { max: 50 });
  const sku = str(l, "sku", { max: 50 });
  if (!vid && !sku) throw paramError(`products[${i}]: vid and sku cannot both be null`);
  const line: ParsedLine = {
    vid: vid ?? "",
    storeProductId: str(l, "storeProductId", { max: 64 }),
    storeProductImg: str(l, "storeProductImg", { max: 500 }),
    storeProductName: str(l, "storeProductName", { max: v3 ? 500 : 200 }),
    storeSku: str(l, "storeSku", { max: 60 }),
    variantOptions: str(l, "variantOptions", { max: v3 ? 200 : 100 }),
    quantity: int(l, "quantity", { required: true, min: 1 }),
    unitPrice: money(l, "unitPrice"),
    storeLineItemId: str(l, "storeLineItemId", { max: 125 }),
    podProperties: str(l, "podProperties", { max: 500 }),
    sellPrice: 0n,
    connected: false,
  };
  const byVid = vid ? catalog.variantByVid.get(vid) : undefined;
  const bySku = sku ? catalog.variantBySku.get(sku) : undefined;
  if (vid && sku && byVid && bySku && byVid !== bySku) {
    throw paramError(`products[${i}]: vid and sku designate different variants`);
  }
  const variant = byVid ?? bySku;
  if (variant) {
    if (variant.removed)
      throw new SvcFault(
        Codes.VARIANT_REMOVED,
        `products[${i}]: variant ${variant.vid} has been removed`,
      );
    return { ...line, vid: variant.vid, sellPrice: variant.sellPrice, connected: true };
  }
  if (orderFlow !== 2) throw paramError(`products[${i}]: variant ${vid ?? sku} not found`);
  // Store order flow: `vid` is the shop's own variant id.
  line.storeVid = vid ?? sku;
  return resolveConnection(ctx.state, ctx.account, line);
}

/** Store-flow line: connected when a connection maps its shop variant to a catalog variant. */
function resolveConnection(state: SimState, account: Account, line: ParsedLine): ParsedLine {
  const conn = state.connections.find(
    (c) =>
      c.accountId === account.accountId &&
      c.platformVariantId === line.storeVid &&
      (!line.storeProductId || c.platformProductId === line.storeProductId),
  );
  const variant = conn ? state.catalog.variantByVid.get(conn.svcVariantId) : undefined;
  if (!variant) return line;
  return { ...line, vid: variant.vid, sellPrice: variant.sellPrice, connected: true };
}

function rememberShopProduct(state: SimState, account: Account, line: SimOrderLine): void {
  const exists = state.shopProducts.some(
    (p) =>
      p.accountId === account.accountId &&
      p.storeVariantId === line.storeVid &&
      p.storeProductId === (line.storeProductId ?? ""),
  );
  if (exists) return;
  state.shopProducts.push({
    accountId: account.accountId,
    storeProductId: line.storeProductId ?? "",
    storeVariantId: line.storeVid ?? line.vid,
    name: line.storeProductName,
    image: line.storeProductImg,
    sku: line.storeSku,
    variantOptions: line.variantOptions,
    createdAt: state.clock.now(),
  });
}

function assignServiceId(order: SimOrder): void {
  order.orderId = order.internalId;
  order.svcOrderCode = `SC${order.internalId.slice(2)}`;
}

function recomputeAmounts(order: SimOrder): void {
  const option = logisticsByName(order.logisticName) ?? LOGISTICS[0];
  const qty = order.lines.reduce((a, l) => a + l.quantity, 0);
  order.productAmount = sumCents(order.lines.map((l) => l.sellPrice * BigInt(l.quantity)));
  order.postageAmount = option ? postageTo(option, order.shipping.countryCode, qty) : 0n;
  order.orderAmount = order.productAmount + order.postageAmount;
}

function creationResult(order: SimOrder, svcPayUrl: string | null): Json {
  const out: Json = {
    orderNumber: order.orderNumber,
    shipmentOrderId: order.shipmentOrderId ?? null,
    iossAmount: 0,
    iossTaxHandlingFee: 0,
    postageAmount: moneyNumber(order.postageAmount),
    postageOriginalAmount: moneyNumber(order.postageAmount),
    postageDiscountAmount: 0,
    productAmount: moneyNumber(order.productAmount),
    productOriginalAmount: moneyNumber(order.productAmount),
    productDiscountAmount: 0,
    totalDiscountAmount: moneyNumber(order.orderAmount),
    actualPayment: order.paid && !order.isSandbox ? moneyNumber(order.orderAmount) : 0,
    orderOriginalAmount: moneyNumber(order.orderAmount),
    orderAmount: moneyNumber(order.orderAmount),
    svcPayUrl,
    logisticsMiss: false,
    orderStatus: order.status,
    productInfoList: order.lines.map((l) => ({
      storeLineItemId: l.storeLineItemId ?? null,
      lineItemId: l.lineItemId,
      variantId: l.vid,
      quantity: l.quantity,
      isGroup: false,
      subOrderProducts: [],
    })),
    interceptOrderReasons: order.interceptReasons,
  };
  if (order.orderId) out.orderId = order.orderId;
  else {
    const missing = order.lines.filter((l) => !l.connected).map((l) => l.storeVid ?? l.vid);
    out.interceptOrderReasons = [
      { code: 1, message: `shop products not connected: ${missing.join(", ")}` },
    ];
  }
  return out;
}

/** createOrderV2 with payType 2: cart, confirmation and balance deduction in the same call. */
function payInline(rt: SimRuntime, account: Account, order: SimOrder): void {
  const shipment = newShipment(rt.state, account, [order]);
  order.shipmentOrderId = shipment.shipmentOrderId;
  order.status = "UNPAID";
  try {
    payOrders(rt, account, [order]);
    shipment.paid = true;
  } catch (e) {
    if (!(e instanceof SvcFault)) throw e;
    order.interceptReasons.push({ code: e.code, message: e.message });
  }
}

/**
 * Called after connections change: store-flow orders whose lines are now all connected get
 * their service id, and an ORDER webhook with messageType ORDER_CONNNECTED carries it.
 */
export function connectPendingOrders(rt: SimRuntime, account: Account): SimOrder[] {
  const done: SimOrder[] = [];
  for (const order of rt.state.orders.values()) {
    if (order.accountId !== account.accountId || !order.invalid) continue;
    order.lines = order.lines.map((l) =>
      l.connected ? l : { ...resolveConnection(rt.state, account, l), lineItemId: l.lineItemId },
    );
    if (order.lines.some((l) => !l.connected)) continue;
    order.invalid = false;
    assignServiceId(order);
    recomputeAmounts(order);
    emitOrder(rt, account, order, "ORDER_CONNNECTED");
    done.push(order);
  }
  return done;
}

// ---------------------------------------------------------------------------------------------
// Cart and confirmation

function idList(ctx: Ctx, field: string): string[] {
  return strList(ctx.body, field, { required: true, max: 200 }) ?? [];
}

export function addCart(ctx: Ctx): unknown {
  const ids = idList(ctx, "svcOrderIdList");
  const added: string[] = [];
  const intercepted: Array<{ orderId: string; message: string }> = [];
  for (const id of new Set(ids)) {
    const order = ownOrderById(ctx.state, ctx.account.accountId, id);
    if (!order) intercepted.push({ orderId: id, message: "order does not exist" });
    else if (order.status === "CREATED" || order.status === "IN_CART") {
      order.status = "IN_CART";
      added.push(id);
    } else
      intercepted.push({
        orderId: id,
        message: `order status ${order.status} cannot be added to the cart`,
      });
  }
  if (added.length === 0) {
    throw new SvcFault(
      Codes.CART_FAILURE,
      `no order could be added to the cart: ${intercepted.map((i) => `${i.orderId} ${i.message}`).join("; ")}`,
    );
  }
  return {
    successCount: added.length,
    addSuccessOrders: added,
    unInterceptAddressCount: 0,
    interceptOrders: intercepted,
  };
}

function interceptReasons(
  state: SimState,
  order: SimOrder,
): Array<{ code: number; message: string }> {
  const reasons: Array<{ code: number; message: string }> = [];
  if (BLOCKED_COUNTRIES.includes(order.shipping.countryCode.toUpperCase())) {
    reasons.push({
      code: 101,
      message: `destination ${order.shipping.countryCode} is not supported`,
    });
  }
  const country = order.shipping.countryCode.toUpperCase();
  if (TAX_ID_REQUIRED.includes(country) && !order.shipping.taxId) {
    reasons.push({ code: 105, message: `a tax id is required for ${country} (taxId)` });
  }
  if (country === "KR" && !order.shipping.consigneeID) {
    reasons.push({
      code: 106,
      message: "a personal customs clearance code is required for KR (consigneeID)",
    });
  }
  if (/\bP\.?\s*O\.?\s*BOX\b/i.test(`${order.shipping.address} ${order.shipping.address2 ?? ""}`)) {
    reasons.push({ code: 102, message: "PO Box addresses are not supported" });
  }
  if (state.suspendedLogistics.has(order.logisticName.toLowerCase())) {
    reasons.push({
      code: 104,
      message: `logistics ${order.logisticName} is suspended by the carrier`,
    });
  }
  for (const l of order.lines) {
    if (state.catalog.variantByVid.get(l.vid)?.removed) {
      reasons.push({ code: 103, message: `variant ${l.vid} has been removed` });
    }
  }
  return reasons;
}

function newShipment(state: SimState, account: Account, orders: SimOrder[]): Shipment {
  const shipment: Shipment = {
    shipmentOrderId: `SH${String(nextSeq(state)).padStart(10, "0")}`,
    accountId: account.accountId,
    orderIds: orders.map((o) => o.internalId),
    paid: false,
    amount: sumCents(orders.map((o) => o.orderAmount)),
  };
  state.shipments.set(shipment.shipmentOrderId, shipment);
  return shipment;
}

export function addCartConfirm(ctx: Ctx): unknown {
  const ids = idList(ctx, "svcOrderIdList");
  const ok: SimOrder[] = [];
  const intercepted: string[] = [];
  const reasons: Array<{ orderId: string; code: number; message: string }> = [];
  for (const id of new Set(ids)) {
    const order = ownOrderById(ctx.state, ctx.account.accountId, id);
    if (!order) {
      intercepted.push(id);
      reasons.push({ orderId: id, code: 100, message: "order does not exist" });
      continue;
    }
    if (order.status !== "IN_CART") {
      intercepted.push(id);
      reasons.push({
        orderId: id,
        code: 100,
        message: `order status ${order.status} is not IN_CART`,
      });
      continue;
    }
    const found = interceptReasons(ctx.state, order);
    order.interceptReasons = found;
    if (found.length) {
      intercepted.push(id);
      for (const r of found) reasons.push({ orderId: id, ...r });
    } else ok.push(order);
  }
  if (ok.length === 0) {
    throw new SvcFault(
      Codes.CART_FAILURE,
      `no order could be confirmed: ${reasons.map((r) => `${r.orderId} ${r.message}`).join("; ")}`,
    );
  }
  if (new Set(ok.map((o) => o.isSandbox)).size > 1) {
    throw new SvcFault(Codes.CART_FAILURE, "sandbox and normal orders cannot share a parent order");
  }
  const shipment = newShipment(ctx.state, ctx.account, ok);
  for (const o of ok) {
    o.status = "UNPAID";
    o.shipmentOrderId = shipment.shipmentOrderId;
  }
  return {
    successCount: ok.length,
    submitSuccess: true,
    shipmentsId: shipment.shipmentOrderId,
    result: 1,
    interceptOrders: intercepted,
    interceptOrderReasons: reasons,
  };
}

// ---------------------------------------------------------------------------------------------
// Logistics and tracking

function ownOrderByAnyId(state: SimState, accountId: string, id: string): SimOrder | undefined {
  for (const o of state.orders.values()) {
    if (o.accountId !== accountId || o.invalid) continue;
    if (o.orderId === id || o.svcOrderCode === id || o.orderNumber === id) return o;
  }
  return undefined;
}

export function updateLogistics(ctx: Ctx): unknown {
  const b = ctx.body;
  const id = int(b, "id", { required: true });
  const orderCode = str(b, "orderCode", { required: true, max: 200 });
  const logisticsName = str(b, "logisticsName", { max: 200 });
  const from = int(b, "from", { min: 0, max: 2 }) ?? 1;
  const order = ownOrderByAnyId(ctx.state, ctx.account.accountId, orderCode);
  if (!order) throw new SvcFault(Codes.ORDER_NOT_FOUND, "order does not exist");
  if (order.status !== "CREATED" && order.status !== "IN_CART") {
    throw new SvcFault(
      Codes.ORDER_STATUS_CHANGED,
      `order status changed (${order.status}); order cannot be modified`,
    );
  }
  // Ids come from the order's optional logistics query (§4.5) and hold for that order only.
  const name = order.logisticsOptions?.get(id);
  const option = name ? logisticsByName(name) : undefined;
  if (!option || (logisticsName && logisticsName !== option.logisticsName)) {
    throw new SvcFault(
      Codes.INVALID_LOGISTICS,
      `invalid logistics method: id ${id} is not an optional logistics of this order`,
    );
  }
  if (ctx.state.suspendedLogistics.has(option.logisticsName.toLowerCase())) {
    return {
      orderCompletedOutputVo: null,
      shoppingCartOrderVo: null,
      abnormalReason: { logisticsCanUser: false },
      interceptAbnormalReasons: [
        { code: 104, message: `logistics ${option.logisticsName} is suspended by the carrier` },
      ],
      unInterceptAbnormalReasons: [],
    };
  }
  if (!offers(option, order.fromCountryCode, order.shipping.countryCode)) {
    return {
      orderCompletedOutputVo: null,
      shoppingCartOrderVo: null,
      abnormalReason: { logisticsCanUser: false },
      interceptAbnormalReasons: [
        {
          code: 201,
          message: `logistics ${option.logisticsName} cannot ship to ${order.shipping.countryCode}`,
        },
      ],
      unInterceptAbnormalReasons: [],
    };
  }
  order.logisticName = option.logisticsName;
  recomputeAmounts(order);
  const vo = {
    orderCode,
    areaName: order.shipping.country,
    orderQuantity: order.lines.reduce((a, l) => a + l.quantity, 0),
    logisticsName: option.logisticsName,
    postage: moneyNumber(order.postageAmount),
    orderAmount: moneyNumber(order.orderAmount),
  };
  return {
    orderCompletedOutputVo: vo,
    shoppingCartOrderVo: from === 2 ? vo : null,
    abnormalReason: { logisticsCanUser: true },
    interceptAbnormalReasons: [],
    unInterceptAbnormalReasons: [],
  };
}

/**
 * Freight quote (DESIGN §8: documented by the live service, "not shown" in the contract): the
 * methods offered from one country to another for the given variants, with price (USD and CNY)
 * and transit days. A blocked destination has no method.
 */
export function freightCalculate(ctx: Ctx): unknown {
  const b = ctx.body;
  const from = str(b, "startCountryCode", { required: true, max: 20 })!;
  const to = str(b, "endCountryCode", { required: true, max: 20 })!;
  for (const code of [from, to]) {
    if (!/^[A-Za-z]{2}$/.test(code)) throw paramError(`${code} is not a two-letter country code`);
  }
  str(b, "zip", { max: 20 });
  str(b, "taxId", { max: 20 });
  str(b, "houseNumber", { max: 20 });
  str(b, "iossNumber", { max: 10 });
  const raw = list(b, "products", { required: true }) ?? [];
  let items = 0;
  raw.forEach((r, i) => {
    const line = asObject(r, `products[${i}]`);
    const vid = str(line, "vid", { required: true, max: 50 })!;
    const quantity = int(line, "quantity", { required: true, min: 1 })!;
    const variant = ctx.state.catalog.variantByVid.get(vid);
    if (!variant) throw paramError(`products[${i}]: variant ${vid} not found`);
    if (variant.removed) {
      throw new SvcFault(Codes.VARIANT_REMOVED, `products[${i}]: variant ${vid} has been removed`);
    }
    items += quantity;
  });
  if (BLOCKED_COUNTRIES.includes(to.toUpperCase())) return [];
  return logisticsOffered(from, to).map((o) => {
    const usd = postageTo(o, to, items);
    return {
      logisticAging: agingTo(o, to),
      logisticPrice: moneyNumber(usd),
      logisticPriceCn: moneyNumber((usd * 71n) / 10n),
      logisticName: o.logisticsName,
    };
  });
}

/** The path of the optional logistics query (§4.5: "not shown"); the app's default. */
export const OPTIONAL_LOGISTICS_PATH = "/shopping/order/getOptionalLogistics";

/**
 * Optional logistics of an order (§4.5, record 2.3): the methods offered on its route, each
 * with an id given out for this order only (updateLogistics refuses any other).
 */
export function optionalLogistics(ctx: Ctx): unknown {
  const id = str(ctx.body, "svcOrderId", { required: true, max: 200 })!;
  const order = ownOrderByAnyId(ctx.state, ctx.account.accountId, id);
  if (!order) throw new SvcFault(Codes.ORDER_NOT_FOUND, "order does not exist");
  const seq = BigInt(order.internalId.replace(/\D/g, "").slice(-8));
  order.logisticsOptions ??= new Map();
  const qty = order.lines.reduce((a, l) => a + l.quantity, 0);
  return logisticsOffered(order.fromCountryCode, order.shipping.countryCode).map((o) => {
    const optionId = Number(700_000_000_000n + seq * 100n + BigInt(o.id % 100));
    order.logisticsOptions!.set(optionId, o.logisticsName);
    const postage = postageTo(o, order.shipping.countryCode, qty);
    return {
      id: optionId,
      orderCode: id,
      logisticsName: o.logisticsName,
      logisticsNameAlias: "",
      postage: moneyNumber(postage),
      postageDiscountPrice: moneyNumber(postage),
      basePostage: moneyNumber(o.basePostage),
      remoteAmount: 0,
      packPrice: 0,
    };
  });
}

export function sandboxUpdateTrackNumber(ctx: Ctx): boolean {
  const orderId = str(ctx.body, "orderId", { required: true, max: 200 });
  const trackNumber = str(ctx.body, "trackNumber", { required: true, max: 64 });
  const order = [...ctx.state.orders.values()].find((o) => o.orderId === orderId);
  if (!order) throw new SvcFault(Codes.ORDER_NOT_FOUND, "order not found");
  const mine = order.accountId === ctx.account.accountId;
  if (!order.isSandbox) {
    if (!mine) throw new SvcFault(Codes.ORDER_NOT_FOUND, "order not found");
    throw new SvcFault(
      Codes.NOT_SANDBOX_ORDER,
      "not a sandbox order; tracking number update forbidden",
    );
  }
  if (!mine)
    throw new SvcFault(Codes.SANDBOX_ORDER_FOREIGN, "sandbox order belongs to another account");
  if (!order.paid || order.status === "CLOSED" || order.status === "CANCELLED") {
    const status = order.paid ? order.status : "UNPAID";
    throw new SvcFault(
      Codes.SANDBOX_STATUS_FORBIDS,
      `order status ${status} does not allow a tracking update`,
    );
  }
  if (!order.logisticName)
    throw new SvcFault(Codes.NO_LOGISTICS_INFO, "no logistics information on the order yet");
  const account = ctx.account;
  setTracking(ctx.rt, account, order, { trackNumber });
  return true;
}

export interface ShipOptions {
  trackNumber?: string;
  trackingUrl?: string;
  logisticName?: string;
  storeLineItemIds?: string[];
}

function setTracking(rt: SimRuntime, account: Account, order: SimOrder, opts: ShipOptions): void {
  const now = rt.state.clock.now();
  order.trackNumber =
    opts.trackNumber ?? order.trackNumber ?? `SVCT${String(nextSeq(rt.state)).padStart(10, "0")}`;
  if (opts.logisticName) order.logisticName = opts.logisticName;
  order.trackingUrl =
    opts.trackingUrl ?? `https://track.svc.test/${encodeURIComponent(order.trackNumber)}`;
  order.trackingProvider = order.logisticName;
  if (order.status === "UNSHIPPED") {
    order.status = "SHIPPED";
    order.shippedAt = now;
  }
  emitOrder(rt, account, order, "UPDATE", opts.storeLineItemIds);
  emitLogistic(rt, account, order, order.status === "DELIVERED" ? 12 : 1);
}

/** The simulator's own move: the warehouse ships a paid order. */
export function shipOrder(rt: SimRuntime, order: SimOrder, opts: ShipOptions = {}): void {
  const account = rt.state.accounts.get(order.accountId);
  if (!account) throw new Error(`account ${order.accountId} not found`);
  if (!order.paid)
    throw new Error(
      `order ${order.orderId ?? order.orderNumber} is not paid (status ${order.status})`,
    );
  if (order.status === "CANCELLED" || order.status === "CLOSED")
    throw new Error(`order is ${order.status}`);
  setTracking(rt, account, order, opts);
}

export function deliverOrder(rt: SimRuntime, order: SimOrder): void {
  const account = rt.state.accounts.get(order.accountId);
  if (!account) throw new Error(`account ${order.accountId} not found`);
  if (order.status !== "SHIPPED")
    throw new Error(`order ${order.orderId ?? order.orderNumber} is ${order.status}, not SHIPPED`);
  order.status = "DELIVERED";
  order.deliveredAt = rt.state.clock.now();
  emitOrder(rt, account, order, "UPDATE");
  emitLogistic(rt, account, order, 12);
}

/**
 * After payment, the service ends an order (CANCELLED: refunded to the balance; CLOSED) and
 * tells with an ORDER UPDATE, as the live service does.
 */
export function endOrder(rt: SimRuntime, order: SimOrder, status: "CANCELLED" | "CLOSED"): void {
  const account = rt.state.accounts.get(order.accountId);
  if (!account) throw new Error(`account ${order.accountId} not found`);
  if (!order.paid) throw new Error(`order ${order.orderId ?? order.orderNumber} is not paid`);
  order.status = status;
  if (status === "CANCELLED" && !order.isSandbox) account.balance += order.orderAmount;
  emitOrder(rt, account, order, "UPDATE");
}

/** The carrier reports the shipped parcel abnormal (13) or returned to sender (14). */
export function parcelTrouble(rt: SimRuntime, order: SimOrder, trackingStatus: 13 | 14): void {
  const account = rt.state.accounts.get(order.accountId);
  if (!account) throw new Error(`account ${order.accountId} not found`);
  if (!order.trackNumber)
    throw new Error(`order ${order.orderId ?? order.orderNumber} has no parcel`);
  emitLogistic(rt, account, order, trackingStatus);
}

// ---------------------------------------------------------------------------------------------
// Webhook payloads

export function emitOrder(
  rt: SimRuntime,
  account: Account,
  order: SimOrder,
  messageType: string,
  storeLineItemIds?: string[],
): void {
  const items = order.lines.filter(
    (l) => !storeLineItemIds || (l.storeLineItemId && storeLineItemIds.includes(l.storeLineItemId)),
  );
  rt.webhooks.emit(account, "ORDER", messageType, {
    orderId: order.orderId,
    svcOrderId: order.orderId,
    orderNumber: order.orderNumber,
    orderStatus: order.status,
    logisticName: order.logisticName,
    trackNumber: order.trackNumber ?? null,
    trackingUrl: order.trackingUrl ?? null,
    createDate: formatUtc(order.createdAt),
    paymentDate: order.paidAt ? formatUtc(order.paidAt) : null,
    outWarehouseTime: order.shippedAt ? formatUtc(order.shippedAt) : null,
    orderItems: items.map((l) => ({
      vid: l.vid,
      quantity: l.quantity,
      storeLineItemId: l.storeLineItemId ?? null,
      lineItemId: l.lineItemId,
    })),
  });
}

function emitLogistic(
  rt: SimRuntime,
  account: Account,
  order: SimOrder,
  trackingStatus: number,
): void {
  const events = [
    {
      time: formatUtc(order.shippedAt ?? rt.state.clock.now()),
      status: "Shipment information received",
    },
  ];
  if (trackingStatus === 12)
    events.push({
      time: formatUtc(order.deliveredAt ?? rt.state.clock.now()),
      status: "Delivered",
    });
  rt.webhooks.emit(account, "LOGISTIC", "UPDATE", {
    orderId: order.orderId,
    logisticName: order.logisticName,
    trackingNumber: order.trackNumber,
    trackingUrl: order.trackingUrl,
    trackingStatus,
    logisticsTrackEvents: JSON.stringify(events),
    storeOrderNumbers: [order.orderNumber],
    trackingProvider: order.trackingProvider,
  });
}

// ---------------------------------------------------------------------------------------------
// Queries

function batchIds(ctx: Ctx): string[] {
  const raw = ctx.body.orderIds;
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new SvcFault(Codes.BATCH_IDS_INVALID, "orderIds must not be empty", 400);
  }
  if (raw.length > BATCH_MAX_IDS) {
    throw new SvcFault(Codes.BATCH_IDS_INVALID, `orderIds must not exceed ${BATCH_MAX_IDS}`, 400);
  }
  return raw.map((v, i) => {
    if (typeof v !== "string" && typeof v !== "number")
      throw paramError(`orderIds[${i}] must be a string`);
    return String(v);
  });
}

export function subStatus(state: SimState, order: SimOrder): string | null {
  if (order.status !== "UNSHIPPED") return null;
  return order.paidAt !== undefined && state.clock.now() - order.paidAt >= PROCESSING_AFTER_MS
    ? "PROCESSING"
    : "PENDING";
}

export function orderRecord(state: SimState, order: SimOrder): Json {
  const storage =
    state.catalog.storages.find((s) => s.id === order.storageId) ??
    state.catalog.storages.find((s) => s.areaCountryCode === order.fromCountryCode);
  return {
    orderId: order.orderId,
    orderNum: order.orderNumber,
    platformOrderId: null,
    svcOrderId: order.orderId,
    svcOrderCode: order.svcOrderCode,
    fromCountryCode: order.fromCountryCode,
    shippingCountryCode: order.shipping.countryCode,
    shippingProvince: order.shipping.province,
    shippingCity: order.shipping.city,
    shippingAddress: order.shipping.address,
    shippingCustomerName: order.shipping.customerName,
    shippingPhone: order.shipping.phone ?? null,
    remark: order.remark ?? null,
    logisticName: order.logisticName,
    trackNumber: order.trackNumber ?? "",
    trackingProvider: order.trackingProvider ?? null,
    trackingUrl: order.trackingUrl ?? null,
    disputeId: null,
    disputeOpenedId: null,
    orderWeight: order.lines.reduce(
      (a, l) => a + (state.catalog.variantByVid.get(l.vid)?.weight ?? 0) * l.quantity,
      0,
    ),
    orderAmount: moneyNumber(order.orderAmount),
    productAmount: moneyNumber(order.productAmount),
    postageAmount: moneyNumber(order.postageAmount),
    orderStatus: order.status,
    subStatus: subStatus(state, order),
    createDate: formatUtc(order.createdAt),
    paymentDate: order.paidAt ? formatUtc(order.paidAt) : null,
    outWarehouseTime: order.shippedAt ? formatUtc(order.shippedAt) : null,
    storeCreateDate: order.storeOrderTime ? formatUtc(order.storeOrderTime * 1000) : null,
    isComplete: 1,
    isSandbox: order.isSandbox ? 1 : 0,
    storageId: storage?.id ?? null,
    storageName: storage?.name ?? null,
    privateOutboundOrder: false,
    shopId: order.shopId,
    shopName: order.shopName,
    logisticsTimeliness: null,
    productList: order.lines.map((l) => ({
      vid: l.vid,
      quantity: l.quantity,
      sellPrice: moneyNumber(l.sellPrice),
      storeLineItemId: l.storeLineItemId ?? null,
      lineItemId: l.lineItemId,
      orderNumber: order.orderNumber,
      productionOrderStatus: null,
      abnormalType: [],
      podPropertiesInfo: null,
    })),
  };
}

export function getOrderDetailBatch(ctx: Ctx): unknown {
  const ids = batchIds(ctx);
  const seen = new Set<string>();
  const out: Json[] = [];
  for (const id of ids) {
    const order = ownOrderByAnyId(ctx.state, ctx.account.accountId, id);
    if (!order || seen.has(order.internalId)) continue;
    seen.add(order.internalId);
    out.push(orderRecord(ctx.state, order));
  }
  return out;
}

/**
 * A file of the service's file host, made on first use. The address carries a signature
 * parameter, as the live service's expiring links do (the file host ignores it).
 */
function fileLink(ctx: Ctx, key: string): string {
  ensureFile(ctx.state.files, key);
  return `${ctx.rt.baseUrl()}/__files/${key}?X-Sig=sim`;
}

export function getProofOfDelivery(ctx: Ctx): unknown {
  const ids = batchIds(ctx);
  const out: Array<{ orderId: string; proofOfDeliveryList: string[] }> = [];
  for (const id of new Set(ids)) {
    const order = ownOrderById(ctx.state, ctx.account.accountId, id);
    if (!order?.orderId) continue;
    out.push({
      orderId: order.orderId,
      proofOfDeliveryList:
        order.status === "DELIVERED" ? [fileLink(ctx, `pod/${order.orderId}/1.jpg`)] : [],
    });
  }
  return out;
}

export function warehousePhotos(ctx: Ctx): unknown {
  const ids = strList(ctx.body, "orderIdList", { required: true, max: 200 }) ?? [];
  return ids.flatMap((id) => {
    const order = ownOrderById(ctx.state, ctx.account.accountId, id);
    if (!order?.orderId || !order.paid) return [];
    return [
      {
        orderId: order.orderId,
        pictureJson: [{ url: fileLink(ctx, `photo/${order.orderId}/1.jpg`), type: "image" }],
      },
    ];
  });
}
