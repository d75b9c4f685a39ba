/**
 * Part 3 §4.13: disputes (products, confirm info, create, cancel, list, detail, messages, reply,
 * uploadFile). The request and reply shapes are in dispute-shapes.ts. create, cancel, reply and
 * uploadFile are never retried blindly; after an unknown outcome of a reply, read the messages
 * before sending again (`replyOnce`).
 */
import {
  DISPUTE_MESSAGES_MAX_PAGE,
  DISPUTE_WINDOW_MAX_MS,
  disputeConfirmInfoSchema,
  disputeDetailSchema,
  disputeMessageSchema,
  disputeProductsSchema,
  disputeRecordSchema,
  storedReplyText,
  uploadFileSchema,
  type CreateDisputeRequest,
  type DisputeConfirmInfo,
  type DisputeDetail,
  type DisputeLineInput,
  type DisputeListQuery,
  type DisputeMessage,
  type DisputeProducts,
  type DisputeRecord,
  type ReplyRequest,
} from "./dispute-shapes";
import { SvcError } from "./errors";
import { defineOp } from "./ops";
import { bool, page, type Page } from "./schema-kit";
import type { Transport } from "./transport.server";
import { compact, type ObjectSpec, validateRequest } from "./validate";

export const DISPUTE_OPS = {
  disputeProducts: defineOp("disputeProducts", "GET", "/disputes/disputeProducts", "safe"),
  disputeConfirmInfo: defineOp(
    "disputeConfirmInfo",
    "POST",
    "/disputes/disputeConfirmInfo",
    "safe",
  ),
  create: defineOp("disputes/create", "POST", "/disputes/create", "never"),
  cancel: defineOp("disputes/cancel", "POST", "/disputes/cancel", "never"),
  getDisputeList: defineOp("getDisputeList", "GET", "/disputes/getDisputeList", "safe"),
  getDisputeDetail: defineOp("getDisputeDetail", "GET", "/disputes/getDisputeDetail", "safe"),
  getDisputeMessages: defineOp(
    "getDisputeMessages",
    "POST",
    "/disputes/getDisputeMessages",
    "safe",
  ),
  reply: defineOp("disputes/reply", "POST", "/disputes/reply", "never"),
  // The service downloads the file before it answers: up to 20 s to the first byte and 120 s
  // in all (part 3 §4.13.9), so the call may take that long.
  uploadFile: defineOp("disputes/uploadFile", "POST", "/disputes/uploadFile", "never", {
    minTimeoutMs: 150_000,
  }),
} as const;

const SPECS = {
  confirm: {
    orderId: { type: "string", required: true, max: 100 },
    productInfoList: {
      type: "array",
      required: true,
      minItems: 1,
      item: {
        lineItemId: { type: "string" },
        quantity: { type: "int", required: true },
        price: { type: "decimal", required: true },
      },
    },
  },
  create: {
    businessDisputeId: { type: "string", required: true, max: 100 },
    orderId: { type: "string", required: true, max: 100 },
    disputeReasonId: { type: "int", required: true, max: 10 },
    expectType: { type: "int", required: true, max: 20 },
    refundType: { type: "int", required: true, max: 20 },
    messageText: { type: "string", required: true, max: 500 },
    imageUrl: { type: "stringArray", itemMax: 200 },
    videoUrl: { type: "stringArray", itemMax: 200 },
    productInfoList: {
      type: "array",
      required: true,
      minItems: 1,
      item: {
        price: { type: "decimal", required: true },
        lineItemId: { type: "string", max: 100 },
        quantity: { type: "int", required: true, max: 10 },
      },
    },
  },
  list: {
    orderId: { type: "string", max: 100 },
    orderNumber: { type: "string", max: 100 },
    pageNum: { type: "int", min: 1 },
    pageSize: { type: "int", min: 1 },
    startDate: { type: "int" },
    endDate: { type: "int" },
  },
  reply: {
    disputeId: { type: "string", required: true, max: 100 },
    messageText: { type: "string", required: true, max: 500, notBlank: true },
    imageUrl: { type: "stringArray" },
    videoUrl: { type: "stringArray" },
  },
} satisfies Record<string, ObjectSpec>;

export class DisputesResource {
  constructor(private readonly t: Transport) {}

  async products(orderId: string): Promise<DisputeProducts> {
    validateRequest(
      "disputeProducts",
      { orderId: { type: "string", required: true, max: 100 } },
      { orderId },
    );
    return this.t.call(DISPUTE_OPS.disputeProducts, { query: { orderId } }, disputeProductsSchema);
  }

  async confirmInfo(
    orderId: string,
    productInfoList: DisputeLineInput[],
  ): Promise<DisputeConfirmInfo> {
    const body = { orderId, productInfoList };
    validateRequest("disputeConfirmInfo", SPECS.confirm, body);
    return this.t.call(DISPUTE_OPS.disputeConfirmInfo, { body }, disputeConfirmInfoSchema);
  }

  async create(req: CreateDisputeRequest): Promise<boolean> {
    validateRequest("disputes/create", SPECS.create, req);
    return this.t.call(
      DISPUTE_OPS.create,
      { body: compact({ ...req }) },
      bool.transform((v) => v !== false),
    );
  }

  async cancel(orderId: string, disputeId: string): Promise<boolean> {
    const body = { orderId, disputeId };
    validateRequest(
      "disputes/cancel",
      {
        orderId: { type: "string", required: true, max: 100 },
        disputeId: { type: "string", required: true, max: 100 },
      },
      body,
    );
    return this.t.call(
      DISPUTE_OPS.cancel,
      { body },
      bool.transform((v) => v !== false),
    );
  }

  async list(q: DisputeListQuery = {}): Promise<Page<DisputeRecord>> {
    validateRequest("getDisputeList", SPECS.list, q);
    if ((q.startDate === undefined) !== (q.endDate === undefined)) {
      validateRequest(
        "getDisputeList",
        { "startDate|endDate": { type: "int", required: true } },
        {},
      );
    }
    if (q.startDate !== undefined && q.endDate !== undefined) {
      if (q.endDate < q.startDate || q.endDate - q.startDate > DISPUTE_WINDOW_MAX_MS) {
        validateRequest(
          "getDisputeList",
          {
            endDate: {
              type: "int",
              maxValue: q.startDate + DISPUTE_WINDOW_MAX_MS,
              min: q.startDate,
            },
          },
          q,
        );
      }
    }
    const status = Array.isArray(q.status) ? q.status.join(",") : q.status;
    return this.t.call(
      DISPUTE_OPS.getDisputeList,
      { query: { ...q, status } },
      page(disputeRecordSchema),
    );
  }

  async detail(disputeId: string): Promise<DisputeDetail> {
    validateRequest(
      "getDisputeDetail",
      { disputeId: { type: "string", required: true, max: 100 } },
      { disputeId },
    );
    return this.t.call(DISPUTE_OPS.getDisputeDetail, { query: { disputeId } }, disputeDetailSchema);
  }

  async messagesPage(disputeId: string, pageNum = 1, pageSize = 10): Promise<Page<DisputeMessage>> {
    const body = { disputeId, pageNum, pageSize };
    validateRequest(
      "getDisputeMessages",
      {
        disputeId: { type: "string", required: true, max: 100 },
        pageNum: { type: "int", min: 1 },
        pageSize: { type: "int", min: 1, maxValue: DISPUTE_MESSAGES_MAX_PAGE },
      },
      body,
    );
    return this.t.call(DISPUTE_OPS.getDisputeMessages, { body }, page(disputeMessageSchema));
  }

  /**
   * The messages of a dispute, by the contract's rule: ask for 50 once and trust `list`
   * (`total` comes from another store and pages may overlap).
   */
  async messages(disputeId: string): Promise<DisputeMessage[]> {
    const p = await this.messagesPage(disputeId, 1, DISPUTE_MESSAGES_MAX_PAGE);
    return p.items;
  }

  /** Sends a reply. Not idempotent: never retried. See `replyOnce`. */
  async reply(req: ReplyRequest): Promise<boolean> {
    validateRequest("disputes/reply", SPECS.reply, req);
    return this.t.call(
      DISPUTE_OPS.reply,
      { body: compact({ ...req }) },
      bool.transform((v) => v !== false),
    );
  }

  /**
   * Sends a reply unless it is already there: after an unknown outcome, reads the messages and
   * resends only when no buyer message with the same text exists.
   */
  async replyOnce(req: ReplyRequest): Promise<{ sent: boolean; alreadyThere: boolean }> {
    try {
      await this.reply(req);
      return { sent: true, alreadyThere: false };
    } catch (error) {
      if (!(error instanceof SvcError && error.outcomeUnknown)) throw error;
      // The service strips emoji from what it stores: compare the text as it would keep it.
      const text = storedReplyText(req.messageText);
      const there = (await this.messages(req.disputeId)).some(
        (m) => m.userType === "1" && storedReplyText(m.message ?? "") === text,
      );
      if (there) return { sent: false, alreadyThere: true };
      await this.reply(req);
      return { sent: true, alreadyThere: false };
    }
  }

  /** Copies a public file to a non-expiring service address. */
  async uploadFile(fileUrl: string): Promise<string> {
    validateRequest(
      "disputes/uploadFile",
      { fileUrl: { type: "string", required: true, max: 2000 } },
      { fileUrl },
    );
    return this.t.call(DISPUTE_OPS.uploadFile, { body: { fileUrl } }, uploadFileSchema);
  }
}
