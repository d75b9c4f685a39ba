/** The database as code that writes sees it: the client, or a transaction of the caller's. */
import type { Prisma, PrismaClient } from "@prisma/client";

/** Either the client or a transaction: a write inside the caller's transaction joins it. */
export type Db = PrismaClient | Prisma.TransactionClient;
