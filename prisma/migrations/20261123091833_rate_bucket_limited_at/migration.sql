-- AlterTable
ALTER TABLE "RateBucket" ADD COLUMN     "limitedAt" TIMESTAMP(3);

