/**
 * Part 3 §4.13 dispute shapes as the contract gives them: the replies (products, confirm info,
 * records, detail, messages, uploadFile) parsed by zod, the requests' types, the list's window
 * and the rule by which the service stores a reply's text. The calls are in disputes.server.ts.
 */
import { z } from "zod";
import { arr, bool, money, num, obj, str, timestamp } from "./schema-kit";
const disputeLine = obj({
  lineItemId: str,
  svcProductId: str,
  svcVariantId: str,
  canChoose: bool,
  price: money,
  quantity: num,
  svcProductName: str,
  svcImage: str,
  sku: str,
  supplierName: str,
});
export const disputeProductsSchema = obj({
  orderId: str,
  orderNumber: str,
  productInfoList: arr(disputeLine),
});
export const disputeConfirmInfoSchema = obj({
  orderId: str,
  orderNumber: str,
  maxProductPrice: money,
  maxPostage: money,
  maxIossTaxAmount: money,
  maxIossHandTaxAmount: money,
  maxAmount: money,
  expectResultOptionList: arr(z.union([z.string(), z.number()]).transform(String)),
  productInfoList: arr(disputeLine),
  disputeReasonList: arr(obj({ disputeReasonId: num, reasonName: str })),
});
export const disputeRecordSchema = obj({
  id: z.union([z.string(), z.number()]).transform(String),
  shopId: str,
  shopName: str,
  status: str,
  disputeReason: str,
  replacementAmount: money,
  resendOrderCode: str,
  money: money,
  finallyDeal: num,
  createDate: timestamp,
  updateDate: timestamp,
  productList: arr(
    obj({
      image: str,
      price: money,
      lineItemId: str,
      svcProductId: str,
      svcVariantId: str,
      productName: str,
      supplierName: str,
    }),
  ),
});
export const disputeDetailSchema = obj({
  id: str,
  shopId: str,
  shopName: str,
  status: str,
  disputeReason: str,
  replacementAmount: money,
  resendOrderCode: str,
  money: money,
  refundAmount: money,
  finallyDeal: num,
  createDate: timestamp,
  refundDetails: arr(obj({ type: str, typeName: str, amount: money })),
  productList: arr(
    obj({
      image: str,
      price: money,
      productCode: str,
      productId: str,
      productName: str,
      standId: str,
      supplierName: str,
    }),
  ),
});
export const disputeMessageSchema = obj({
  messageId: str,
  orderId: str,
  userType: str,
  createDate: timestamp,
  message: str,
  imageUrl: arr(z.string()),
  videoUrl: arr(z.string()),
});
/** uploadFile's response shape is not shown: a string address, or an object holding one. */
export const uploadFileSchema = z.union([
  z.string(),
  z
    .looseObject({
      url: z.string().optional(),
      fileUrl: z.string().optional(),
      data: z.string().optional(),
    })
    .transform((o) => o.url ?? o.fileUrl ?? o.data ?? ""),
]);

export type DisputeProducts = z.output<typeof disputeProductsSchema>;
export type DisputeConfirmInfo = z.output<typeof disputeConfirmInfoSchema>;
export type DisputeRecord = z.output<typeof disputeRecordSchema>;
export type DisputeDetail = z.output<typeof disputeDetailSchema>;
export type DisputeMessage = z.output<typeof disputeMessageSchema>;

export interface DisputeLineInput {
  lineItemId?: string;
  quantity: number;
  price: string | number;
}
export interface CreateDisputeRequest {
  businessDisputeId: string;
  orderId: string;
  disputeReasonId: number;
  expectType: 1 | 2;
  refundType: 1 | 2;
  messageText: string;
  imageUrl?: string[];
  videoUrl?: string[];
  productInfoList: DisputeLineInput[];
}
export interface DisputeListQuery {
  orderId?: string;
  disputeId?: number | string;
  orderNumber?: string;
  pageNum?: number;
  pageSize?: number;
  startDate?: number;
  endDate?: number;
  status?: string | number[];
}
export interface ReplyRequest {
  disputeId: string;
  messageText: string;
  imageUrl?: string[];
  videoUrl?: string[];
}

export const DISPUTE_WINDOW_MAX_MS = 90 * 24 * 3600_000;

/** Emoji (pictographs, their variation selector and joiner, skin tones, flags' letters). */
const EMOJI =
  /\p{Extended_Pictographic}|\p{Emoji_Modifier}|\p{Regional_Indicator}|\uFE0F|\u200D|\u20E3/gu;

/**
 * A reply's text as the service stores it (emoji stripped; part 3 §4.13.8), with spacing
 * folded, to recognise a reply already sent. Blank when only emoji were written.
 */
export function storedReplyText(text: string): string {
  return text.replace(EMOJI, "").replace(/\s+/g, " ").trim();
}
export const DISPUTE_MESSAGES_MAX_PAGE = 50;
