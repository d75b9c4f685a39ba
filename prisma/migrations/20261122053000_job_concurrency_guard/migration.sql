-- At most one running job per concurrency key, enforced by the database itself so that two
-- workers claiming at the same instant cannot both win. (A partial index: Prisma's schema
-- language cannot express it, so it lives only here.)
CREATE UNIQUE INDEX "Job_running_concurrencyKey_key" ON "Job"("concurrencyKey")
  WHERE "state" = 'running' AND "concurrencyKey" IS NOT NULL;
