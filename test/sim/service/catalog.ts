/**
 * A deterministic catalog: categories, products with variants, global warehouses, storages,
 * videos and logistics methods. Same `size` (and seed) → same ids, names and prices.
 */
import { createRng, type Rng } from "./prng";
import type { Cents } from "./money";

export interface CatalogCategory {
  firstName: string;
  seconds: Array<{ name: string; id: string; thirds: Array<{ id: string; name: string }> }>;
}

export interface CatalogVariant {
  vid: string;
  pid: string;
  sku: string;
  nameEn: string;
  key: string; // e.g. "Red-M"
  image: string;
  sellPrice: Cents;
  suggestPrice: Cents;
  weight: number; // grams
  length: number;
  width: number;
  height: number;
  inventory: Record<string, number>; // countryCode → stock
  removed: boolean;
}

export interface CatalogProduct {
  pid: string;
  sku: string; // SPU code
  nameEn: string;
  categoryId: string; // third level
  twoCategoryId: string;
  oneCategoryId: string;
  categoryName: string;
  twoCategoryName: string;
  oneCategoryName: string;
  productType: string;
  image: string;
  images: string[];
  weight: number;
  sellPrice: Cents; // lowest variant price
  listedNum: number;
  createAt: number;
  freeShipping: boolean;
  hasVideo: boolean;
  supplierId: string;
  supplierName: string;
  description: string;
  customizationVersion: number;
  variants: CatalogVariant[];
  removed: boolean; // product query answers 1602002
  /** The sales attributes' names, in the order of each variant's key ("Color-Size"). */
  optionNames: string[];
}

export interface Storage {
  id: string;
  name: string;
  areaId: number;
  areaCountryCode: string;
  province: string;
  city: string;
  address1: string;
  address2: string | null;
  contacts: string | null;
  phone: string;
  zipCode: string | null;
  isSelfPickup: number | null;
  logisticsBrandList: Array<{ id: string; name: string }>;
}

export interface LogisticsOption {
  id: number;
  logisticsName: string;
  basePostage: Cents;
  perExtraItem: Cents;
  arrivalTime: string;
  /** Origins it ships from. */
  from: string[];
  /** Destinations it does not serve. */
  notTo?: string[];
  /** Only these destinations (when set). */
  onlyTo?: string[];
}

export interface Catalog {
  categories: CatalogCategory[];
  products: CatalogProduct[];
  byPid: Map<string, CatalogProduct>;
  bySku: Map<string, CatalogProduct>;
  variantByVid: Map<string, CatalogVariant>;
  variantBySku: Map<string, CatalogVariant>;
  globalWarehouses: Array<Record<string, unknown>>;
  storages: Storage[];
  logistics: LogisticsOption[];
}

const NOUNS = [
  "Mug",
  "Lamp",
  "Backpack",
  "Watch",
  "Scarf",
  "Charger",
  "Bottle",
  "Pillow",
  "Sneaker",
  "Headphones",
  "Wallet",
  "Candle",
  "Blanket",
  "Phone Case",
  "Sunglasses",
];
const ADJECTIVES = [
  "Classic",
  "Portable",
  "Vintage",
  "Minimal",
  "Deluxe",
  "Smart",
  "Eco",
  "Cozy",
  "Sport",
  "Compact",
];
const COLORS = ["Red", "Blue", "Black", "White", "Green"];
const SIZES = ["S", "M", "L", "XL"];
const SUPPLIERS = ["Acme Supply", "Northwind Goods", "Harbor Trading", "Blue Peak Co"];
const COUNTRIES = ["CN", "US", "DE", "GB", "TH"];

const CATEGORY_TREE: Array<[string, Array<[string, string[]]>]> = [
  [
    "Home & Garden",
    [
      ["Kitchen", ["Mugs", "Bottles", "Utensils"]],
      ["Decor", ["Candles", "Lamps", "Pillows"]],
    ],
  ],
  [
    "Fashion",
    [
      ["Accessories", ["Scarves", "Wallets", "Sunglasses"]],
      ["Shoes", ["Sneakers", "Boots", "Sandals"]],
    ],
  ],
  [
    "Electronics",
    [
      ["Audio", ["Headphones", "Speakers", "Earbuds"]],
      ["Mobile", ["Chargers", "Phone Cases", "Cables"]],
    ],
  ],
  [
    "Sports & Outdoors",
    [
      ["Camping", ["Backpacks", "Blankets", "Lanterns"]],
      ["Fitness", ["Watches", "Mats", "Bands"]],
    ],
  ],
];

/** Destinations priced as Europe (a zone of the simulated freight table). */
export const EUROPE = [
  "AT",
  "BE",
  "DE",
  "DK",
  "ES",
  "FI",
  "FR",
  "GB",
  "IE",
  "IT",
  "NL",
  "PL",
  "PT",
  "SE",
];

export const LOGISTICS: LogisticsOption[] = [
  {
    id: 9001,
    logisticsName: "SvcPacket Ordinary",
    basePostage: 499n,
    perExtraItem: 100n,
    arrivalTime: "7-12",
    from: ["CN"],
  },
  {
    id: 9002,
    logisticsName: "SvcPacket Sensitive",
    basePostage: 599n,
    perExtraItem: 120n,
    arrivalTime: "8-15",
    from: ["CN"],
    notTo: ["AU", "NZ"],
  },
  {
    id: 9003,
    logisticsName: "Express Air",
    basePostage: 1499n,
    perExtraItem: 300n,
    arrivalTime: "3-5",
    from: ["CN", "US", "DE"],
  },
  {
    id: 9004,
    logisticsName: "USPS",
    basePostage: 399n,
    perExtraItem: 80n,
    arrivalTime: "2-5",
    from: ["CN", "US", "DE"],
    // Not to Europe or Oceania (the simulated service's offer; kept off the blocked destinations
    // so that their refusal stays an interception at confirmation).
    notTo: [...EUROPE, "AU", "NZ"],
  },
];

export function buildCatalog(size = 300, seed = 20261122): Catalog {
  const rng = createRng(seed);
  const categories: CatalogCategory[] = [];
  const thirds: Array<{
    first: string;
    firstId: string;
    second: string;
    secondId: string;
    id: string;
    name: string;
  }> = [];
  CATEGORY_TREE.forEach(([firstName, seconds], i) => {
    const firstId = `CAT1-${i + 1}`;
    categories.push({
      firstName,
      seconds: seconds.map(([name, names], j) => {
        const secondId = `CAT2-${i + 1}-${j + 1}`;
        const ts = names.map((n, k) => ({ id: `CAT3-${i + 1}-${j + 1}-${k + 1}`, name: n }));
        for (const t of ts)
          thirds.push({ first: firstName, firstId, second: name, secondId, ...t });
        return { name, id: secondId, thirds: ts };
      }),
    });
  });

  const products: CatalogProduct[] = [];
  const base = Date.UTC(2025, 0, 1);
  for (let i = 0; i < size; i++) products.push(makeProduct(rng, i, thirds, base));
  products.push(threeOptionProduct(createRng(seed + 1), thirds, base));

  const byPid = new Map(products.map((p) => [p.pid, p]));
  const bySku = new Map(products.map((p) => [p.sku, p]));
  const variantByVid = new Map<string, CatalogVariant>();
  const variantBySku = new Map<string, CatalogVariant>();
  for (const p of products) {
    for (const v of p.variants) {
      variantByVid.set(v.vid, v);
      variantBySku.set(v.sku, v);
    }
  }
  return {
    categories,
    products,
    byPid,
    bySku,
    variantByVid,
    variantBySku,
    globalWarehouses: globalWarehouses(),
    storages: storages(),
    logistics: LOGISTICS,
  };
}

function makeProduct(
  rng: Rng,
  i: number,
  thirds: Array<{
    first: string;
    firstId: string;
    second: string;
    secondId: string;
    id: string;
    name: string;
  }>,
  base: number,
): CatalogProduct {
  const pid = rng.uuid();
  const sku = `SVC${String(1000 + i).padStart(6, "0")}`;
  const nameEn = `${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)} ${i + 1}`;
  const cat = rng.pick(thirds);
  const typeRoll = rng.next();
  const productType =
    typeRoll < 0.8 ? "ORDINARY_PRODUCT" : typeRoll < 0.92 ? "SUPPLIER_PRODUCT" : "SERVICE_PRODUCT";
  const image = `https://img.svc.test/p/${sku}.jpg`;
  const basePrice = BigInt(rng.int(199, 8999));
  const colors = COLORS.slice(0, rng.int(1, 3));
  const sizes = rng.next() < 0.5 ? SIZES.slice(0, rng.int(1, 3)) : [];
  const combos = sizes.length ? colors.flatMap((c) => sizes.map((s) => `${c}-${s}`)) : colors;
  const removed = i > 0 && i % 97 === 0; // a few removed products, deterministic
  const variants: CatalogVariant[] = combos.map((key, k) => {
    const inventory: Record<string, number> = {};
    for (const c of COUNTRIES) inventory[c] = rng.next() < 0.6 ? rng.int(0, 2000) : 0;
    const sellPrice = basePrice + BigInt(k * 50);
    return {
      vid: rng.uuid(),
      pid,
      sku: `${sku}-${key.replace(/[^A-Za-z0-9]+/g, "")}`,
      nameEn: `${nameEn} ${key}`,
      key,
      image: `https://img.svc.test/v/${sku}-${k}.jpg`,
      sellPrice,
      suggestPrice: (sellPrice * 25n) / 10n,
      weight: rng.int(50, 2000),
      length: rng.int(50, 400),
      width: rng.int(50, 400),
      height: rng.int(10, 200),
      inventory,
      removed: removed || (i % 89 === 5 && k === 0), // some single removed variants too
    };
  });
  return {
    pid,
    sku,
    nameEn,
    categoryId: cat.id,
    twoCategoryId: cat.secondId,
    oneCategoryId: cat.firstId,
    categoryName: cat.name,
    twoCategoryName: cat.second,
    oneCategoryName: cat.first,
    productType,
    image,
    images: [image, `https://img.svc.test/p/${sku}-2.jpg`],
    weight: variants[0]?.weight ?? 100,
    sellPrice: basePrice,
    listedNum: rng.int(0, 5000),
    createAt: base - i * 3_600_000 * 7,
    freeShipping: rng.next() < 0.3,
    hasVideo: rng.next() < 0.25,
    supplierId: `SUP${rng.int(1, SUPPLIERS.length)}`,
    supplierName: rng.pick(SUPPLIERS),
    description: `<p>${nameEn}: a dependable product for everyday use.</p>`,
    customizationVersion: rng.next() < 0.05 ? 5 : 0,
    variants,
    removed,
    optionNames: sizes.length ? ["Color", "Size"] : ["Color"],
  };
}

/** The SPU of the catalog's one product with three sales attributes (5 × 4 × 2 = 40 variants). */
export const THREE_OPTION_SKU = "SVC-TRAIL-JACKET";
const MATERIALS = ["Cotton", "Nylon"];

/** A jacket in 5 colours, 4 sizes and 2 materials: keys like "Red-M-Cotton". */
function threeOptionProduct(
  rng: Rng,
  thirds: Array<{
    first: string;
    firstId: string;
    second: string;
    secondId: string;
    id: string;
    name: string;
  }>,
  base: number,
): CatalogProduct {
  const pid = rng.uuid();
  const cat = thirds[0]!;
  const nameEn = "Trail Jacket";
  const image = `https://img.svc.test/p/${THREE_OPTION_SKU}.jpg`;
  const keys = COLORS.flatMap((c) => SIZES.flatMap((z) => MATERIALS.map((m) => `${c}-${z}-${m}`)));
  const variants: CatalogVariant[] = keys.map((key, k) => {
    const inventory: Record<string, number> = {};
    for (const c of COUNTRIES) inventory[c] = c === "CN" ? 100 + k : c === "US" ? 10 : 0;
    const sellPrice = 1500n + BigInt((k % 4) * 100);
    return {
      vid: rng.uuid(),
      pid,
      sku: `${THREE_OPTION_SKU}-${key.replace(/[^A-Za-z0-9]+/g, "")}`,
      nameEn: `${nameEn} ${key}`,
      key,
      image: `https://img.svc.test/v/${THREE_OPTION_SKU}-${k}.jpg`,
      sellPrice,
      suggestPrice: (sellPrice * 25n) / 10n,
      weight: 600,
      length: 300,
      width: 250,
      height: 40,
      inventory,
      removed: false,
    };
  });
  return {
    pid,
    sku: THREE_OPTION_SKU,
    nameEn,
    categoryId: cat.id,
    twoCategoryId: cat.secondId,
    oneCategoryId: cat.firstId,
    categoryName: cat.name,
    twoCategoryName: cat.second,
    oneCategoryName: cat.first,
    productType: "ORDINARY_PRODUCT",
    image,
    images: [image, `https://img.svc.test/p/${THREE_OPTION_SKU}-2.jpg`],
    weight: 600,
    sellPrice: 1500n,
    listedNum: 1200,
    createAt: base + 3_600_000,
    freeShipping: false,
    hasVideo: false,
    supplierId: "SUP1",
    supplierName: SUPPLIERS[0]!,
    description: "<p>Trail Jacket: light, warm and water-resistant.</p>",
    customizationVersion: 0,
    variants,
    removed: false,
    optionNames: ["Color", "Size", "Material"],
  };
}

function globalWarehouses(): Array<Record<string, unknown>> {
  const rows: Array<[number, string, string, string, string, string, string]> = [
    [1, "CN", "China", "中国", "China", "Chinesisch", "Chine"],
    [2, "US", "United States", "美国", "Vereinigte Staaten", "États-Unis", "สหรัฐอเมริกา"],
    [3, "DE", "Germany", "德国", "Deutschland", "Allemagne", "เยอรมนี"],
    [4, "GB", "United Kingdom", "英国", "Vereinigtes Königreich", "Royaume-Uni", "สหราชอาณาจักร"],
    [5, "TH", "Thailand", "泰国", "Thailand", "Thaïlande", "ประเทศไทย"],
  ];
  return rows.map(([areaId, code, en, zh, de, fr, th]) => ({
    areaCn: `${zh}仓`,
    areaEn: `${en} Warehouse`,
    areaId,
    countryCode: code,
    nameEn: en,
    valueEn: code,
    disabled: false,
    zh,
    en,
    de,
    fr,
    th,
    id: String(areaId),
  }));
}

function storages(): Storage[] {
  const brands = LOGISTICS.map((l) => ({ id: String(l.id), name: l.logisticsName }));
  return [
    {
      id: "STG-CN-1",
      name: "Shenzhen Warehouse",
      areaId: 1,
      areaCountryCode: "CN",
      province: "Guangdong",
      city: "Shenzhen",
      address1: "1 Warehouse Road",
      address2: null,
      contacts: "Li",
      phone: "+86 755 0000 0001",
      zipCode: "518000",
      isSelfPickup: 0,
      logisticsBrandList: brands,
    },
    {
      id: "STG-US-1",
      name: "Chino Warehouse",
      areaId: 2,
      areaCountryCode: "US",
      province: "CA",
      city: "Chino",
      address1: "200 Logistics Ave",
      address2: "Unit 5",
      contacts: null,
      phone: "+1 909 000 0002",
      zipCode: "91710",
      isSelfPickup: 1,
      logisticsBrandList: brands.slice(2),
    },
    {
      id: "STG-DE-1",
      name: "Dortmund Warehouse",
      areaId: 3,
      areaCountryCode: "DE",
      province: "NRW",
      city: "Dortmund",
      address1: "Lagerstraße 3",
      address2: null,
      contacts: "Müller",
      phone: "+49 231 000003",
      zipCode: null,
      isSelfPickup: null,
      logisticsBrandList: brands.slice(0, 2),
    },
  ];
}

export function totalInventory(v: CatalogVariant): number {
  return Object.values(v.inventory).reduce((a, b) => a + b, 0);
}

export function productInventory(p: CatalogProduct): number {
  return p.variants.reduce((a, v) => a + totalInventory(v), 0);
}

export function postageFor(option: LogisticsOption, items: number): Cents {
  return option.basePostage + option.perExtraItem * BigInt(Math.max(0, items - 1));
}

/** Is the method offered from `from` to `to` (two-letter codes)? */
export function offers(option: LogisticsOption, from: string, to: string): boolean {
  const f = from.toUpperCase();
  const t = to.toUpperCase();
  if (!option.from.includes(f)) return false;
  if (option.onlyTo && !option.onlyTo.includes(t)) return false;
  return !option.notTo?.includes(t);
}

/** The methods offered on a route, in the table's order. */
export function logisticsOffered(from: string, to: string): LogisticsOption[] {
  return LOGISTICS.filter((o) => offers(o, from, to));
}

/** Zone of a destination: the home market (US) 1, Europe 2, elsewhere 3. */
function zoneOf(to: string): 1 | 2 | 3 {
  const t = to.toUpperCase();
  if (t === "US") return 1;
  return EUROPE.includes(t) ? 2 : 3;
}

/** Postage on a route: the base grows by a quarter per zone past the first. */
export function postageTo(option: LogisticsOption, to: string, items: number): Cents {
  const base = postageFor(option, items);
  return (base * BigInt(4 + zoneOf(to) - 1)) / 4n;
}

/** Transit days on a route ("min-max"): two more days per zone past the first. */
export function agingTo(option: LogisticsOption, to: string): string {
  const [min, max] = option.arrivalTime.split("-").map(Number);
  const extra = 2 * (zoneOf(to) - 1);
  return `${min! + extra}-${max! + extra}`;
}

export function logisticsByName(name: string): LogisticsOption | undefined {
  return LOGISTICS.find((l) => l.logisticsName.toLowerCase() === name.trim().toLowerCase());
}
