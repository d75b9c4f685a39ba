/**
 * Opening a dispute on an order (part 3 §4.13): the form's options (disputeProducts, then
 * disputeConfirmInfo), the lines checked, then create. create carries our businessDisputeId,
 * unique per dispute at the service: after an unknown outcome the same create is sent once
 * more, and "already exists" means it was made; a double submit of the same form (its one-time
 * key) finds the first one's row.
 */
import { createHash } from "node:crypto";
import { Prisma, type PrismaClient } from "@prisma/client";
import { z } from "zod";
import { addTimeline } from "../orders/timeline.server";
import type { SvcClient } from "../svc/client.server";
import { SvcError, SvcParamError } from "../svc/errors";
import { storedReplyText, type DisputeConfirmInfo } from "../svc/dispute-shapes";
import { DisputeInputError, attachmentsToService, messageText } from "./forms.server";
import { syncRecord, type SyncAccount } from "./sync.server";

/**
 * Built per call (cheap), as the reply's schema: nothing of the module runs on import but
 * constants.
 */
const openSchema = () =>
  z.object({
    reasonId: z.coerce.number().int().positive("Choose a reason"),
    expectType: z.enum(["1", "2"], "Choose a refund or a reissue").transform(Number),
    refundType: z.enum(["1", "2"], "Choose where the refund goes").transform(Number),
    text: messageText("Say what went wrong"),
    clientKey: z.string().min(8).max(64),
  });

type OpenForm = z.output<ReturnType<typeof openSchema>>;

export interface OpenInput {
  orderId: string;
  /** lineItemId → quantity (0 = not disputed). */
  quantities: Record<string, number>;
  reasonId: string;
  expectType: string;
  refundType: string;
  text: string;
  clientKey: string;
  files: File[];
  addresses: string[];
}

/** The order's lines and choices for the open form (disputeProducts, then confirm info). */
export async function openOptions(client: SvcClient, svcOrderId: string) {
  const products = await client.disputes.products(svcOrderId);
  const choosable = products.productInfoList.filter(
    (l) => l.canChoose !== false && (l.quantity ?? 0) > 0,
  );
  let info: DisputeConfirmInfo | null = null;
  if (choosable.length) {
    info = await client.disputes.confirmInfo(
      svcOrderId,
      choosable.map((l) => ({
        lineItemId: l.lineItemId ?? undefined,
        quantity: 1,
        price: l.price ?? "0",
      })),
    );
  }
  return {
    orderNumber: products.orderNumber ?? null,
    lines: products.productInfoList.map((l) => ({
      lineItemId: l.lineItemId ?? "",
      name: l.svcProductName ?? l.sku ?? "Product",
      sku: l.sku ?? null,
      image: l.svcImage ?? null,
      price: l.price ?? "0",
      available: l.quantity ?? 0,
      canChoose: l.canChoose !== false && (l.quantity ?? 0) > 0,
    })),
    reasons: (info?.disputeReasonList ?? []).map((r) => ({
      id: String(r.disputeReasonId),
      name: r.reasonName ?? `Reason ${r.disputeReasonId}`,
    })),
    expectOptions: (info?.expectResultOptionList ?? ["1", "2"]).map(String),
  };
}

/** Our businessDisputeId for a form's one-time key (a double submit gives the same one). */
function businessId(shop: string, clientKey: string): string {
  return `bd-${createHash("sha256").update(`${shop}:${clientKey}`).digest("hex").slice(0, 32)}`;
}

/** The lines, reason and outcome checked against the service; the attachments copied. */
async function prepare(
  db: PrismaClient,
  client: SvcClient,
  shop: string,
  appUrl: string,
  input: OpenInput,
  { id, svcOrderId, form }: { id: string; svcOrderId: string; form: OpenForm },
) {
  const products = await client.disputes.products(svcOrderId);
  const chosen = chosenLines(products.productInfoList, input.quantities);
  const info = await client.disputes.confirmInfo(svcOrderId, chosen);
  const reason = info.disputeReasonList.find((r) => r.disputeReasonId === form.reasonId);
  if (!reason)
    throw new DisputeInputError("Choose one of the reasons the service offers.", "reasonId");
  if (!info.expectResultOptionList.map(String).includes(String(form.expectType)))
    throw new DisputeInputError("The service does not offer that outcome here.", "expectType");
  const files = await attachmentsToService(db, client, shop, appUrl, input);
  await db.dispute.update({
    where: { id },
    data: {
      reason: reason.reasonName,
      orderNumber: info.orderNumber ?? null,
      lines: chosen as unknown as Prisma.InputJsonValue,
    },
  });
  return { chosen, reason: reason.reasonName ?? "reason given", files };
}

/**
 * Opens a dispute on a shop order. The app's row (a `pending:` id until the service lists it)
 * is written first: a second submit of the same form meets it and sends nothing.
 */
export async function openDispute(
  db: PrismaClient,
  client: SvcClient,
  account: SyncAccount,
  appUrl: string,
  input: OpenInput,
): Promise<{ disputeId: string; already: boolean }> {
  const parsed = openSchema().safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new DisputeInputError(issue.message, String(issue.path[0] ?? "form"));
  }
  const form = parsed.data;
  const order = await db.shopOrder.findFirst({
    where: { id: input.orderId, shopDomain: account.shopDomain },
    select: { id: true, svcOrderId: true, shopifyOrderName: true, paidAt: true },
  });
  if (!order?.svcOrderId || !order.paidAt)
    throw new DisputeInputError("Disputes can be opened on orders paid at the service only.");
  const bid = businessId(account.shopDomain, form.clientKey);
  const existing = await db.dispute.findFirst({ where: { businessDisputeId: bid } });
  if (existing) return { disputeId: existing.id, already: true };

  // The lock first: a second submit of the same form, even at the same moment, stops here.
  let row;
  try {
    row = await db.dispute.create({
      data: {
        shopDomain: account.shopDomain,
        svcAccountId: account.id,
        svcDisputeId: `pending:${bid}`,
        businessDisputeId: bid,
        orderId: order.id,
        svcOrderId: order.svcOrderId,
        status: "Sent",
        expectType: form.expectType,
        svcCreatedAt: new Date(),
        messages: {
          create: {
            messageId: `pending:${bid}`,
            fromSupport: false,
            at: new Date(),
            text: storedReplyText(form.text),
          },
        },
      },
    });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      const other = await db.dispute.findFirst({ where: { businessDisputeId: bid } });
      if (other) return { disputeId: other.id, already: true };
    }
    throw error;
  }
  const id = row.id;
  try {
    const { chosen, reason, files } = await prepare(db, client, account.shopDomain, appUrl, input, {
      id,
      svcOrderId: order.svcOrderId,
      form,
    });
    await createOnce(client, {
      businessDisputeId: bid,
      orderId: order.svcOrderId,
      disputeReasonId: form.reasonId,
      expectType: form.expectType as 1 | 2,
      refundType: form.refundType as 1 | 2,
      messageText: form.text,
      ...(files.imageUrl.length ? { imageUrl: files.imageUrl } : {}),
      ...(files.videoUrl.length ? { videoUrl: files.videoUrl } : {}),
      productInfoList: chosen,
    });
    await addTimeline(db, order.id, {
      step: "dispute",
      outcome: "info",
      message: `Dispute opened: ${form.expectType === 1 ? "refund" : "reissue"} of ${chosen.reduce((n, l) => n + l.quantity, 0)} item(s), ${reason}.`,
    });
  } catch (error) {
    // Not made (refused, or bad input): the row goes, so the merchant can correct and send
    // again. After an unknown outcome it stays: the sync claims it if the service made it.
    if (!(error instanceof SvcError && error.outcomeUnknown))
      await db.dispute.delete({ where: { id } });
    throw error;
  }
  // Find it in the service's list now, so the page shows its id and status.
  await refreshOrderDisputes(db, client, account, order.svcOrderId).catch(() => undefined);
  return { disputeId: id, already: false };
}

/**
 * The lines a dispute form asks for, checked against the order's lines at the service: each
 * quantity is a whole number no larger than what can be disputed, and says so by name when it
 * is (99 asked of 1 is "more than the 1 ordered", not "choose a line"); a quantity for a line
 * the order no longer has is refused, never dropped. Only when nothing is asked for at all is
 * the answer "choose at least one line".
 */
export function chosenLines(
  lines: {
    lineItemId?: string | null;
    svcProductName?: string | null;
    sku?: string | null;
    quantity?: number | null;
    canChoose?: boolean | null;
    price?: string | null;
  }[],
  quantities: Record<string, number>,
): { lineItemId: string | undefined; quantity: number; price: string }[] {
  const known = new Set(lines.map((l) => l.lineItemId ?? ""));
  for (const [id, q] of Object.entries(quantities)) {
    if (q && !known.has(id))
      throw new DisputeInputError(
        "One of the lines is no longer on the order at the service: reload the page and choose again.",
        "lines",
      );
  }
  const chosen = lines.flatMap((l) => {
    const q = quantities[l.lineItemId ?? ""] ?? 0;
    if (!q) return [];
    const name = l.svcProductName ?? l.sku ?? "A line";
    const most = l.quantity ?? 0;
    if (!Number.isInteger(q) || q < 0)
      throw new DisputeInputError(`${name}: quantities are whole numbers, 0 or more.`, "lines");
    if (l.canChoose === false)
      throw new DisputeInputError(`${name}: an open dispute already covers it.`, "lines");
    if (q > most)
      throw new DisputeInputError(
        `${name}: ${q} is more than the ${most} ordered; at most ${most} can be disputed.`,
        "lines",
      );
    return [{ lineItemId: l.lineItemId ?? undefined, quantity: q, price: l.price ?? "0" }];
  });
  if (chosen.length === 0)
    throw new DisputeInputError(
      "Choose at least one line: give the quantity of each item that went wrong.",
      "lines",
    );
  return chosen;
}

/** create, and once more after an unknown outcome: "already exists" then means it was made. */
async function createOnce(
  client: SvcClient,
  request: Parameters<SvcClient["disputes"]["create"]>[0],
) {
  try {
    await client.disputes.create(request);
  } catch (error) {
    if (!(error instanceof SvcError && error.outcomeUnknown)) throw error;
    try {
      await client.disputes.create(request);
    } catch (again) {
      if (again instanceof SvcParamError && /already exists/i.test(again.message)) return;
      throw again;
    }
  }
}

/** Reads the disputes of one service order (list by orderId) into the app. */
export async function refreshOrderDisputes(
  db: PrismaClient,
  client: SvcClient,
  account: SyncAccount,
  svcOrderId: string,
) {
  const page = await client.disputes.list({ orderId: svcOrderId, pageSize: 50 });
  for (const r of page.items) await syncRecord(db, client, account, r, false);
}
