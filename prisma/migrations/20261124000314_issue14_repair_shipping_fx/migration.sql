-- AlterTable
ALTER TABLE "ShopOrder" ADD COLUMN     "fxRate" TEXT,
ADD COLUMN     "fxSource" TEXT,
ADD COLUMN     "logisticName" TEXT,
ADD COLUMN     "payRequestedAt" TIMESTAMP(3),
ADD COLUMN     "placeAttempt" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "recipient" JSONB,
ADD COLUMN     "shippedTo" TEXT,
ADD COLUMN     "shippingCost" TEXT;

-- AlterTable
ALTER TABLE "ShopOrderLine" ADD COLUMN     "unitPriceUsd" TEXT;

-- CreateTable
CREATE TABLE "ReplacedServiceOrder" (
    "id" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "svcOrderId" TEXT,
    "orderNumber" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ReplacedServiceOrder_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "FreightQuote" (
    "key" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "options" JSONB NOT NULL,
    "fetchedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "FreightQuote_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "FxRate" (
    "currency" TEXT NOT NULL,
    "usdPerUnit" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "fetchedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "FxRate_pkey" PRIMARY KEY ("currency")
);

-- CreateIndex
CREATE INDEX "ReplacedServiceOrder_orderId_idx" ON "ReplacedServiceOrder"("orderId");

-- CreateIndex
CREATE INDEX "ReplacedServiceOrder_svcOrderId_idx" ON "ReplacedServiceOrder"("svcOrderId");

-- CreateIndex
CREATE INDEX "FreightQuote_fetchedAt_idx" ON "FreightQuote"("fetchedAt");

-- AddForeignKey
ALTER TABLE "ReplacedServiceOrder" ADD CONSTRAINT "ReplacedServiceOrder_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "ShopOrder"("id") ON DELETE CASCADE ON UPDATE CASCADE;

