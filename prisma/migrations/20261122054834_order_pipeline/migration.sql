-- CreateTable
CREATE TABLE "ProductConnection" (
    "id" TEXT NOT NULL,
    "shopDomain" TEXT NOT NULL,
    "shopifyProductId" TEXT NOT NULL,
    "shopifyVariantId" TEXT NOT NULL,
    "sku" TEXT,
    "svcProductId" TEXT,
    "svcVid" TEXT NOT NULL,
    "svcConnectionId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ProductConnection_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ShopOrder" (
    "id" TEXT NOT NULL,
    "shopDomain" TEXT NOT NULL,
    "shopifyOrderId" TEXT NOT NULL,
    "shopifyOrderName" TEXT,
    "state" TEXT NOT NULL DEFAULT 'RECEIVED',
    "reasonCode" TEXT,
    "reasonMessage" TEXT,
    "flag" TEXT,
    "svcAccountId" TEXT,
    "orderNumber" TEXT NOT NULL,
    "svcOrderId" TEXT,
    "isSandbox" BOOLEAN NOT NULL DEFAULT false,
    "placeAfter" TIMESTAMP(3),
    "paymentBatchId" TEXT,
    "shipmentOrderId" TEXT,
    "payId" TEXT,
    "amount" TEXT,
    "currency" TEXT,
    "customerId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "placedAt" TIMESTAMP(3),
    "paidAt" TIMESTAMP(3),
    "fulfilledAt" TIMESTAMP(3),
    "deliveredAt" TIMESTAMP(3),
    "cancelledAt" TIMESTAMP(3),

    CONSTRAINT "ShopOrder_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ShopOrderLine" (
    "id" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "shopifyLineItemId" TEXT NOT NULL,
    "shopifyProductId" TEXT,
    "shopifyVariantId" TEXT,
    "sku" TEXT,
    "title" TEXT NOT NULL,
    "variantTitle" TEXT,
    "variantOptions" TEXT,
    "image" TEXT,
    "quantity" INTEGER NOT NULL,
    "unitPrice" TEXT NOT NULL,
    "requiresShipping" BOOLEAN NOT NULL DEFAULT true,
    "svcVid" TEXT,
    "fulfilledQuantity" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "ShopOrderLine_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Shipment" (
    "id" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "svcOrderId" TEXT NOT NULL,
    "trackNumber" TEXT,
    "trackingUrl" TEXT,
    "logisticName" TEXT,
    "lines" JSONB NOT NULL DEFAULT '[]',
    "shopifyFulfillmentId" TEXT,
    "writtenTrackNumber" TEXT,
    "deliveredAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Shipment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PaymentBatch" (
    "id" TEXT NOT NULL,
    "svcAccountId" TEXT NOT NULL,
    "isSandbox" BOOLEAN NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'open',
    "shipmentOrderId" TEXT,
    "payId" TEXT,
    "amount" TEXT,
    "error" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "paidAt" TIMESTAMP(3),

    CONSTRAINT "PaymentBatch_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TimelineEntry" (
    "id" BIGSERIAL NOT NULL,
    "orderId" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "step" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "requestId" TEXT,
    "errorCode" TEXT,
    "message" TEXT,

    CONSTRAINT "TimelineEntry_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ProductConnection_shopDomain_shopifyProductId_idx" ON "ProductConnection"("shopDomain", "shopifyProductId");

-- CreateIndex
CREATE UNIQUE INDEX "ProductConnection_shopDomain_shopifyVariantId_key" ON "ProductConnection"("shopDomain", "shopifyVariantId");

-- CreateIndex
CREATE UNIQUE INDEX "ShopOrder_orderNumber_key" ON "ShopOrder"("orderNumber");

-- CreateIndex
CREATE INDEX "ShopOrder_state_updatedAt_idx" ON "ShopOrder"("state", "updatedAt");

-- CreateIndex
CREATE INDEX "ShopOrder_svcAccountId_state_idx" ON "ShopOrder"("svcAccountId", "state");

-- CreateIndex
CREATE INDEX "ShopOrder_svcOrderId_idx" ON "ShopOrder"("svcOrderId");

-- CreateIndex
CREATE UNIQUE INDEX "ShopOrder_shopDomain_shopifyOrderId_key" ON "ShopOrder"("shopDomain", "shopifyOrderId");

-- CreateIndex
CREATE UNIQUE INDEX "ShopOrderLine_orderId_shopifyLineItemId_key" ON "ShopOrderLine"("orderId", "shopifyLineItemId");

-- CreateIndex
CREATE INDEX "Shipment_orderId_idx" ON "Shipment"("orderId");

-- CreateIndex
CREATE UNIQUE INDEX "Shipment_svcOrderId_trackNumber_key" ON "Shipment"("svcOrderId", "trackNumber");

-- CreateIndex
CREATE INDEX "PaymentBatch_svcAccountId_state_idx" ON "PaymentBatch"("svcAccountId", "state");

-- CreateIndex
CREATE INDEX "TimelineEntry_orderId_at_idx" ON "TimelineEntry"("orderId", "at");

-- AddForeignKey
ALTER TABLE "ShopOrderLine" ADD CONSTRAINT "ShopOrderLine_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "ShopOrder"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Shipment" ADD CONSTRAINT "Shipment_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "ShopOrder"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TimelineEntry" ADD CONSTRAINT "TimelineEntry_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "ShopOrder"("id") ON DELETE CASCADE ON UPDATE CASCADE;

