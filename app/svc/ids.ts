/** Branded ids of the service, parsed once at the edge. */
declare const brand: unique symbol;
export type Brand<T, B extends string> = T & { readonly [brand]: B };

export type SvcOrderId = Brand<string, "SvcOrderId">;
export type SvcProductId = Brand<string, "SvcProductId">;
export type SvcVariantId = Brand<string, "SvcVariantId">;
export type SvcDisputeId = Brand<string, "SvcDisputeId">;
export type SvcShipmentOrderId = Brand<string, "SvcShipmentOrderId">;
export type SvcOpenId = Brand<string, "SvcOpenId">;

export const asSvcOrderId = (s: string) => s as SvcOrderId;
export const asSvcProductId = (s: string) => s as SvcProductId;
export const asSvcVariantId = (s: string) => s as SvcVariantId;
export const asSvcDisputeId = (s: string) => s as SvcDisputeId;
export const asSvcShipmentOrderId = (s: string) => s as SvcShipmentOrderId;
