-- AlterTable
ALTER TABLE "ProductConnection" ADD COLUMN     "flag" TEXT,
ADD COLUMN     "flaggedAt" TIMESTAMP(3),
ADD COLUMN     "imported" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "inventoryItemId" TEXT,
ADD COLUMN     "pricedFromUsd" DECIMAL(18,2),
ADD COLUMN     "shopPrice" TEXT,
ADD COLUMN     "stockSet" INTEGER,
ADD COLUMN     "syncedAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "CatalogVariant" (
    "vid" TEXT NOT NULL,
    "pid" TEXT NOT NULL,
    "productName" TEXT NOT NULL,
    "productImage" TEXT,
    "variantKey" TEXT,
    "variantImage" TEXT,
    "sku" TEXT,
    "supplierName" TEXT,
    "costUsd" DECIMAL(18,2),
    "stock" JSONB NOT NULL DEFAULT '{}',
    "removed" BOOLEAN NOT NULL DEFAULT false,
    "checkedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CatalogVariant_pkey" PRIMARY KEY ("vid")
);

-- CreateTable
CREATE TABLE "BackupSupplier" (
    "id" TEXT NOT NULL,
    "shopDomain" TEXT NOT NULL,
    "shopifyVariantId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "svcProductId" TEXT NOT NULL,
    "svcVid" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BackupSupplier_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CatalogImport" (
    "id" TEXT NOT NULL,
    "shopDomain" TEXT NOT NULL,
    "pid" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "title" TEXT,
    "variants" INTEGER NOT NULL DEFAULT 0,
    "shopifyProductId" TEXT,
    "error" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CatalogImport_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SyncChange" (
    "id" BIGSERIAL NOT NULL,
    "shopDomain" TEXT NOT NULL,
    "shopifyVariantId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "before" TEXT,
    "after" TEXT,
    "note" TEXT,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SyncChange_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "CatalogVariant_pid_idx" ON "CatalogVariant"("pid");

-- CreateIndex
CREATE UNIQUE INDEX "BackupSupplier_shopDomain_shopifyVariantId_position_key" ON "BackupSupplier"("shopDomain", "shopifyVariantId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "BackupSupplier_shopDomain_shopifyVariantId_svcVid_key" ON "BackupSupplier"("shopDomain", "shopifyVariantId", "svcVid");

-- CreateIndex
CREATE INDEX "CatalogImport_shopDomain_createdAt_idx" ON "CatalogImport"("shopDomain", "createdAt");

-- CreateIndex
CREATE INDEX "SyncChange_shopDomain_at_idx" ON "SyncChange"("shopDomain", "at");

-- CreateIndex
CREATE INDEX "ProductConnection_svcProductId_idx" ON "ProductConnection"("svcProductId");

