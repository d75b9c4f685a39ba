import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Starts a server on a free loopback port; `close` ends its open connections too. */
export async function listenOnLoopback(
  server: Server,
): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
