/** The Inventory page's data as its components see it (the loader's JSON). */
import type { SerializeFrom } from "@remix-run/node";
import type { inventoryPageData } from "../page.server";

export type InventoryData = SerializeFrom<typeof inventoryPageData>;
export type InventoryView = NonNullable<InventoryData["view"]>;
export type Warehouse = NonNullable<InventoryData["warehouse"]>;
/** The address of this page with one parameter set (a product opened, a SKU chosen). */
export type WithParam = (k: string, v: string) => string;
