-- AlterTable
ALTER TABLE "SvcAccount" ADD COLUMN     "knownBalance" TEXT,
ADD COLUMN     "knownBalanceAt" TIMESTAMP(3);

