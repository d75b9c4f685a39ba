-- CreateTable
CREATE TABLE "SvcAccount" (
    "id" TEXT NOT NULL,
    "shopDomain" TEXT,
    "baseUrl" TEXT NOT NULL,
    "openId" TEXT,
    "authMethod" TEXT NOT NULL,
    "apiKeyEnc" TEXT,
    "accessTokenEnc" TEXT,
    "accessTokenExpiresAt" TIMESTAMP(3),
    "refreshTokenEnc" TEXT,
    "refreshTokenExpiresAt" TIMESTAMP(3),
    "lastTokenRequestAt" TIMESTAMP(3),
    "callsPerSecond" INTEGER NOT NULL DEFAULT 1,
    "queryCallsPerSecond" INTEGER NOT NULL DEFAULT 2,
    "webhookSecret" TEXT,
    "webhookRegisteredAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SvcAccount_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RateBucket" (
    "accountId" TEXT NOT NULL,
    "bucket" TEXT NOT NULL,
    "nextAt" TIMESTAMP(3) NOT NULL,
    "slowUntil" TIMESTAMP(3),

    CONSTRAINT "RateBucket_pkey" PRIMARY KEY ("accountId","bucket")
);

-- CreateTable
CREATE TABLE "AuthState" (
    "state" TEXT NOT NULL,
    "shopDomain" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuthState_pkey" PRIMARY KEY ("state")
);

-- CreateTable
CREATE TABLE "Job" (
    "id" BIGSERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "payload" JSONB NOT NULL DEFAULT '{}',
    "state" TEXT NOT NULL DEFAULT 'available',
    "runAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "maxAttempts" INTEGER NOT NULL DEFAULT 10,
    "idempotencyKey" TEXT,
    "concurrencyKey" TEXT,
    "lockedBy" TEXT,
    "lockedUntil" TIMESTAMP(3),
    "lastError" TEXT,
    "result" JSONB,
    "shopDomain" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "Job_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookEvent" (
    "id" BIGSERIAL NOT NULL,
    "source" TEXT NOT NULL,
    "shopDomain" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "eventKey" TEXT NOT NULL,
    "webhookId" TEXT,
    "triggeredAt" TIMESTAMP(3),
    "payload" JSONB NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "jobId" BIGINT,

    CONSTRAINT "WebhookEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "SvcAccount_shopDomain_key" ON "SvcAccount"("shopDomain");

-- CreateIndex
CREATE UNIQUE INDEX "SvcAccount_webhookSecret_key" ON "SvcAccount"("webhookSecret");

-- CreateIndex
CREATE INDEX "AuthState_shopDomain_idx" ON "AuthState"("shopDomain");

-- CreateIndex
CREATE UNIQUE INDEX "Job_idempotencyKey_key" ON "Job"("idempotencyKey");

-- CreateIndex
CREATE INDEX "Job_state_runAt_idx" ON "Job"("state", "runAt");

-- CreateIndex
CREATE INDEX "Job_concurrencyKey_state_idx" ON "Job"("concurrencyKey", "state");

-- CreateIndex
CREATE INDEX "Job_shopDomain_idx" ON "Job"("shopDomain");

-- CreateIndex
CREATE INDEX "WebhookEvent_shopDomain_topic_idx" ON "WebhookEvent"("shopDomain", "topic");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookEvent_source_eventKey_key" ON "WebhookEvent"("source", "eventKey");

-- AddForeignKey
ALTER TABLE "RateBucket" ADD CONSTRAINT "RateBucket_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "SvcAccount"("id") ON DELETE CASCADE ON UPDATE CASCADE;

