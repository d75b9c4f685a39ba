-- CreateTable
CREATE TABLE "Notice" (
    "id" TEXT NOT NULL,
    "shopDomain" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "orderId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "digestId" TEXT,

    CONSTRAINT "Notice_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "NoticeCondition" (
    "shopDomain" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "since" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "NoticeCondition_pkey" PRIMARY KEY ("shopDomain","kind")
);

-- CreateTable
CREATE TABLE "NoticeDigest" (
    "id" TEXT NOT NULL,
    "shopDomain" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "recipients" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "notices" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sentAt" TIMESTAMP(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,

    CONSTRAINT "NoticeDigest_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Notice_shopDomain_digestId_idx" ON "Notice"("shopDomain", "digestId");

-- CreateIndex
CREATE UNIQUE INDEX "Notice_shopDomain_kind_key_key" ON "Notice"("shopDomain", "kind", "key");

-- CreateIndex
CREATE UNIQUE INDEX "NoticeDigest_messageId_key" ON "NoticeDigest"("messageId");

-- CreateIndex
CREATE INDEX "NoticeDigest_shopDomain_createdAt_idx" ON "NoticeDigest"("shopDomain", "createdAt");

