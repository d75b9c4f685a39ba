/** The dashboard's data as its cards see it (the loader's JSON; the live balance comes later). */
import type { SerializeFrom } from "@remix-run/node";
import type { dashboardData } from "../../dashboard.server";

export type DashboardData = SerializeFrom<typeof dashboardData>;
/** What the dashboard warns about, from what the app knows without asking the service. */
export type Warnings = DashboardData["warnings"];
/** The live balance, asked of the service while the page shows. */
export type Live = { amount: string | null; error: string | null; outage: boolean };
