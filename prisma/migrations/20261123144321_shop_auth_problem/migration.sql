-- AlterTable
ALTER TABLE "Shop" ADD COLUMN     "authProblem" TEXT,
ADD COLUMN     "authProblemAt" TIMESTAMP(3);

