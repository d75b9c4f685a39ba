-- AlterTable
ALTER TABLE "Dispute" ADD COLUMN     "refundDetails" JSONB NOT NULL DEFAULT '[]';

