/** The disputes pages' data as their components see it (the loaders' JSON). */
import type { SerializeFrom } from "@remix-run/node";
import type { openOptions } from "../open.server";
import type { disputeDetail, listDisputes } from "../page.server";

/** One dispute as its page shows it (app/disputes/page.server.ts, disputeDetail). */
export type DisputeData = NonNullable<SerializeFrom<typeof disputeDetail>>;
/** The disputes list: its filter, views, statuses and the page's disputes. */
export type DisputesData = SerializeFrom<typeof listDisputes>;
/** One row of the disputes list. */
export type DisputeRow = DisputesData["disputes"][number];
/** What the open-a-dispute form offers: the order's lines, the reasons, what can be asked. */
export type OpenOptions = SerializeFrom<typeof openOptions>;
