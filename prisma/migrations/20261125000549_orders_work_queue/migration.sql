-- AlterTable
ALTER TABLE "ShopOrder" ADD COLUMN     "customerEmail" TEXT,
ADD COLUMN     "customerName" TEXT,
ADD COLUMN     "shopTotal" TEXT;

-- CreateTable
CREATE TABLE "BulkRun" (
    "id" TEXT NOT NULL,
    "shopDomain" TEXT NOT NULL,
    "intent" TEXT NOT NULL,
    "clientKey" TEXT NOT NULL,
    "orderIds" JSONB NOT NULL,
    "results" JSONB NOT NULL DEFAULT '{}',
    "total" INTEGER NOT NULL,
    "done" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "BulkRun_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "BulkRun_shopDomain_createdAt_idx" ON "BulkRun"("shopDomain", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "BulkRun_shopDomain_clientKey_key" ON "BulkRun"("shopDomain", "clientKey");

-- CreateIndex
CREATE INDEX "ShopOrder_shopDomain_createdAt_idx" ON "ShopOrder"("shopDomain", "createdAt");

