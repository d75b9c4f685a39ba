-- CreateTable
CREATE TABLE "Dispute" (
    "id" TEXT NOT NULL,
    "shopDomain" TEXT NOT NULL,
    "svcAccountId" TEXT NOT NULL,
    "svcDisputeId" TEXT NOT NULL,
    "businessDisputeId" TEXT,
    "orderId" TEXT,
    "svcOrderId" TEXT,
    "orderNumber" TEXT,
    "status" TEXT NOT NULL,
    "reason" TEXT,
    "expectType" INTEGER,
    "money" TEXT,
    "replacementAmount" TEXT,
    "finallyDeal" INTEGER,
    "lines" JSONB NOT NULL DEFAULT '[]',
    "svcCreatedAt" TIMESTAMP(3) NOT NULL,
    "svcUpdatedAt" TIMESTAMP(3),
    "messagesReadAt" TIMESTAMP(3),
    "cancelledAt" TIMESTAMP(3),
    "unread" BOOLEAN NOT NULL DEFAULT false,
    "lastMessageAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Dispute_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DisputeMessage" (
    "id" TEXT NOT NULL,
    "disputeId" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "fromSupport" BOOLEAN NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "text" TEXT NOT NULL,
    "imageUrls" JSONB NOT NULL DEFAULT '[]',
    "videoUrls" JSONB NOT NULL DEFAULT '[]',

    CONSTRAINT "DisputeMessage_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "StoredFile" (
    "id" TEXT NOT NULL,
    "shopDomain" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "orderId" TEXT,
    "sourceUrl" TEXT,
    "name" TEXT,
    "contentType" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "data" BYTEA,
    "objectKey" TEXT,
    "publicToken" TEXT,
    "publicUntil" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "StoredFile_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ArchiveTask" (
    "id" TEXT NOT NULL,
    "shopDomain" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "sourceUrl" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "nextAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "doneAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ArchiveTask_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Dispute_shopDomain_svcCreatedAt_idx" ON "Dispute"("shopDomain", "svcCreatedAt");

-- CreateIndex
CREATE INDEX "Dispute_orderId_idx" ON "Dispute"("orderId");

-- CreateIndex
CREATE UNIQUE INDEX "Dispute_svcAccountId_svcDisputeId_key" ON "Dispute"("svcAccountId", "svcDisputeId");

-- CreateIndex
CREATE INDEX "DisputeMessage_disputeId_at_idx" ON "DisputeMessage"("disputeId", "at");

-- CreateIndex
CREATE UNIQUE INDEX "DisputeMessage_disputeId_messageId_key" ON "DisputeMessage"("disputeId", "messageId");

-- CreateIndex
CREATE UNIQUE INDEX "StoredFile_publicToken_key" ON "StoredFile"("publicToken");

-- CreateIndex
CREATE INDEX "StoredFile_orderId_purpose_idx" ON "StoredFile"("orderId", "purpose");

-- CreateIndex
CREATE UNIQUE INDEX "StoredFile_shopDomain_purpose_sourceUrl_key" ON "StoredFile"("shopDomain", "purpose", "sourceUrl");

-- CreateIndex
CREATE INDEX "ArchiveTask_doneAt_nextAt_idx" ON "ArchiveTask"("doneAt", "nextAt");

-- CreateIndex
CREATE UNIQUE INDEX "ArchiveTask_orderId_purpose_sourceUrl_key" ON "ArchiveTask"("orderId", "purpose", "sourceUrl");

-- AddForeignKey
ALTER TABLE "DisputeMessage" ADD CONSTRAINT "DisputeMessage_disputeId_fkey" FOREIGN KEY ("disputeId") REFERENCES "Dispute"("id") ON DELETE CASCADE ON UPDATE CASCADE;

