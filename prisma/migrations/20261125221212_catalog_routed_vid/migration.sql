-- AlterTable
ALTER TABLE "ProductConnection" ADD COLUMN     "routedVid" TEXT;

