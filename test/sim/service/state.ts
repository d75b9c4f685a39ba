/** The simulator's in-memory state: accounts, tokens, orders, connections, disputes, calls. */
import { createFileHost, type FileHost } from "./files";
import type { Catalog } from "./catalog";
import type { SimClock } from "./clock";
import type { Cents } from "./money";

export interface Account {
  accountId: string;
  apiKey?: string; // independent merchants only
  openId: string;
  email: string;
  kind: "independent" | "affiliated";
  parentAccountId?: string; // affiliated: the independent merchant that authorised it
  balance: Cents;
  bonus: Cents;
  frozen: Cents;
  callsPerSecond: number;
  queryCallsPerSecond: number;
  shopId: string; // the default API shop
  shopName: string;
  myProducts: Set<string>;
  lastGetAccessTokenAt?: number;
  webhooks: WebhookConfig;
  /** Balance payment restricted on this account: payments answer 1604001 (DESIGN §8). */
  paymentRestricted?: boolean;
}

export interface WebhookSection {
  type: "ENABLE" | "CANCEL";
  callbackUrls: string[];
}

export interface WebhookConfig {
  product?: WebhookSection;
  stock?: WebhookSection;
  order?: WebhookSection;
  logistics?: WebhookSection;
  paused: boolean;
  attempts: number; // since the last webhook/set
  failures: number;
}

export interface TokenRecord {
  accountId: string;
  accessToken: string;
  refreshToken: string;
  createdAt: number; // start of the 24-hour reuse window
  accessExpiresAt: number;
  refreshExpiresAt: number;
  revoked: boolean;
}

export interface AuthorizeRequest {
  secret: string;
  parentAccountId: string;
  email?: string;
  userName?: string;
  redirectUri?: string;
  callbackUri: string;
  state?: string;
  code?: string;
  codeUsed: boolean;
  affiliatedAccountId?: string;
}

export type OrderStatus =
  | "CREATED"
  | "IN_CART"
  | "UNPAID"
  | "UNSHIPPED"
  | "SHIPPED"
  | "DELIVERED"
  | "CANCELLED"
  | "CLOSED";

export interface SimOrderLine {
  lineItemId: string;
  vid: string; // catalog vid once known; the shop's id while unconnected
  storeVid?: string; // store-flow: the shop's variant id as sent
  storeProductId?: string;
  storeProductImg?: string;
  storeProductName?: string;
  storeSku?: string;
  variantOptions?: string;
  storeLineItemId?: string;
  quantity: number;
  unitPrice?: Cents; // the shop's price, as sent
  sellPrice: Cents; // catalog price, 0 until connected
  connected: boolean;
  podProperties?: string;
}

export interface SimOrder {
  /** Service order id; undefined while a store-flow order waits for its connections. */
  orderId?: string;
  /** Internal id, always present (equals orderId once known). */
  internalId: string;
  accountId: string;
  orderNumber: string;
  svcOrderCode?: string;
  status: OrderStatus;
  invalid: boolean; // store flow: waiting for connections
  isSandbox: boolean;
  via: "createOrderV2" | "createOrderV3";
  orderFlow: number;
  shipping: {
    zip?: string;
    countryCode: string;
    country: string;
    province?: string;
    city: string;
    county?: string;
    phone?: string;
    customerName: string;
    address: string;
    address2?: string;
    houseNumber?: string;
    taxId?: string;
    consigneeID?: string;
  };
  /** The order's optional logistics (§4.5), by the id given out for this order only. */
  logisticsOptions?: Map<number, string>;
  email?: string;
  remark?: string;
  logisticName: string;
  fromCountryCode: string;
  shopLogisticsType: number;
  storageId?: string;
  platform: string;
  storeName?: string;
  storeOrderTime?: number;
  lines: SimOrderLine[];
  productAmount: Cents;
  postageAmount: Cents;
  orderAmount: Cents;
  createdAt: number;
  paidAt?: number;
  shippedAt?: number;
  deliveredAt?: number;
  shipmentOrderId?: string;
  payId?: string;
  paid: boolean;
  trackNumber?: string;
  trackingUrl?: string;
  trackingProvider?: string;
  interceptReasons: Array<{ code: number; message: string }>;
  shopId: string;
  shopName: string;
}

export interface Shipment {
  shipmentOrderId: string;
  accountId: string;
  orderIds: string[]; // internal ids
  parentOrderNumber?: string;
  payId?: string;
  paid: boolean;
  amount: Cents;
}

export interface Connection {
  accountId: string;
  shopId: string;
  platformProductId: string;
  platformVariantId: string;
  svcProductId: string;
  svcVariantId: string;
  defaultArea: number;
  logistics: string;
  sourceCountryCode?: string;
  sourceCountry?: string;
  targetCountryCode?: string;
  targetCountry?: string;
}

export interface ShopProduct {
  accountId: string;
  storeProductId: string;
  storeVariantId: string;
  name?: string;
  image?: string;
  sku?: string;
  variantOptions?: string;
  createdAt: number;
}

export interface DisputeMessage {
  messageId: string;
  orderId: string;
  userType: "1" | "2";
  createDate: number;
  message: string;
  imageUrl: string[];
  videoUrl: string[];
}

export interface Dispute {
  id: string;
  accountId: string;
  businessDisputeId: string;
  orderInternalId: string;
  orderId: string;
  orderNumber: string;
  statusCode: number;
  disputeReasonId: number;
  expectType: number;
  refundType: number;
  lines: Array<{ lineItemId: string; quantity: number; price: Cents }>;
  money: Cents;
  finallyDeal: number | null;
  createdAt: number;
  updatedAt: number;
  messages: DisputeMessage[];
}

export interface CallRecord {
  op: string;
  method: string;
  path: string;
  accountId?: string;
  at: number;
  httpStatus: number;
  code?: number;
  body?: unknown; // the request body (or query for GET)
  response?: unknown; // the envelope sent (absent when the reply was dropped)
  fault?: string;
}

export interface SimState {
  clock: SimClock;
  catalog: Catalog;
  accounts: Map<string, Account>;
  tokensByAccess: Map<string, TokenRecord>;
  tokensByRefresh: Map<string, TokenRecord>;
  currentToken: Map<string, TokenRecord>; // accountId → latest issued
  authorizeRequests: Map<string, AuthorizeRequest>; // by secret
  orders: Map<string, SimOrder>; // by internal id
  shipments: Map<string, Shipment>;
  connections: Connection[];
  shopProducts: ShopProduct[];
  disputes: Map<string, Dispute>;
  calls: CallRecord[];
  uploads: Map<string, number>; // accountId → files uploaded (no daily reset in the sim)
  /** Proof-of-delivery and photo files, and uploadFile's copies (served at /__files/). */
  files: FileHost;
  /**
   * Methods the carrier suspended (lower case): quotes still list them (the offer is published
   * ahead), but new orders are refused (1605001) and orders using them are intercepted at
   * confirmation.
   */
  suspendedLogistics: Set<string>;
  seq: number;
}

export function createState(clock: SimClock, catalog: Catalog): SimState {
  return {
    clock,
    catalog,
    accounts: new Map(),
    tokensByAccess: new Map(),
    tokensByRefresh: new Map(),
    currentToken: new Map(),
    authorizeRequests: new Map(),
    orders: new Map(),
    shipments: new Map(),
    connections: [],
    shopProducts: [],
    disputes: new Map(),
    calls: [],
    uploads: new Map(),
    files: createFileHost(),
    suspendedLogistics: new Set(),
    seq: 0,
  };
}

/** A fresh sequential number: ids stay readable and deterministic within one run. */
export function nextSeq(state: SimState): number {
  state.seq += 1;
  return state.seq;
}

export function findOrder(state: SimState, idOrNumber: string): SimOrder | undefined {
  const direct = state.orders.get(idOrNumber);
  if (direct) return direct;
  for (const o of state.orders.values()) {
    if (o.orderId === idOrNumber || o.orderNumber === idOrNumber || o.svcOrderCode === idOrNumber)
      return o;
  }
  return undefined;
}

/** An order visible to API calls of `accountId` by its service id (invalid orders have none). */
export function ownOrderById(
  state: SimState,
  accountId: string,
  orderId: string,
): SimOrder | undefined {
  for (const o of state.orders.values()) {
    if (o.accountId === accountId && o.orderId === orderId) return o;
  }
  return undefined;
}
