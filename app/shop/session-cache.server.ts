/**
 * The shop's offline session, read by every Admin API call of every job, kept in this process
 * through a row cache (app/db/row-cache.server.ts): dropped when the session is stored, refreshed
 * or deleted anywhere (the Session table's trigger), and at once when this process stores or
 * deletes it. Online sessions (a merchant's browser) are not kept. Each caller gets its own copy:
 * the library may change the Session it is given.
 */
import { Session } from "@shopify/shopify-api";
import { rowCache } from "../db/row-cache.server";
import type { SessionStore } from "./session-crypto.server";

const offline = rowCache<Session | undefined>({
  table: "Session",
  byRowKey: true,
  maxEntries: 2000,
});

const copy = (s: Session | undefined) => s && new Session(s.toObject());

/** This process changed the session outside the storage (a locked refresh): drop its copy. */
export function offlineSessionChanged(id: string): void {
  offline.changed(id);
}

export function cachingSessionStorage(inner: SessionStore): SessionStore {
  return {
    storeSession: async (session) => {
      try {
        return await inner.storeSession(session);
      } finally {
        offline.changed(session.id);
      }
    },
    loadSession: async (id) =>
      id.startsWith("offline_")
        ? copy(await offline.get(id, () => inner.loadSession(id)))
        : inner.loadSession(id),
    deleteSession: async (id) => {
      try {
        return await inner.deleteSession(id);
      } finally {
        offline.changed(id);
      }
    },
    deleteSessions: async (ids) => {
      try {
        return await inner.deleteSessions(ids);
      } finally {
        for (const id of ids) offline.changed(id);
      }
    },
    findSessionsByShop: (shop) => inner.findSessionsByShop(shop),
  };
}
