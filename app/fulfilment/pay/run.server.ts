/**
 * One payment batch, run step by step: `STEPS` gives the step of each batch state, and
 * `runBatch` loops `state = await STEPS[state](ctx, run)` until a step is done with the batch
 * (paid, failed, held or waiting for the next run). Every step persists its result on the
 * PaymentBatch and its orders before the next, so a crash resumes the batch where it stopped.
 * A round guard stops a batch that does not move on.
 */
import type { PaymentBatch } from "@prisma/client";
import { SvcCartError, SvcError, SvcParamError } from "../../svc/errors";
import { addTimelineMany, errorFields } from "../../orders/timeline.server";
import { cartStep, confirmingStep, confirmStep } from "./cart.server";
import {
  BATCH_STATES,
  batchOrders,
  idsOf,
  setBatch,
  type BatchRun,
  type BatchState,
  type RunCtx,
  type Step,
} from "./context.server";
import { adoptPaidAtService, dropFromBatch } from "./leave.server";
import { parentStep, reserveStep } from "./parent.server";
import { resumePayStep } from "./pay-once.server";

export const STEPS: Record<BatchState, Step> = {
  open: cartStep,
  carted: confirmStep,
  confirming: confirmingStep,
  confirmed: parentStep,
  parented: reserveStep,
  paying: resumePayStep,
};

/** At most this many steps per batch and run: each step moves the batch on, or the run stops. */
const ROUNDS = 8;

export async function runBatch(ctx: RunCtx, batch: PaymentBatch): Promise<void> {
  let state = batch.state;
  let current = batch;
  for (let round = 0; round < ROUNDS; round++) {
    const orders = await batchOrders(ctx.deps.prisma, current.id);
    if (orders.length === 0) {
      await setBatch(ctx, current.id, { state: "failed", error: "no order left in the batch" });
      return;
    }
    if (!(BATCH_STATES as readonly string[]).includes(state)) return;
    const run: BatchRun = { batch: current, orders, at: state as BatchState };
    try {
      const next = await STEPS[run.at](ctx, run);
      current = run.batch;
      if (next === "done") return;
      state = next;
    } catch (error) {
      await failedRound(ctx, run, error);
      return;
    }
  }
}

/**
 * A step threw. A cart or parameter refusal ends the batch: every order leaves, paid at the
 * service already (a cart refuses those too) or with the service's message. Anything else is
 * written on the orders' timelines and thrown, for the job to try again; an unknown outcome of
 * the confirmation is resumed on the next run through the "confirming" check.
 */
async function failedRound(ctx: RunCtx, run: BatchRun, error: unknown): Promise<void> {
  const { orders, at } = run;
  if (error instanceof SvcCartError || error instanceof SvcParamError) {
    const paidElsewhere = at === "open" ? await adoptPaidAtService(ctx, orders) : new Set<string>();
    await dropFromBatch(
      ctx,
      orders.filter((o) => !paidElsewhere.has(o.id)),
      "Refused by the service",
      new Map(),
      error,
    );
    await setBatch(ctx, run.batch.id, { state: "failed", error: errorFields(error).message });
    return;
  }
  if (error instanceof SvcError && error.outcomeUnknown && at === "confirming") throw error;
  const f = errorFields(error);
  await addTimelineMany(ctx.deps.prisma, idsOf(run), {
    step: `pay:${at}`,
    outcome: "error",
    errorCode: f.errorCode,
    requestId: f.requestId,
    message: `Will try again: ${f.message}`,
  });
  throw error;
}
