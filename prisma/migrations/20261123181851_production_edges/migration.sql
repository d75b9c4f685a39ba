-- AlterTable
ALTER TABLE "SvcAccount" ADD COLUMN     "partnerKey" TEXT,
ADD COLUMN     "webhookGaps" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "webhookSecretEnc" TEXT,
ADD COLUMN     "webhookSecretHash" TEXT;

-- AlterTable
ALTER TABLE "WebhookEvent" ADD COLUMN     "ignoredReason" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "SvcAccount_partnerKey_key" ON "SvcAccount"("partnerKey");

-- CreateIndex
CREATE INDEX "SvcAccount_webhookSecretHash_idx" ON "SvcAccount"("webhookSecretHash");

-- CreateIndex
CREATE INDEX "SvcAccount_openId_idx" ON "SvcAccount"("openId");


-- Existing webhook secrets become findable by their hash at once; the secrets migration
-- (app/db/secrets-migration.server.ts, run by `npm run db:migrate` and at start) encrypts them
-- into "webhookSecretEnc" and empties the clear column.
UPDATE "SvcAccount"
SET "webhookSecretHash" = encode(sha256(convert_to("webhookSecret", 'UTF8')), 'hex')
WHERE "webhookSecret" IS NOT NULL;

-- The oldest partner account of each base URL keeps the key; any racing duplicates stay keyless.
UPDATE "SvcAccount" a SET "partnerKey" = a."baseUrl"
WHERE a."authMethod" = 'partner' AND a."shopDomain" IS NULL
  AND a."id" = (SELECT b."id" FROM "SvcAccount" b
                WHERE b."authMethod" = 'partner' AND b."shopDomain" IS NULL
                  AND b."baseUrl" = a."baseUrl"
                ORDER BY b."createdAt", b."id" LIMIT 1);
