/** The route table: every operation of the contract that has a path. `op` names appear in calls(). */
import * as auth from "./auth";
import * as conn from "./connections";
import type { Route } from "./context";
import * as disputes from "./disputes";
import { Codes } from "./envelope";
import * as inv from "./inventory";
import * as orders from "./orders";
import * as pay from "./payment";
import * as products from "./products";
import { webhookSet } from "./webhooks";

const V1 = "/api2.0/v1";

export const ROUTES: Route[] = [
  // Part 1
  {
    op: "getAccessToken",
    method: "POST",
    path: `${V1}/authentication/getAccessToken`,
    auth: "none",
    limit: "self",
    handler: auth.getAccessToken,
  },
  {
    op: "refreshAccessToken",
    method: "POST",
    path: `${V1}/authentication/refreshAccessToken`,
    auth: "none",
    limit: "self",
    handler: auth.refreshAccessToken,
  },
  {
    op: "logout",
    method: "POST",
    path: `${V1}/authentication/logout`,
    auth: "token",
    handler: auth.logout,
  },
  {
    op: "getAuthorizeUrl",
    method: "POST",
    path: `${V1}/authentication/getAuthorizeUrl`,
    auth: "token",
    authErrorCode: Codes.USER_NOT_FOUND,
    handler: auth.getAuthorizeUrl,
  },
  {
    op: "exchangeAccessToken",
    method: "POST",
    path: `${V1}/authentication/exchangeAccessToken`,
    auth: "token",
    handler: auth.exchangeAccessToken,
  },
  {
    op: "warehouseDetail",
    method: "GET",
    path: `${V1}/warehouse/detail`,
    auth: "token",
    handler: inv.warehouseDetail,
  },
  {
    op: "querySpuPage",
    method: "POST",
    path: `${V1}/product/stock/privateInventory/querySpuPage`,
    auth: "token",
    handler: inv.querySpuPage,
  },
  {
    op: "querySkuListByProductId",
    method: "POST",
    path: `${V1}/product/stock/privateInventory/querySkuListByProductId`,
    auth: "token",
    handler: inv.querySkuListByProductId,
  },
  {
    op: "querySkuDetailPage",
    method: "POST",
    path: `${V1}/product/stock/privateInventory/querySkuDetailPage`,
    auth: "token",
    handler: inv.querySkuDetailPage,
  },
  {
    op: "querySkuDetailListBySku",
    method: "POST",
    path: `${V1}/product/stock/privateInventory/querySkuDetailListBySku`,
    auth: "token",
    handler: inv.querySkuDetailListBySku,
  },
  {
    op: "querySkuFlowByCondition",
    method: "POST",
    path: `${V1}/product/stock/privateInventory/querySkuFlowByCondition`,
    auth: "token",
    handler: inv.querySkuFlowByCondition,
  },
  {
    op: "syncStorehouseVideoRequests",
    method: "POST",
    path: `${V1}/storehouseCenterWeb/syncStorehouseVideoRequests`,
    auth: "token",
    handler: orders.warehousePhotos,
  },
  {
    op: "webhookSet",
    method: "POST",
    path: `${V1}/webhook/set`,
    auth: "token",
    handler: webhookSet,
  },
  // Part 2
  {
    op: "getCategory",
    method: "GET",
    path: `${V1}/product/getCategory`,
    auth: "token",
    handler: products.getCategory,
  },
  {
    op: "listV2",
    method: "GET",
    path: `${V1}/product/listV2`,
    auth: "token",
    handler: products.listV2,
  },
  {
    op: "globalWarehouseList",
    method: "GET",
    path: `${V1}/product/globalWarehouseList`,
    auth: "token",
    style: { withResult: false, withSuccess: true },
    handler: products.globalWarehouseList,
  },
  { op: "list", method: "GET", path: `${V1}/product/list`, auth: "token", handler: products.list },
  {
    op: "query",
    method: "GET",
    path: `${V1}/product/query`,
    auth: "token",
    handler: products.productQuery,
  },
  {
    op: "variantQuery",
    method: "GET",
    path: `${V1}/product/variant/query`,
    auth: "token",
    handler: products.variantQuery,
  },
  {
    op: "queryByVid",
    method: "GET",
    path: `${V1}/product/variant/queryByVid`,
    auth: "token",
    handler: products.queryByVid,
  },
  {
    op: "queryVideosByProductId",
    method: "POST",
    path: `${V1}/product/queryVideosByProductId`,
    auth: "token",
    style: { successCode: Codes.VIDEO_OK, withSuccess: true },
    handler: products.queryVideosByProductId,
  },
  {
    op: "addToMyProduct",
    method: "POST",
    path: `${V1}/product/addToMyProduct`,
    auth: "token",
    handler: products.addToMyProduct,
  },
  {
    op: "connectionList",
    method: "GET",
    path: `${V1}/product/conn/connection`,
    auth: "token",
    handler: conn.listConnections,
  },
  {
    op: "connectionCreate",
    method: "POST",
    path: `${V1}/product/conn/connection`,
    auth: "token",
    handler: conn.createConnection,
  },
  {
    op: "connectionDelete",
    method: "DELETE",
    path: `${V1}/product/conn/connection`,
    auth: "token",
    handler: conn.deleteConnection,
  },
  // Part 3
  {
    op: "createOrderV2",
    method: "POST",
    path: `${V1}/shopping/order/createOrderV2`,
    auth: "token",
    handler: orders.createOrderV2,
  },
  {
    op: "createOrderV3",
    method: "POST",
    path: `${V1}/shopping/order/createOrderV3`,
    auth: "token",
    handler: orders.createOrderV3,
  },
  {
    op: "addCart",
    method: "POST",
    path: `${V1}/shopping/order/addCart`,
    auth: "token",
    handler: orders.addCart,
  },
  {
    op: "addCartConfirm",
    method: "POST",
    path: `${V1}/shopping/order/addCartConfirm`,
    auth: "token",
    handler: orders.addCartConfirm,
  },
  {
    op: "saveGenerateParentOrder",
    method: "POST",
    path: `${V1}/shopping/order/saveGenerateParentOrder`,
    auth: "token",
    handler: pay.saveGenerateParentOrder,
  },
  {
    op: "updateLogistics",
    method: "POST",
    path: `${V1}/shopping/order/updateLogistics`,
    auth: "token",
    handler: orders.updateLogistics,
  },
  {
    op: "optionalLogistics",
    method: "POST",
    path: `${V1}${orders.OPTIONAL_LOGISTICS_PATH}`,
    auth: "token",
    handler: orders.optionalLogistics,
  },
  {
    op: "freightCalculate",
    method: "POST",
    path: `${V1}/logistic/freightCalculate`,
    auth: "token",
    handler: orders.freightCalculate,
  },
  {
    op: "updateTrackNumber",
    method: "POST",
    path: `${V1}/shopping/sandbox/updateTrackNumber`,
    auth: "token",
    handler: orders.sandboxUpdateTrackNumber,
  },
  {
    op: "getOrderDetailBatch",
    method: "POST",
    path: `${V1}/shopping/order/getOrderDetailBatch`,
    auth: "token",
    limit: "query",
    handler: orders.getOrderDetailBatch,
  },
  {
    op: "getProofOfDelivery",
    method: "POST",
    path: `${V1}/shopping/order/getProofOfDelivery`,
    auth: "token",
    limit: "query",
    handler: orders.getProofOfDelivery,
  },
  {
    op: "getBalance",
    method: "GET",
    path: `${V1}/shopping/pay/getBalance`,
    auth: "token",
    handler: pay.getBalance,
  },
  {
    op: "payBalance",
    method: "POST",
    path: `${V1}/shopping/pay/payBalance`,
    auth: "token",
    handler: pay.payBalance,
  },
  {
    op: "payBalanceV2",
    method: "POST",
    path: `${V1}/shopping/pay/payBalanceV2`,
    auth: "token",
    handler: pay.payBalanceV2,
  },
  {
    op: "disputeProducts",
    method: "GET",
    path: `${V1}/disputes/disputeProducts`,
    auth: "token",
    handler: disputes.disputeProducts,
  },
  {
    op: "disputeConfirmInfo",
    method: "POST",
    path: `${V1}/disputes/disputeConfirmInfo`,
    auth: "token",
    handler: disputes.disputeConfirmInfo,
  },
  {
    op: "disputeCreate",
    method: "POST",
    path: `${V1}/disputes/create`,
    auth: "token",
    handler: disputes.createDispute,
  },
  {
    op: "disputeCancel",
    method: "POST",
    path: `${V1}/disputes/cancel`,
    auth: "token",
    handler: disputes.cancelDispute,
  },
  {
    op: "getDisputeList",
    method: "GET",
    path: `${V1}/disputes/getDisputeList`,
    auth: "token",
    handler: disputes.getDisputeList,
  },
  {
    op: "getDisputeDetail",
    method: "GET",
    path: `${V1}/disputes/getDisputeDetail`,
    auth: "token",
    handler: disputes.getDisputeDetail,
  },
  {
    op: "getDisputeMessages",
    method: "POST",
    path: `${V1}/disputes/getDisputeMessages`,
    auth: "token",
    handler: disputes.getDisputeMessages,
  },
  {
    op: "disputeReply",
    method: "POST",
    path: `${V1}/disputes/reply`,
    auth: "token",
    handler: disputes.replyDispute,
  },
  {
    op: "uploadFile",
    method: "POST",
    path: `${V1}/disputes/uploadFile`,
    auth: "token",
    handler: disputes.uploadFile,
  },
];

export function findRoute(method: string, path: string): Route | "method" | undefined {
  const samePath = ROUTES.filter((r) => r.path === path);
  if (samePath.length === 0) return undefined;
  return samePath.find((r) => r.method === method) ?? "method";
}
