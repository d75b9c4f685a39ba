/** The Catalog page's data as its components see it (the loader's JSON). */
import type { SerializeFrom } from "@remix-run/node";
import type { catalogPageData } from "../page.server";

export type CatalogData = SerializeFrom<typeof catalogPageData>;
export type CatalogResult = CatalogData["results"][number];
export type CatalogImport = CatalogData["imports"][number];
