/** The Repair card's data as app/repair/page.server.ts gives it to the order page. */

/** A shipping method from the service's freight quote for the order. */
export interface ShippingOption {
  logisticName: string;
  priceUsd: string;
  minDays: number | null;
  maxDays: number | null;
}

export interface RepairData {
  repairable: boolean;
  replaced: { svcOrderId: string | null; orderNumber: string; reason: string; at: string }[];
  address?: Record<string, string>;
  addressError?: string | null;
  customs?: Partial<Record<"taxId" | "houseNumber" | "consigneeID", string>>;
  methods?: { options: ShippingOption[]; error: string | null };
  current?: string | null;
  atService?: boolean;
  addressChanged?: boolean;
}
