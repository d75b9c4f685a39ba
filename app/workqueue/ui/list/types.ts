/** The orders list's data as its parts see it (the loader's JSON). */
import type { SerializeFrom } from "@remix-run/node";
import type { ordersListPage } from "../../orders.server";

export type OrdersListData = SerializeFrom<typeof ordersListPage>;
/** One order of the list. */
export type Row = OrdersListData["orders"][number];
/** The search, dates, sort and view the list was read with. */
export type Filter = OrdersListData["filter"];
/** The shop's latest bulk run. */
export type BulkRun = NonNullable<OrdersListData["bulk"]>;
