/**
 * What a page reads from the service is bounded: a page never keeps the merchant waiting on a
 * service that is slow or down. Its reads use a client with short attempts and one quick retry,
 * and the page as a whole stops waiting at PAGE_READ_DEADLINE_MS: it then shows what the app
 * knows (its own database) and says, in plain words, what could not be read. A read still under
 * way after the deadline ends by its own time-out; nobody waits for it.
 *
 * Only reads: an action that changes something at the service keeps the client's usual
 * time-outs and retries (clientForShop), because giving up on a write early says nothing of
 * whether it happened.
 */
import type { PrismaClient } from "@prisma/client";
import { svcClientForAccount, type SvcClient } from "../svc/index.server";

/** How long a page waits for all of its service reads together. */
export const PAGE_READ_DEADLINE_MS = 2500;
/** One attempt of one read. */
const READ_ATTEMPT_MS = 2000;

/** The page stopped waiting for the service. */
export class PageDeadlineError extends Error {
  override name = "PageDeadlineError";
  constructor(readonly what: string) {
    super(`${what} did not answer in time`);
  }
}

/** A client for a page's reads: short attempts, one quick retry. Null when not connected. */
export async function pageClientForShop(db: PrismaClient, shop: string): Promise<SvcClient | null> {
  const account = await db.svcAccount.findUnique({ where: { shopDomain: shop } });
  if (!account) return null;
  return svcClientForAccount(account.id, {
    prisma: db,
    timeoutMs: READ_ATTEMPT_MS,
    connectTimeoutMs: 1000,
    retry: { maxAttempts: 2, baseDelayMs: 100, maxDelayMs: 250 },
  });
}

/**
 * `read`, or a PageDeadlineError once `ms` have passed (the read goes on alone and its outcome
 * is dropped). `what` names what was being read, in the merchant's words.
 */
export function withinPageDeadline<T>(
  read: Promise<T>,
  what: string,
  ms: number = PAGE_READ_DEADLINE_MS,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PageDeadlineError(what)), ms);
  });
  // The read may fail after the page stopped waiting: that is not an unhandled error.
  read.catch(() => undefined);
  return Promise.race([read, late]).finally(() => clearTimeout(timer));
}

/** The sentence a page shows when its reads ran out of time. */
export function deadlineText(error: PageDeadlineError): string {
  return `${error.what} did not answer within a few seconds, so this page shows what the app already knows. Nothing is lost: try again in a moment.`;
}
