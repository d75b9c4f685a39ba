/** The products page's data as its components see it (the loader's JSON). */
import type { SerializeFrom } from "@remix-run/node";
import type { productsPage } from "../products-page.server";

export type ProductsData = SerializeFrom<typeof productsPage>;
export type Row = ProductsData["products"][number]["variants"][number];
export type Picker = NonNullable<ProductsData["picker"]>;
export type PickVariant = Row & { product: ProductsData["products"][number] };
