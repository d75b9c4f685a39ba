-- AlterTable
ALTER TABLE "Shop" ADD COLUMN     "ianaTimezone" TEXT;

