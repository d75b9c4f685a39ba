/**
 * The archive's download never reaches a private address (issue 37), over real HTTP: a canary
 * server on this machine answers a PNG to anyone who reaches it, and must never be reached
 * whatever the address a service names: a name that resolves to the loopback (or to a public
 * and a private address), IPv4 written inside IPv6, the unspecified address, the NAT64 form, a
 * redirect from the service's own (trusted) host to each, and a name whose second answer from
 * the DNS would be private (the connection goes to the address checked). What the merchant
 * reads says "not allowed" and never names a port.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { downloadFile } from "../../app/archive/download.server";
import { FileRefusedError } from "../../app/archive/files.server";
import {
  AddressNotAllowedError,
  checkedAddresses,
  isPublicAddress,
  pinnedAgent,
  systemResolve,
} from "../../app/archive/public-address.server";
import { PNG_1PX, serveFiles } from "../helpers/file-server";

let canary: Server;
let canaryHits = 0;
let port = 0;
let service: Awaited<ReturnType<typeof serveFiles>>;
let trustedHost: string;

beforeAll(async () => {
  canary = createServer((_req, res) => {
    canaryHits++;
    res.writeHead(200, { "content-type": "image/png" }).end(PNG_1PX);
  });
  // Both stacks where the machine has them: [::], [::1] and 127.0.0.1 would all reach it.
  await new Promise<void>((resolve, reject) => {
    canary.once("error", () =>
      canary.listen(0, "127.0.0.1", () => resolve()).once("error", reject),
    );
    canary.listen(0, "::", () => resolve());
  });
  port = (canary.address() as AddressInfo).port;
  service = await serveFiles({});
  trustedHost = new URL(service.url).host;
});
afterAll(async () => {
  await new Promise((r) => canary.close(r));
  await service?.close();
});

/** A resolver from a table; it counts how often each name is asked. */
function dns(table: Record<string, string[] | (() => string[])>) {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const a = table[hostname];
    if (!a) throw new Error(`ENOTFOUND ${hostname}`);
    return typeof a === "function" ? a() : a;
  };
  return { asked, resolve };
}

const names = dns({
  "loopback.example": ["127.0.0.1"],
  "mixed.example": ["93.184.216.34", "10.0.0.7"],
  "mapped.example": ["::ffff:127.0.0.1"],
  "six.example": ["::1"],
});

const targets = () => [
  `http://loopback.example:${port}/photo.png`,
  `http://mixed.example:${port}/photo.png`,
  `http://mapped.example:${port}/photo.png`,
  `http://six.example:${port}/photo.png`,
  `http://[::ffff:127.0.0.1]:${port}/photo.png`,
  `http://[::ffff:7f00:1]:${port}/photo.png`,
  `http://[::]:${port}/photo.png`,
  `http://[::1]:${port}/photo.png`,
  `http://[64:ff9b::7f00:1]:${port}/photo.png`,
  `http://0.0.0.0:${port}/photo.png`,
  `http://127.1:${port}/photo.png`,
  `http://0x7f000001:${port}/photo.png`,
  `http://localhost:${port}/photo.png`,
];

describe("the canary on this machine is never reached", () => {
  it("it answers whoever reaches it (the test would see a leak)", async () => {
    const res = await fetch(`http://127.0.0.1:${port}/photo.png`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(canaryHits).toBe(1);
    canaryHits = 0;
  });

  for (const at of [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]) {
    it(`named directly: target ${at}`, async () => {
      const target = targets()[at]!;
      const e = await downloadFile(target, { maxBytes: 1024, resolve: names.resolve }).catch(
        (x: unknown) => x,
      );
      expect(e, target).toBeInstanceOf(FileRefusedError);
      expect((e as Error).message, target).toBe("the address is not allowed");
      expect(canaryHits, target).toBe(0);
    });
  }

  it("through a redirect from the service's own host, to each", async () => {
    for (const [i, target] of targets().entries()) {
      service.paths[`/r${i}`] = { redirect: target };
      const before = service.hits.length;
      const e = await downloadFile(`${service.url}/r${i}`, {
        maxBytes: 1024,
        trustedHost,
        resolve: names.resolve,
      }).catch((x: unknown) => x);
      expect((e as Error).message, target).toBe("the address is not allowed");
      expect(service.hits.slice(before), target).toEqual([`/r${i}`]);
    }
    expect(canaryHits).toBe(0);
  });

  it("a name is resolved once: a second answer of the DNS (now private) is never used", async () => {
    let n = 0;
    const rebinding = dns({
      "rebind.example": () => (n++ === 0 ? ["1.1.1.1"] : ["127.0.0.1"]),
    });
    const e = await downloadFile(`http://rebind.example:${port}/photo.png`, {
      maxBytes: 1024,
      resolve: rebinding.resolve,
      timeoutMs: 3_000,
    }).catch((x: unknown) => x);
    // The connection went to the public address checked (which this machine cannot reach).
    expect(e).toBeInstanceOf(Error);
    expect(e).not.toBeInstanceOf(FileRefusedError);
    expect(["the address could not be reached", "the address did not answer in time"]).toContain(
      (e as Error).message,
    );
    expect(rebinding.asked).toEqual(["rebind.example"]);
    expect(canaryHits).toBe(0);
  });

  it("a connection that fails names no port and no error of its own", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", () => r()));
    const shut = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const e = await downloadFile(`http://127.0.0.1:${shut}/x.png`, {
      maxBytes: 1024,
      trustedHost: `127.0.0.1:${shut}`,
    }).catch((x: unknown) => x);
    expect((e as Error).message).toBe("the address could not be reached");
    expect((e as Error).message).not.toContain(String(shut));
  });

  it("a name that does not resolve is a failure that may pass, not a refusal", async () => {
    const e = await downloadFile(`http://nowhere.example/x.png`, {
      maxBytes: 1024,
      resolve: names.resolve,
    }).catch((x: unknown) => x);
    expect(e).not.toBeInstanceOf(FileRefusedError);
    expect((e as Error).message).toBe("the address's name could not be resolved");
  });
});

describe("the pinned dispatcher", () => {
  it("connects a name only to the addresses pinned for it, and refuses a name never pinned", async () => {
    const { agent, pin } = pinnedAgent();
    try {
      pin("Pinned.Example", ["127.0.0.1"]);
      const res = await undiciFetch(`http://pinned.example:${port}/photo.png`, {
        dispatcher: agent,
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      expect(canaryHits).toBe(1);
      const e = await undiciFetch(`http://other.example:${port}/photo.png`, {
        dispatcher: agent,
      }).catch((x: unknown) => x);
      expect((e as { cause?: unknown }).cause).toBeInstanceOf(AddressNotAllowedError);
      expect(canaryHits).toBe(1);
    } finally {
      canaryHits = 0;
      await agent.close();
    }
  });
});

describe("the pinned lookup", () => {
  it("answers one address, or all with their families, as the connection asks", async () => {
    const { agent, pin, lookup } = pinnedAgent();
    pin("two.example", ["1.1.1.1", "2606:4700::1111"]);
    const ask = (options: object) =>
      new Promise<unknown[]>((resolve) =>
        lookup("TWO.example", options as never, (...args: unknown[]) => resolve(args)),
      );
    expect(await ask({})).toEqual([null, "1.1.1.1", 4]);
    expect(await ask({ all: true })).toEqual([
      null,
      [
        { address: "1.1.1.1", family: 4 },
        { address: "2606:4700::1111", family: 6 },
      ],
    ]);
    const [error] = await new Promise<unknown[]>((resolve) =>
      lookup("other.example", {} as never, (...args: unknown[]) => resolve(args)),
    );
    expect(error).toBeInstanceOf(AddressNotAllowedError);
    await agent.close();
  });
});

describe("public addresses", () => {
  it("by the maintained range list, IPv4 inside IPv6 read as IPv4", () => {
    for (const a of [
      "93.184.216.34",
      "1.1.1.1",
      "2606:4700::1111",
      "[2a00:1450::1]",
      "::ffff:8.8.8.8",
    ])
      expect(isPublicAddress(a), a).toBe(true);
    for (const a of [
      "127.0.0.1",
      "10.1.1.1",
      "100.64.0.1",
      "169.254.169.254",
      "192.0.0.9",
      "198.51.100.1",
      "224.0.0.251",
      "::",
      "::1",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "64:ff9b::a00:1",
      "fec0::1",
      "fe80::1",
      "fd00::1",
      "2002:a00:1::",
      "2001::1",
      "not an address",
      "",
    ])
      expect(isPublicAddress(a), a).toBe(false);
  });
});

describe("checking a name or an address", () => {
  it("a public literal is its own address; a name gives all it resolves to; none is a failure", async () => {
    const never = async () => {
      throw new Error("not asked");
    };
    expect(await checkedAddresses("8.8.8.8", never)).toEqual(["8.8.8.8"]);
    expect(await checkedAddresses("[2606:4700::1]", never)).toEqual(["2606:4700::1"]);
    const two = async () => ["1.1.1.1", "2606:4700::1111"];
    expect(await checkedAddresses("two.example", two)).toEqual(["1.1.1.1", "2606:4700::1111"]);
    const none = checkedAddresses("none.example", async () => []);
    await expect(none).rejects.toThrow("the address's name could not be resolved");
    await expect(none).rejects.not.toBeInstanceOf(AddressNotAllowedError);
    const e = await checkedAddresses("127.0.0.1", never).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AddressNotAllowedError);
    expect((e as Error).name).toBe("AddressNotAllowedError");
    expect((e as Error).message).toBe("the address is not allowed");
  });

  it("the system resolver gives every address of a name (localhost from the hosts file)", async () => {
    const got = await systemResolve("localhost");
    expect(got.length).toBeGreaterThan(0);
    for (const a of got) expect(["127.0.0.1", "::1"]).toContain(a);
  });

  it("the trusted host by name is resolved, not checked; a trusted name that does not resolve fails", async () => {
    const port = new URL(service.url).port;
    service.paths["/ok.png"] = { bytes: PNG_1PX };
    const trusted = dns({ "svc.test": ["127.0.0.1"] });
    const got = await downloadFile(`http://svc.test:${port}/ok.png`, {
      maxBytes: 1024,
      trustedHost: `svc.test:${port}`,
      resolve: trusted.resolve,
    });
    expect(got.type).toBe("image/png");
    expect(trusted.asked).toEqual(["svc.test"]);
    const e = await downloadFile(`http://gone.test:${port}/ok.png`, {
      maxBytes: 1024,
      trustedHost: `gone.test:${port}`,
      resolve: trusted.resolve,
    }).catch((x: unknown) => x);
    expect((e as Error).message).toBe("the address's name could not be resolved");
    expect(e).not.toBeInstanceOf(FileRefusedError);
  });

  it("an address that does not answer in time says so, and nothing more", async () => {
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", () => r()));
    const at = `127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const e = await downloadFile(`http://${at}/x.png`, {
        maxBytes: 1024,
        trustedHost: at,
        timeoutMs: 300,
      }).catch((x: unknown) => x);
      expect((e as Error).message).toBe("the address did not answer in time");
    } finally {
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
  });
});
