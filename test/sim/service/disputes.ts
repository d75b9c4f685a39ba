/** Disputes (Part 3 §4.13): the nine operations, statuses of §3.2, codes 1005 and 9063. */
import { isIP } from "node:net";
import type { Ctx } from "./context";
import { Codes, SvcFault, paramError } from "./envelope";
import { download, keepUpload } from "./files";
import { moneyNumber, sumCents } from "./money";
import { nextSeq, ownOrderById, type Dispute, type SimOrder, type SimState } from "./state";
import { asObject, int, list, money, str, strList, type Json } from "./validate";

export const DISPUTE_STATUS_LABELS: Record<number, string> = {
  100: "Pending processing",
  200: "Pending review",
  300: "Finance review",
  400: "On hold",
  500: "Customer confirmation",
  510: "Supplier refund finance review",
  520: "Awaiting payment",
  530: "Payment processing",
  540: "Arbitration reserved",
  600: "Completed",
  700: "Cancelled",
  800: "Arbitration cancelled",
};
export const REPLY_STATUSES = [100, 200, 300, 400, 510, 530, 600];
const CLOSED_STATUSES = [600, 700, 800];
export const DISPUTE_REASONS = [
  { disputeReasonId: 1, reasonName: "Item not received" },
  { disputeReasonId: 2, reasonName: "Item damaged" },
  { disputeReasonId: 3, reasonName: "Wrong item" },
  { disputeReasonId: 4, reasonName: "Quality issue" },
];
const NINETY_DAYS_MS = 90 * 24 * 3_600_000;
const UPLOAD_CAP = { image: 50, video: 10 };

function ownPaidOrder(ctx: Ctx, orderId: string): SimOrder {
  const order = ownOrderById(ctx.state, ctx.account.accountId, orderId);
  if (!order) throw new SvcFault(Codes.ORDER_NOT_FOUND, "order not found");
  return order;
}

function disputedQuantity(state: SimState, order: SimOrder, lineItemId: string): number {
  let n = 0;
  for (const d of state.disputes.values()) {
    if (d.orderInternalId !== order.internalId || d.statusCode === 700 || d.statusCode === 800)
      continue;
    for (const l of d.lines) if (l.lineItemId === lineItemId) n += l.quantity;
  }
  return n;
}

function hasOpenDispute(state: SimState, order: SimOrder, lineItemId: string): boolean {
  return [...state.disputes.values()].some(
    (d) =>
      d.orderInternalId === order.internalId &&
      !CLOSED_STATUSES.includes(d.statusCode) &&
      d.lines.some((l) => l.lineItemId === lineItemId),
  );
}

function productLines(ctx: Ctx, order: SimOrder): Json[] {
  return order.lines.map((l) => {
    const v = ctx.state.catalog.variantByVid.get(l.vid);
    const p = v ? ctx.state.catalog.byPid.get(v.pid) : undefined;
    return {
      lineItemId: l.lineItemId,
      svcProductId: v?.pid ?? null,
      svcVariantId: l.vid,
      canChoose: !hasOpenDispute(ctx.state, order, l.lineItemId),
      price: moneyNumber(l.sellPrice),
      quantity: Math.max(0, l.quantity - disputedQuantity(ctx.state, order, l.lineItemId)),
      svcProductName: p?.nameEn ?? null,
      svcImage: v?.image ?? null,
      sku: v?.sku ?? null,
      supplierName: p?.supplierName ?? null,
    };
  });
}

export function disputeProducts(ctx: Ctx): unknown {
  const orderId = str(ctx.body, "orderId", { required: true, max: 100 });
  const order = ownPaidOrder(ctx, orderId);
  return {
    orderId: order.orderId,
    orderNumber: order.orderNumber,
    productInfoList: productLines(ctx, order),
  };
}

interface LineRequest {
  lineItemId: string;
  quantity: number;
  price: bigint;
}

function requestedLines(ctx: Ctx, order: SimOrder, raw: unknown[]): LineRequest[] {
  return raw.map((r, i) => {
    const o = asObject(r, `productInfoList[${i}]`);
    const lineItemId = str(o, "lineItemId", { max: 100 }) ?? order.lines[0]?.lineItemId ?? "";
    const quantity = int(o, "quantity", { required: true, min: 1, max: 9_999_999_999 });
    const price = money(o, "price", true) ?? 0n;
    const line = order.lines.find((l) => l.lineItemId === lineItemId);
    if (!line) throw paramError(`productInfoList[${i}]: line ${lineItemId} is not on the order`);
    const available = line.quantity - disputedQuantity(ctx.state, order, lineItemId);
    if (quantity > available)
      throw paramError(`productInfoList[${i}]: at most ${available} can be disputed`);
    if (price > line.sellPrice)
      throw paramError(`productInfoList[${i}]: price exceeds the line price`);
    return { lineItemId, quantity, price };
  });
}

export function disputeConfirmInfo(ctx: Ctx): unknown {
  const orderId = str(ctx.body, "orderId", { required: true, max: 100 });
  const order = ownPaidOrder(ctx, orderId);
  const lines = requestedLines(
    ctx,
    order,
    list(ctx.body, "productInfoList", { required: true }) ?? [],
  );
  const product = sumCents(lines.map((l) => l.price * BigInt(l.quantity)));
  return {
    orderId: order.orderId,
    orderNumber: order.orderNumber,
    maxProductPrice: moneyNumber(product),
    maxPostage: moneyNumber(order.postageAmount),
    maxIossTaxAmount: 0,
    maxIossHandTaxAmount: 0,
    maxAmount: moneyNumber(product + order.postageAmount),
    expectResultOptionList: ["1", "2"],
    productInfoList: productLines(ctx, order),
    disputeReasonList: DISPUTE_REASONS,
  };
}

function urls(ctx: Ctx, field: string): string[] {
  return strList(ctx.body, field, { max: 200 }) ?? [];
}

export function createDispute(ctx: Ctx): boolean {
  const b = ctx.body;
  const businessDisputeId = str(b, "businessDisputeId", { required: true, max: 100 });
  const orderId = str(b, "orderId", { required: true, max: 100 });
  const disputeReasonId = int(b, "disputeReasonId", { required: true });
  const expectType = int(b, "expectType", { required: true, min: 1, max: 2 });
  const refundType = int(b, "refundType", { required: true, min: 1, max: 2 });
  const messageText = str(b, "messageText", { required: true, max: 500 });
  const imageUrl = urls(ctx, "imageUrl");
  const videoUrl = urls(ctx, "videoUrl");
  const rawLines = list(b, "productInfoList", { required: true }) ?? [];
  if (!DISPUTE_REASONS.some((r) => r.disputeReasonId === disputeReasonId))
    throw paramError("disputeReasonId is not valid");
  const order = ownPaidOrder(ctx, orderId);
  if (!order.paid) throw paramError("disputes can be opened on paid orders only");
  const taken = [...ctx.state.disputes.values()].some(
    (d) => d.accountId === ctx.account.accountId && d.businessDisputeId === businessDisputeId,
  );
  if (taken) throw paramError(`businessDisputeId ${businessDisputeId} already exists`);
  const lines = requestedLines(ctx, order, rawLines);
  const now = ctx.state.clock.now();
  const id = String(700000 + nextSeq(ctx.state));
  const dispute: Dispute = {
    id,
    accountId: ctx.account.accountId,
    businessDisputeId,
    orderInternalId: order.internalId,
    orderId: order.orderId ?? order.internalId,
    orderNumber: order.orderNumber,
    statusCode: 100,
    disputeReasonId,
    expectType,
    refundType,
    lines,
    money: sumCents(lines.map((l) => l.price * BigInt(l.quantity))),
    finallyDeal: null,
    createdAt: now,
    updatedAt: now,
    messages: [
      {
        messageId: `M${id}-1`,
        orderId: order.orderId ?? "",
        userType: "1",
        createDate: now,
        message: messageText,
        imageUrl,
        videoUrl,
      },
    ],
  };
  ctx.state.disputes.set(id, dispute);
  return true;
}

function ownDispute(ctx: Ctx, disputeId: string): Dispute {
  const d = ctx.state.disputes.get(disputeId);
  if (!d || d.accountId !== ctx.account.accountId)
    throw new SvcFault(
      Codes.DISPUTE_NOT_FOUND,
      "dispute does not exist or does not belong to the account",
    );
  return d;
}

export function cancelDispute(ctx: Ctx): boolean {
  const orderId = str(ctx.body, "orderId", { required: true, max: 100 });
  const disputeId = str(ctx.body, "disputeId", { required: true, max: 100 });
  const d = ownDispute(ctx, disputeId);
  if (d.orderId !== orderId)
    throw new SvcFault(
      Codes.DISPUTE_NOT_FOUND,
      "dispute does not exist or does not belong to the account",
    );
  if (CLOSED_STATUSES.includes(d.statusCode))
    throw paramError(
      `dispute is ${DISPUTE_STATUS_LABELS[d.statusCode] ?? d.statusCode} and cannot be cancelled`,
    );
  d.statusCode = 700;
  d.updatedAt = ctx.state.clock.now();
  return true;
}

function listRecord(ctx: Ctx, d: Dispute): Json {
  const order = ctx.state.orders.get(d.orderInternalId);
  return {
    id: d.id,
    shopId: order?.shopId ?? "",
    shopName: order?.shopName ?? "",
    status: DISPUTE_STATUS_LABELS[d.statusCode] ?? String(d.statusCode),
    disputeReason:
      DISPUTE_REASONS.find((r) => r.disputeReasonId === d.disputeReasonId)?.reasonName ?? "",
    replacementAmount: d.expectType === 2 ? moneyNumber(d.money) : 0,
    resendOrderCode: null,
    money: moneyNumber(d.money),
    finallyDeal: d.finallyDeal,
    createDate: d.createdAt,
    updateDate: d.updatedAt,
    productList: d.lines.map((l) => {
      const line = order?.lines.find((x) => x.lineItemId === l.lineItemId);
      const v = line ? ctx.state.catalog.variantByVid.get(line.vid) : undefined;
      const p = v ? ctx.state.catalog.byPid.get(v.pid) : undefined;
      return {
        image: v?.image ?? null,
        price: moneyNumber(l.price),
        lineItemId: l.lineItemId,
        svcProductId: p?.pid ?? null,
        svcVariantId: v?.vid ?? null,
        productName: p?.nameEn ?? null,
        supplierName: p?.supplierName ?? null,
      };
    }),
  };
}

export function getDisputeList(ctx: Ctx): unknown {
  const q = ctx.body;
  const orderId = str(q, "orderId", { max: 100 });
  const disputeId = int(q, "disputeId");
  const orderNumber = str(q, "orderNumber", { max: 100 });
  const pageNum = int(q, "pageNum", { min: 1 }) ?? 1;
  const pageSize = int(q, "pageSize", { min: 1, max: 100 }) ?? 10;
  const startDate = int(q, "startDate");
  const endDate = int(q, "endDate");
  if ((startDate === undefined) !== (endDate === undefined))
    throw paramError("startDate and endDate are used as a pair");
  if (startDate !== undefined && endDate !== undefined) {
    if (endDate < startDate) throw paramError("endDate must not be earlier than startDate");
    if (endDate - startDate > NINETY_DAYS_MS)
      throw paramError("startDate and endDate must be at most 90 days apart");
  }
  const statuses = str(q, "status")
    ?.split(",")
    .map((s) => Number(s.trim()));
  if (statuses?.some((s) => !DISPUTE_STATUS_LABELS[s]))
    throw paramError("status holds an unknown filter code");
  const all = [...ctx.state.disputes.values()]
    .filter((d) => d.accountId === ctx.account.accountId)
    .filter(
      (d) =>
        (!orderId || d.orderId === orderId) &&
        (disputeId === undefined || d.id === String(disputeId)),
    )
    .filter((d) => !orderNumber || d.orderNumber === orderNumber)
    .filter(
      (d) =>
        startDate === undefined ||
        endDate === undefined ||
        (d.createdAt > startDate && d.createdAt < endDate),
    )
    .filter((d) => !statuses || statuses.includes(d.statusCode))
    .sort((a, b) => b.createdAt - a.createdAt);
  return {
    pageNum,
    pageSize,
    total: all.length,
    list: all.slice((pageNum - 1) * pageSize, pageNum * pageSize).map((d) => listRecord(ctx, d)),
  };
}

export function getDisputeDetail(ctx: Ctx): unknown {
  const d = ownDispute(ctx, str(ctx.body, "disputeId", { required: true, max: 100 }));
  const order = ctx.state.orders.get(d.orderInternalId);
  const rec = listRecord(ctx, d);
  return {
    ...rec,
    refundAmount: rec.money,
    refundDetails: [
      { type: "PRODUCT_COST", typeName: "Product cost", amount: moneyNumber(d.money) },
      { type: "SHIPPING_COST", typeName: "Shipping cost", amount: 0 },
    ],
    productList: d.lines.map((l) => {
      const line = order?.lines.find((x) => x.lineItemId === l.lineItemId);
      const v = line ? ctx.state.catalog.variantByVid.get(line.vid) : undefined;
      const p = v ? ctx.state.catalog.byPid.get(v.pid) : undefined;
      return {
        image: v?.image ?? null,
        price: moneyNumber(l.price),
        productCode: v?.sku ?? null,
        productId: p?.pid ?? null,
        productName: p?.nameEn ?? null,
        standId: v?.vid ?? null,
        supplierName: p?.supplierName ?? null,
      };
    }),
  };
}

export function getDisputeMessages(ctx: Ctx): unknown {
  const d = ownDispute(ctx, str(ctx.body, "disputeId", { required: true, max: 100 }));
  const pageNum = int(ctx.body, "pageNum", { min: 1 }) ?? 1;
  const pageSize = int(ctx.body, "pageSize", { min: 1, max: 50 }) ?? 10;
  const sorted = [...d.messages].sort((a, b) => a.createDate - b.createDate);
  return {
    pageNum,
    pageSize,
    total: sorted.length,
    list: sorted.slice((pageNum - 1) * pageSize, pageNum * pageSize),
  };
}

const EMOJI_RE = /\p{Extended_Pictographic}|\uFE0F|\u200D/gu;

export function replyDispute(ctx: Ctx): boolean {
  const d = ownDispute(ctx, str(ctx.body, "disputeId", { required: true, max: 100 }));
  const raw = str(ctx.body, "messageText", { required: true, max: 500 });
  const text = raw.replace(EMOJI_RE, "");
  if (text.trim() === "") throw paramError("messageText must not be blank");
  const imageUrl = strList(ctx.body, "imageUrl") ?? [];
  const videoUrl = strList(ctx.body, "videoUrl") ?? [];
  if (!REPLY_STATUSES.includes(d.statusCode)) {
    throw new SvcFault(
      Codes.DISPUTE_STATUS_NO_REPLY,
      `dispute status ${d.statusCode} does not accept new messages`,
    );
  }
  const now = ctx.state.clock.now();
  d.messages.push({
    messageId: `M${d.id}-${d.messages.length + 1}`,
    orderId: d.orderId,
    userType: "1",
    createDate: now,
    message: text,
    imageUrl,
    videoUrl,
  });
  d.updatedAt = now;
  return true;
}

/**
 * Why a source address for uploadFile is refused, or undefined. `loopbackOk` (the simulator's
 * allowLoopbackUploads) lets a test's own server on 127.0.0.1 and any port stand for a public
 * host; every other rule holds.
 */
export function uploadSourceProblem(raw: string, loopbackOk = false): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "fileUrl is not a valid address";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "fileUrl must be http or https";
  if (url.username || url.password) return "fileUrl must not carry user:password";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (loopbackOk && (host === "127.0.0.1" || host === "localhost")) return undefined;
  if (url.port) return "fileUrl must use the default port";
  if (host === "localhost" || host.endsWith(".localhost"))
    return "fileUrl must be a public address";
  if (isIP(host) === 4) {
    const [a = 0, b2 = 0] = host.split(".").map(Number);
    if (
      a === 10 ||
      a === 127 ||
      a === 0 ||
      (a === 192 && b2 === 168) ||
      (a === 172 && b2 >= 16 && b2 <= 31) ||
      (a === 169 && b2 === 254)
    ) {
      return "fileUrl must not be a private-network address";
    }
  }
  if (isIP(host) === 6) return "fileUrl must not be a private-network address";
  return undefined;
}

/**
 * uploadFile: downloads the source synchronously (the contract's rules and limits), keeps it at
 * a non-expiring address of the service and returns that address (a plain string: the response
 * shape is not shown, and the client accepts a string or an object holding one).
 */
export async function uploadFile(ctx: Ctx): Promise<string> {
  const fileUrl = str(ctx.body, "fileUrl", { required: true, max: 2000 });
  const loopbackOk = ctx.rt.options.allowLoopbackUploads;
  const first = uploadSourceProblem(fileUrl, loopbackOk);
  if (first) throw paramError(first);
  const accountId = ctx.account.accountId;
  let file: Awaited<ReturnType<typeof download>>;
  try {
    file = await download(ctx.state.files, fileUrl, {
      refuse: (u) => uploadSourceProblem(u, loopbackOk),
    });
  } catch (e) {
    throw paramError(e instanceof Error ? e.message : String(e));
  }
  const key = `${accountId}:${file.kind}`;
  const used = ctx.state.uploads.get(key) ?? 0;
  if (used >= UPLOAD_CAP[file.kind])
    throw new SvcFault(Codes.QUOTA_USED_UP, `daily ${file.kind} upload quota used up`);
  ctx.state.uploads.set(key, used + 1);
  const kept = keepUpload(ctx.state.files, { ...file, source: fileUrl });
  return `${ctx.rt.baseUrl()}/__files/${kept}`;
}

/** The simulator's own move: support changes a dispute's status (and may say something). */
export function setDisputeStatus(
  state: SimState,
  disputeId: string,
  statusCode: number,
  supportMessage?: string,
): void {
  const d = state.disputes.get(disputeId);
  if (!d) throw new Error(`dispute ${disputeId} not found`);
  if (!DISPUTE_STATUS_LABELS[statusCode]) throw new Error(`unknown dispute status ${statusCode}`);
  const now = state.clock.now();
  d.statusCode = statusCode;
  d.updatedAt = now;
  if (statusCode === 600) d.finallyDeal = d.expectType;
  if (supportMessage) {
    d.messages.push({
      messageId: `M${d.id}-${d.messages.length + 1}`,
      orderId: d.orderId,
      userType: "2",
      createDate: now,
      message: supportMessage,
      imageUrl: [],
      videoUrl: [],
    });
  }
}
